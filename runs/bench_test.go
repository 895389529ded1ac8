package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ealscope/ealscope/domains/procurement"
)

// benchCases is the size of the generated corpus the import benchmarks use
// (EALSCOPE_BENCH_CASES overrides it, e.g. for a quick profile).
func benchCases() int { return envSize("EALSCOPE_BENCH_CASES", 2000) }

// benchConditions are the run's conditions: a typed writer chain and its exact arm by default.
// EALSCOPE_BENCH_CONDITIONS=all measures all eight conditions over 2,000 cases, a 2.3 GB run
// (it takes longer to generate and import; the import streams, so its memory stays small).
func benchConditions() string {
	if c := os.Getenv("EALSCOPE_BENCH_CONDITIONS"); c != "" {
		return c
	}
	return "faithful_typed,incremental_typed"
}

var (
	benchOnce    sync.Once
	benchTmp     string
	benchRunDir  string
	benchCorpus  string
	benchDB      string
	benchRunID   string
	benchErr     error
	benchRunSize int64
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
	os.Exit(code)
}

// benchFixture generates 2,000 cases, runs the scripted pipeline over them (all eight
// conditions, built-in executor) and imports the run once into a workspace for the query
// benchmarks. Built once per process.
func benchFixture(b *testing.B) {
	b.Helper()
	benchOnce.Do(func() {
		benchTmp, benchErr = os.MkdirTemp("", "ealscope-bench-")
		if benchErr != nil {
			return
		}
		data, err := procurement.GenerateJSONL(benchCases(), 7)
		if err != nil {
			benchErr = err
			return
		}
		benchCorpus = filepath.Join(benchTmp, "generated.jsonl")
		if benchErr = os.WriteFile(benchCorpus, data, 0o644); benchErr != nil {
			return
		}
		benchRunDir = filepath.Join(benchTmp, "run")
		scriptedRun(b, benchRunDir, benchCorpus, nil, benchConditions())
		benchRunSize = TreeBytes(benchRunDir)
		benchDB = filepath.Join(benchTmp, "workspace.db")
		s, err := Open(benchDB)
		if err != nil {
			benchErr = err
			return
		}
		defer s.Close()
		rep, err := s.Import(context.Background(), []string{benchRunDir}, ImportOptions{Corpora: []string{benchCorpus}})
		if err != nil {
			benchErr = err
			return
		}
		benchRunID = rep.Results[1].RunID
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

// BenchmarkImportScriptedRun imports the scripted run over 2,000 generated cases (with its
// corpus) into a fresh workspace per iteration: rows/s counts every row written (raw and
// derived), MB/s the run directory's bytes, peak-heap-MB the largest heap in use.
func BenchmarkImportScriptedRun(b *testing.B) {
	benchFixture(b)
	ctx := context.Background()
	var rows int
	var peak uint64
	var elapsed time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db := filepath.Join(benchTmp, fmt.Sprintf("import-%d.db", i))
		s := mustOpen(b, db)
		runtime.GC()
		stop := make(chan struct{})
		peakc := SampleHeapPeak(stop, 5*time.Millisecond)
		b.StartTimer()
		start := time.Now()
		rep, err := s.Import(ctx, []string{benchRunDir}, ImportOptions{Corpora: []string{benchCorpus}})
		elapsed += time.Since(start)
		b.StopTimer()
		close(stop)
		peak = max(peak, <-peakc)
		if err != nil {
			b.Fatal(err)
		}
		rows = 0
		for _, r := range rep.Results {
			for _, n := range r.Rows {
				rows += n
			}
		}
		s.Close()
		os.Remove(db)
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		b.StartTimer()
	}
	per := elapsed.Seconds() / float64(b.N)
	b.ReportMetric(float64(rows)/per, "rows/s")
	b.ReportMetric(float64(benchRunSize)/1e6/per, "MB/s")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(rows), "rows")
}

// BenchmarkQueries times each query the TUI makes, on the imported 2,000-case run.
func BenchmarkQueries(b *testing.B) {
	benchFixture(b)
	ctx := context.Background()
	s := mustOpen(b, benchDB)
	defer s.Close()
	total, err := s.ChainCount(ctx, ChainFilter{RunID: benchRunID})
	if err != nil {
		b.Fatal(err)
	}
	forming, err := s.Chains(ctx, ChainFilter{RunID: benchRunID, Forming: true, Sort: SortByFirstFalseAuthority, Limit: 1, Offset: 500})
	if err != nil || len(forming) == 0 {
		b.Fatalf("no forming chain: %v", err)
	}
	key := forming[0].Key
	k := *forming[0].FirstFalseAuthorityBlock
	h, err := s.Chain(ctx, key)
	if err != nil {
		b.Fatal(err)
	}
	queries := []struct {
		name string
		fn   func() error
	}{
		{"Runs", func() error { _, err := s.Runs(ctx); return err }},
		{"Chains/page50", func() error {
			_, err := s.Chains(ctx, ChainFilter{RunID: benchRunID, Limit: 50, Offset: total / 2})
			return err
		}},
		{"Chains/forming-by-block", func() error {
			_, err := s.Chains(ctx, ChainFilter{RunID: benchRunID, Forming: true, Sort: SortByFirstFalseAuthority, Limit: 50})
			return err
		}},
		{"Chains/all", func() error { _, err := s.Chains(ctx, ChainFilter{RunID: benchRunID}); return err }},
		{"ChainCount/memory-induced", func() error {
			_, err := s.ChainCount(ctx, ChainFilter{RunID: benchRunID, MemoryInduced: true})
			return err
		}},
		{"Chain", func() error { _, err := s.Chain(ctx, key); return err }},
		{"ChainBlocks", func() error { _, err := s.ChainBlocks(ctx, key); return err }},
		{"BlockTurns", func() error {
			_, err := s.BlockTurns(ctx, h.CaseKey, k, &MemoryRef{RunID: benchRunID, MemoryID: h.FinalMemoryID})
			return err
		}},
		{"MemoryAt", func() error { _, err := s.MemoryAt(ctx, key, k); return err }},
		{"ProbesAt", func() error { _, err := s.ProbesAt(ctx, key, k); return err }},
		{"Search", func() error { _, err := s.Search(ctx, "exception approved", 50); return err }},
		{"Summary/run", func() error { _, err := s.Summary(ctx, benchRunID); return err }},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if err := q.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
