package workbench_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
)

// TestAudienceLabStoredRoundTrip: the audience lab's result is stored in the workspace and read
// back as computed (rows, identity table, every chain's contexts); asking again reads it back
// instead of recomputing, Recompute evaluates anew and replaces it whole, and a run without a
// sidecar stays not applicable.
func TestAudienceLabStoredRoundTrip(t *testing.T) {
	ctx := context.Background()
	store, runID, _ := scriptedWorkspace(t, replay.ScriptedRun{Domain: "procurement", Corpus: replay.BuiltinMultipartyCorpus, Conditions: "one_shot_typed,incremental_text",
		Seed: 20260821, Version: "test", Concurrency: 2})
	models := replay.Models{Config: &replay.Config{}, Retry: replay.DefaultRetryPolicy()}
	if _, ok, err := workbench.StoredAudience(ctx, store, runID); err != nil || ok {
		t.Fatalf("before any evaluation: stored=%v, %v", ok, err)
	}
	computed, err := workbench.Audience(ctx, store, models, runID, workbench.AudienceOptions{Executor: "builtin", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if computed.Stored || len(computed.Rows) == 0 {
		t.Fatalf("first evaluation: stored=%v, %d rows", computed.Stored, len(computed.Rows))
	}
	back, ok, err := workbench.StoredAudience(ctx, store, runID)
	if err != nil || !ok {
		t.Fatalf("read back: ok=%v, %v", ok, err)
	}
	if !back.Stored || back.Executor != "builtin" || back.Target != computed.Target || back.Seed != 7 || back.Chains != computed.Chains || back.Sidecar != computed.Sidecar {
		t.Errorf("read back %+v, computed %+v", back, computed)
	}
	if !reflect.DeepEqual(back.Rows, computed.Rows) {
		t.Errorf("rows differ after the round trip:\n%+v\n%+v", back.Rows, computed.Rows)
	}
	if !reflect.DeepEqual(back.Identity(), computed.Identity()) {
		t.Errorf("identity table differs: %+v vs %+v", back.Identity(), computed.Identity())
	}
	again, err := workbench.Audience(ctx, store, models, runID, workbench.AudienceOptions{Executor: "builtin", Seed: 7})
	if err != nil || !again.Stored || again.CreatedAt != back.CreatedAt {
		t.Fatalf("asking again recomputed (stored=%v at %s, first at %s): %v", again.Stored, again.CreatedAt, back.CreatedAt, err)
	}
	// Another seed is another result: computed, and it replaces the stored one.
	other, err := workbench.Audience(ctx, store, models, runID, workbench.AudienceOptions{Executor: "builtin", Seed: 8})
	if err != nil || other.Stored {
		t.Fatalf("another seed: stored=%v, %v", other.Stored, err)
	}
	redone, err := workbench.Audience(ctx, store, models, runID, workbench.AudienceOptions{Executor: "builtin", Seed: 8, Recompute: true})
	if err != nil || redone.Stored {
		t.Fatalf("recompute: stored=%v, %v", redone.Stored, err)
	}

	// Every chain's contexts are stored, and add up to the table's contexts per arm.
	chains, err := store.SafeguardChains(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	perArm := map[string]int{}
	for _, ch := range chains {
		cs, err := workbench.ChainAudienceContexts(ctx, store, ch.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Condition != ch.ConditionID || c.CaseID != ch.CaseID {
				t.Fatalf("chain %s/%s holds a context of %s/%s", ch.CaseID, ch.ConditionID, c.CaseID, c.Condition)
			}
			if len(c.Viewers.Principals) == 0 && c.Viewers.Unresolved == "" {
				t.Errorf("context %s/%s/%s stored without its viewers", c.Arm, c.ProbeID, c.RequestID)
			}
			perArm[c.Arm+"/"+c.Condition]++
		}
	}
	for _, r := range redone.Rows {
		if got := perArm[r.Arm+"/"+r.Condition]; got != r.Exposure.Contexts+r.NotEstimable {
			t.Errorf("%s/%s: %d contexts stored, the table counts %d", r.Arm, r.Condition, got, r.Exposure.Contexts+r.NotEstimable)
		}
	}
}

// TestAudienceLabNotApplicableWithoutSidecar: a run of a corpus without a sidecar has nothing
// stored and nothing to compute.
func TestAudienceLabNotApplicableWithoutSidecar(t *testing.T) {
	ctx := context.Background()
	store, runID, _ := domainRun(t, "procurement", "one_shot_typed")
	if _, _, err := workbench.StoredAudience(ctx, store, runID); err != workbench.ErrNoSidecar {
		t.Fatalf("stored audience of a run without a sidecar: %v", err)
	}
	_, err := workbench.Audience(ctx, store, replay.Models{Config: &replay.Config{}}, runID, workbench.AudienceOptions{Executor: "builtin"})
	if err != workbench.ErrNoSidecar {
		t.Fatalf("audience lab of a run without a sidecar: %v", err)
	}
}

// TestBindSidecarPartOfCorpus: a sidecar binds to chains covering only part of its corpus
// (one chain's case for the chain pane; cases whose chains have no memory are left out of a
// run's evaluation), attaching each case's audience and its truth.
func TestBindSidecarPartOfCorpus(t *testing.T) {
	ctx := context.Background()
	store, runID, _ := scriptedWorkspace(t, replay.ScriptedRun{Domain: "finance", Corpus: replay.BuiltinMultipartyCorpus, Conditions: "one_shot_typed",
		Seed: 20260821, Version: "test", Concurrency: 2})
	chains, _, _, err := workbench.LoadSafeguardRun(ctx, store, runID)
	if err != nil || len(chains) < 2 {
		t.Fatalf("%d chains, %v", len(chains), err)
	}
	source, data, ok, err := store.RunSidecar(ctx, runID)
	if err != nil || !ok {
		t.Fatalf("sidecar: ok=%v, %v", ok, err)
	}
	one := chains[len(chains)-1:]
	truths, err := workbench.BindSidecar(source, data, one)
	if err != nil {
		t.Fatal(err)
	}
	if one[0].Case.Audience == nil || truths[one[0].Case.ID] == nil || len(truths) != 1 {
		t.Fatalf("case %s: audience %v, %d truths", one[0].Case.ID, one[0].Case.Audience, len(truths))
	}
}
