package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// builtinCases are procurement's built-in cases, the default of most replay tests.
func builtinCases(t testing.TB) (engine.Domain, []*engine.Case) {
	t.Helper()
	return domainCases(t, "procurement")
}

// checkWriterContexts checks that each writer context of run pairs with its call and hashes
// what the call sent (messages, tools, tool_choice); it returns how many writer contexts
// there are.
func checkWriterContexts(t testing.TB, run *rundir.Run) int {
	t.Helper()
	calls := map[string]map[string]any{}
	for _, r := range run.Files[rundir.Calls] {
		calls[r.Str("call_id")] = r.Tree
	}
	n := 0
	for _, r := range run.Files[rundir.ModelContexts] {
		if r.Str("stage") != "writer" {
			continue
		}
		n++
		req := calls[r.Str("call_id")]["request"].(map[string]any)
		h := pyjson.MustContentHash(map[string]any{"messages": req["messages"], "tools": req["tools"], "tool_choice": req["params"].(map[string]any)["tool_choice"]})
		if h != r.Str("content_hash") {
			t.Errorf("writer context %s hash mismatch", r.Str("context_id"))
		}
	}
	return n
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
