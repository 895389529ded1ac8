package runs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/replay"
)

// generatedCorpus writes n generated procurement cases (procurement.GenerateJSONL(n, seed)) to
// dir/generated.jsonl and returns its path and bytes.
func generatedCorpus(t testing.TB, dir string, n int, seed uint64) (string, []byte) {
	t.Helper()
	data, err := procurement.GenerateJSONL(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "generated.jsonl")
	if err := os.WriteFile(corpus, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return corpus, data
}

// scriptedRun produces a run directory with ealscope's own pipeline: the scripted writer with
// its default seeded faults and the built-in memory-faithful executor.
func scriptedRun(t testing.TB, dir string, corpus string, cases []string, conditions string) *replay.Summary {
	t.Helper()
	sum, err := replay.ScriptedRun{Domain: "procurement", Corpus: corpus, Cases: cases, Conditions: conditions, Seed: 20260821,
		Version: "test", Out: dir, Concurrency: 4}.Make(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestImportScriptedRun imports a run made by ealscope's own pipeline and checks that what
// the store derives agrees with what the pipeline reports: every trial re-scores to its stored
// decision, and the typed writer chains forming false authority are the pipeline's.
func TestImportScriptedRun(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "run")
	sum := scriptedRun(t, dir, replay.BuiltinCorpus, nil, "all")
	s, _ := openStore(t)
	r := importOne(t, s, dir)
	if r.Status != StatusImported || r.RescoreDisagreements != 0 || len(r.MissingCorpora) != 0 || len(r.Unknown) != 0 {
		t.Fatalf("%+v", r)
	}
	if r.Rows["trials"] != sum.Trials {
		t.Fatalf("%d trials stored, the run has %d", r.Rows["trials"], sum.Trials)
	}
	typedForming := 0
	for _, cond := range []string{"incremental_typed", "one_shot_typed"} {
		n, err := s.ChainCount(ctx, ChainFilter{RunID: r.RunID, Condition: cond, Forming: true})
		if err != nil {
			t.Fatal(err)
		}
		typedForming += n
	}
	pipelineTyped := 0
	for _, c := range sum.Chains {
		if c.Formed && (c.ConditionID == "incremental_typed" || c.ConditionID == "one_shot_typed") {
			pipelineTyped++
		}
	}
	if typedForming != pipelineTyped || typedForming == 0 {
		t.Fatalf("typed chains forming: store %d, pipeline %d", typedForming, pipelineTyped)
	}
	want := map[[2]string]int{}
	for _, c := range sum.Chains {
		if c.Formed {
			want[[2]string{c.CaseID, c.ConditionID}] = c.FirstBlock
		}
	}
	forming, _ := s.Chains(ctx, ChainFilter{RunID: r.RunID, Forming: true})
	for _, c := range forming {
		if w, ok := want[[2]string{c.CaseID, c.ConditionID}]; !ok || w != *c.FirstFalseAuthorityBlock {
			t.Errorf("chain %s/%s: first false-authority block %d, pipeline %d (%v)", c.CaseID, c.ConditionID, *c.FirstFalseAuthorityBlock, w, ok)
		}
	}
	induced, _ := s.ChainCount(ctx, ChainFilter{RunID: r.RunID, MemoryInduced: true})
	if induced == 0 {
		t.Fatal("no memory-induced failure attributed")
	}
}
