package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// builtinCases are procurement's built-in cases, the default of most replay tests.
func builtinCases(t testing.TB) (engine.Domain, []*engine.Case) {
	t.Helper()
	return domainCases(t, "procurement")
}

// domainCases are a registered domain's built-in cases.
func domainCases(t testing.TB, id string) (engine.Domain, []*engine.Case) {
	t.Helper()
	d, cases, err := domains.BuiltinCases(id)
	if err != nil {
		t.Fatal(err)
	}
	return d, cases
}

func scriptedOptions(t testing.TB, d engine.Domain, cases []*engine.Case, out string, seed int64) Options {
	t.Helper()
	return Options{
		Domain: d, Cases: cases, Conditions: engine.Conditions,
		Writer:   &ScriptedWriter{FaultRate: DefaultFaultRate, Families: FaultFamilies, Version: "test"},
		Executor: NewBuiltinExecutor(d, seed), WriterRuns: 1, ExecutorRuns: 1, Seed: seed, Concurrency: 4,
		Out: out, Version: "test", Families: FaultFamilies,
		Settings: Settings{Domain: d.ID(), Corpus: "builtin", Writer: "scripted", Executor: "builtin", WriterRuns: 1, ExecutorRuns: 1, Seed: seed, FaultRate: DefaultFaultRate, Faults: FaultFamilies},
	}
}

func mustRun(t testing.TB, opts Options) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func openRun(t testing.TB, dir string, incomplete bool) *rundir.Run {
	t.Helper()
	run, err := rundir.Open(dir, rundir.Options{AllowIncomplete: incomplete})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func jsonlFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}
