package runs

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// deferrableIndexes are the secondary indexes on a run's tables that the import itself never
// reads (derivation reads chains, memories, states, trials and attribution by chain, which
// keep theirs): they could be built once after the bulk load instead of row by row.
var deferrableIndexes = []string{"model_contexts_by_trial", "calls_by_id", "executor_plan_by_trial", "faults_by_case", "trials_by_run",
	"chains_by_ffa", "chains_by_unauthorized", "chains_by_attributed", "chains_by_annotation", "chains_by_condition"}

// BenchmarkIndexBuildTiming imports the benchmark run (EALSCOPE_BENCH_CASES, with its corpus)
// into a fresh workspace per iteration, with the secondary indexes the import does not read
// maintained during the load ("during", as the import does) or dropped first and built after
// the load ("after": the drop, the import and the CREATE INDEX statements all timed). The
// process's CPU seconds per import (cpu-s/op) are steadier than wall time on a shared machine.
//
//	EALSCOPE_BENCH_CASES=300 EALSCOPE_BENCH_CONDITIONS=all go test ./runs -run '^$' -bench IndexBuildTiming -benchtime 3x
func BenchmarkIndexBuildTiming(b *testing.B) {
	benchFixture(b)
	ctx := context.Background()
	for _, mode := range []string{"during", "after"} {
		b.Run(mode, func(b *testing.B) {
			cpu0 := processCPUSeconds()
			n := 0
			defer func() { b.ReportMetric((processCPUSeconds()-cpu0)/float64(max(1, n)), "cpu-s/op") }()
			for i := 0; b.Loop(); i++ {
				n++
				s, err := Open(filepath.Join(b.TempDir(), mode+strconv.Itoa(i)+".db"))
				if err != nil {
					b.Fatal(err)
				}
				var defs []string
				if mode == "after" {
					for _, name := range deferrableIndexes {
						var def string
						if err := s.db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&def); err != nil {
							b.Fatalf("index %s: %v", name, err)
						}
						defs = append(defs, def)
						if _, err := s.db.ExecContext(ctx, `DROP INDEX `+name); err != nil {
							b.Fatal(err)
						}
					}
				}
				if _, err := s.Import(ctx, []string{benchRunDir}, ImportOptions{Corpora: []string{benchCorpus}}); err != nil {
					b.Fatal(err)
				}
				for _, def := range defs {
					if _, err := s.db.ExecContext(ctx, def); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// processCPUSeconds is the process's user+system CPU time so far.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
