package workbench_test

import (
	"context"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ealscope/ealscope/replay/workbench"
)

// BenchmarkDiagnoseRun is cause attribution for every false-authorization failure of a
// built-in run: the benchmark workspace (benchWorkspace: N = $EALSCOPE_BENCH_CASES or 2,000
// generated procurement cases; not timed). Timed: "rules" is
// `ealscope diagnose --run` (one EAL-Bench row per failure, rules only); "ablate" also removes
// each of the first three ranked turns of every chain's first-false-authority failures and
// re-runs the scripted writer, as `ealscope why --ablate` does. The figures are in
// docs/BENCHMARKS.md.
//
//	go test ./replay/workbench -run '^$' -bench DiagnoseRun -benchtime 1x -timeout 60m
func BenchmarkDiagnoseRun(b *testing.B) {
	ctx := context.Background()
	store, runID, _ := benchWorkspace(b, 2000)
	b.Run("rules", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0 := cpuTime()
			start := time.Now()
			rep, err := workbench.DiagnoseRun(ctx, store, runID, nil, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			elapsed := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(rep.Chains), "chains")
			b.ReportMetric(float64(rep.Rows), "failures")
			b.ReportMetric(elapsed.Seconds(), "wall-s")
			b.ReportMetric(1000*elapsed.Seconds()/float64(max(rep.Rows, 1)), "ms/failure")
			b.ReportMetric(1000*(cpuTime()-cpu0).Seconds()/float64(max(rep.Rows, 1)), "cpu-ms/failure")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(max(rep.Rows, 1))/(1<<10), "alloc-KiB/failure")
			b.ReportMetric(float64(after.HeapSys)/(1<<20), "heapsys-MiB")
		}
	})
	b.Run("ablate", func(b *testing.B) {
		chains, err := store.SafeguardChains(ctx, runID)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			cpu0 := cpuTime()
			start := time.Now()
			failures, stops := 0, 0
			for _, row := range chains {
				if row.FirstFalseAuthorityBlock == nil {
					continue
				}
				wc, err := workbench.LoadWhyChain(ctx, store, row.Key)
				if err != nil {
					b.Fatal(err)
				}
				block := *row.FirstFalseAuthorityBlock
				for _, probe := range wc.FormedAt(block) {
					y, err := wc.Explain(workbench.WhyQuery{Key: row.Key, Block: block, Probe: probe, Ablate: true, AblateTop: 3})
					if err != nil {
						b.Fatal(err)
					}
					failures++
					if y.Support != "rule-based" {
						stops++
					}
				}
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(failures), "failures")
			b.ReportMetric(float64(stops), "confirmed")
			b.ReportMetric(elapsed.Seconds(), "wall-s")
			b.ReportMetric(1000*elapsed.Seconds()/float64(max(failures, 1)), "ms/failure")
			b.ReportMetric(1000*(cpuTime()-cpu0).Seconds()/float64(max(failures, 1)), "cpu-ms/failure")
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
	})
}

// cpuTime is the process's user and system CPU time: on a shared machine the wall clock
// also counts other processes' turns.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
