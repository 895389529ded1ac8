package workbench_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// benchWorkspace is the workspace the workbench's benchmarks time their use case on (its
// making is not timed): generated procurement cases (procurement.GenerateJSONL(N, 1), N =
// $EALSCOPE_BENCH_CASES or defaultCases), the scripted writer at its default faults, the four
// writer conditions, seed 20260821, imported with its corpus into a fresh workspace. It
// returns the store, the run's id and N.
func benchWorkspace(b *testing.B, defaultCases int) (*runs.Store, string, int) {
	b.Helper()
	n := defaultCases
	if v, err := strconv.Atoi(os.Getenv("EALSCOPE_BENCH_CASES")); err == nil && v > 0 {
		n = v
	}
	data, err := procurement.GenerateJSONL(n, 1)
	if err != nil {
		b.Fatal(err)
	}
	corpus := filepath.Join(b.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(corpus, data, 0o600); err != nil {
		b.Fatal(err)
	}
	store, runID, _ := scriptedWorkspace(b, replay.ScriptedRun{Domain: "procurement", Corpus: corpus,
		Conditions: "one_shot_text,one_shot_typed,incremental_text,incremental_typed", Seed: 20260821, Version: "bench",
		Concurrency: runtime.GOMAXPROCS(0)}, corpus)
	return store, runID, n
}
