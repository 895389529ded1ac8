package runs

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
)

// rerunWorkspace imports a scripted run of the first built-in case and returns a typed writer
// chain that forms false authority at its final block.
func rerunWorkspace(t *testing.T) (*Store, string, ChainRow) {
	t.Helper()
	ctx := context.Background()
	d, err := domains.Get("procurement")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	var chain ChainRow
	for _, c := range cases[:4] {
		dir := filepath.Join(t.TempDir(), "run")
		rerunScriptedRun(t, dir, c.ID)
		s, path := openStore(t)
		runID := importOne(t, s, dir).RunID
		for _, cond := range []string{"incremental_typed", "one_shot_typed"} {
			rows, err := s.Chains(ctx, ChainFilter{RunID: runID, Condition: cond})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.FormedFinal != nil && *r.FormedFinal {
					chain = r
					return s, path, chain
				}
			}
		}
	}
	t.Skip("no built-in case yields a typed chain forming at its final block")
	return nil, "", chain
}

// rerunScriptedRun makes a run of one built-in case with ealscope's own pipeline (scripted
// writer with its seeded faults, built-in executor, every condition). It is this file's own
// helper so that the fixture does not move when other tests' helpers do.
func rerunScriptedRun(t *testing.T, dir, caseID string) {
	t.Helper()
	faults, err := replay.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	st := replay.Settings{Domain: "procurement", Corpus: replay.BuiltinCorpus, Cases: []string{caseID}, Conditions: []string{"all"}, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: 20260821, FaultRate: 0.35, Faults: faults}
	opts, err := replay.Prepare(st, &replay.Config{Models: map[string]replay.Model{}}, replay.DefaultRetryPolicy(), "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Out, opts.Concurrency = dir, 4
	if _, err := replay.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
}

// TestFindChainAndFinalMemories: the lookups the headless command makes.
func TestFindChainAndFinalMemories(t *testing.T) {
	ctx := context.Background()
	s, _, chain := rerunWorkspace(t)
	got, err := s.FindChain(ctx, "", chain.CaseID, chain.ConditionID, nil)
	if err != nil || got.Key != chain.Key {
		t.Fatalf("%v, %+v", err, got)
	}
	if _, err := s.FindChain(ctx, "", chain.CaseID, "no_such_condition", nil); err == nil {
		t.Fatal("missing chain found")
	}
	mems, err := s.FinalMemories(ctx, chain.RunID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range mems {
		if m.Chain.Key == chain.Key {
			found = m.Formed && m.Estimable && len(m.FormedProbes) > 0
		}
		if !writerConditions[m.Chain.ConditionID] {
			t.Fatalf("non-writer chain %s listed", m.Chain.ConditionID)
		}
	}
	if !found {
		t.Fatal("the forming chain is not listed as forming")
	}
}
