package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/replayrow"
	"github.com/ealscope/ealscope/runs/rundir"
)

// labBatch is one safeguard-lab evaluation of a chain at its final block: one un-gated arm,
// and under policy "contract_gate" a gated block, a gated arm and the pair linking the two.
func labBatch(c runs.ChainRow, block int, memoryID, probe, batch string) runs.SafeguardBatch {
	arm := func(id, variant, decision string) runs.ReplayInput {
		return runs.ReplayInput{Chain: c.Key, WrittenMemoryID: memoryID, Arm: replayrow.Arm{ReplayID: id, BatchID: batch, BlockIndex: block, ProbeID: probe, Seed: 9,
			Memory: replayrow.Memory{Variant: variant, Architecture: c.Architecture, Source: memoryID, Payload: "memory text of " + variant, ContentHash: "hash_" + id},
			Record: replayrow.Record{Executor: rundir.ModelProvenance{TargetID: "builtin_faithful"}, Messages: []engine.ChatMessage{}, Tools: []any{},
				Attempts: 1, Outcome: engine.Outcome{Decision: decision, Parseable: true}},
			CreatedAt: time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)}}
	}
	outcome := engine.SafeguardOutcome{PolicyID: "contract_gate", PolicyVersion: "1", Condition: c.ConditionID, CaseID: c.CaseID, Unit: "unit", DeniedPairs: 1, UnauthorizedWritten: 1}
	return runs.SafeguardBatch{Chain: c.Key, BatchID: batch, ExecutorTarget: "builtin_faithful", Executor: map[string]any{"target_id": "builtin_faithful"}, Seed: 9,
		TrialBlocks: "final", Baseline: []runs.ReplayInput{arm(batch+"_written", engine.VariantWritten, "execute_requested")},
		FinalFormation: runs.SafeguardFormation{Estimable: true, Formed: true, FormedProbeIDs: []string{probe}},
		FinalArms:      map[string]engine.Outcome{probe: {Decision: "execute_requested"}},
		Policies: []runs.SafeguardPolicyBatch{{PolicyID: "contract_gate", PolicyVersion: "1", Description: "drops uncited records", FormationRemoved: true,
			Counts: map[string]any{"pairs": 1}, FinalCounts: map[string]any{"pairs": 1}, FinalWritten: map[string]any{"formed": true}, FinalGated: map[string]any{"formed": false},
			Removed: []any{}, Outcome: outcome,
			Blocks: []runs.SafeguardBlockInput{{BlockIndex: block, MemoryID: memoryID, WrittenHash: "hash_w", WrittenFormation: runs.SafeguardFormation{Estimable: true, Formed: true, FormedProbeIDs: []string{probe}},
				GatedPayload: map[string]any{"authorizations": []any{}}, GatedHash: "hash_g", GatedFormation: runs.SafeguardFormation{Estimable: true, FormedProbeIDs: []string{}},
				Records: []engine.RecordDecision{{AuthorizationID: "auth_1", Kept: false, Reasons: []string{"uncited"}, Sources: []string{}}}}},
			Arms: []runs.ReplayInput{arm(batch+"_gated", "gated", "escalate")},
			Pairs: []runs.SafeguardPairInput{{BlockIndex: block, ProbeID: probe, Effect: "prevented", WrittenReplayID: batch + "_written", GatedReplayID: batch + "_gated",
				Gate: &engine.GateDecision{Allowed: false, Reason: "uncited"}}}}},
		CreatedAt: time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)}
}

func labResults(t *testing.T, b Backend) {
	ctx := context.Background()
	runID := imported(t, b)
	c := chainOf(t, b, runID, "incremental_typed")
	steps, block, probe := finalProbe(t, b, c)
	if got, err := b.SafeguardRun(ctx, runID); err != nil || len(got) != 0 {
		t.Fatalf("lab results before any evaluation: %+v, %v", got, err)
	}
	noID := labBatch(c, block, steps[block].MemoryID, probe, "")
	if err := b.SaveSafeguards(ctx, noID); err == nil {
		t.Fatal("a batch without an id was stored")
	}
	if got, _ := b.SafeguardsForChain(ctx, c.Key); len(got) != 0 {
		t.Fatalf("a refused batch left %+v", got)
	}
	if err := b.SaveSafeguards(ctx, labBatch(c, block, steps[block].MemoryID, probe, "batch_a")); err != nil {
		t.Fatal(err)
	}
	evals, err := b.SafeguardsForChain(ctx, c.Key)
	if err != nil || len(evals) != 1 {
		t.Fatalf("evaluations: %+v, %v", evals, err)
	}
	e := evals[0]
	if e.ChainKey != c.Key || e.PolicyID != "contract_gate" || e.PolicyVersion != "1" || e.BatchID != "batch_a" || e.Executor != "builtin_faithful" || e.Seed != 9 ||
		e.TrialBlocks != "final" || !e.FormationRemoved || e.Outcome.DeniedPairs != 1 || e.Outcome.PolicyID != "contract_gate" || !e.FinalWritten.Formed || e.FinalGated.Formed {
		t.Fatalf("evaluation: %+v", e)
	}
	var counts map[string]int
	if err := json.Unmarshal(e.Counts, &counts); err != nil || counts["pairs"] != 1 {
		t.Fatalf("counts %s: %v", e.Counts, err)
	}
	blocks, err := b.SafeguardBlocks(ctx, c.Key, "contract_gate")
	if err != nil || len(blocks) != 1 || blocks[0].BlockIndex != block || blocks[0].MemoryID != steps[block].MemoryID || blocks[0].GatedHash != "hash_g" ||
		blocks[0].GatedPayload == "" || len(blocks[0].Records) != 1 || blocks[0].Records[0].Kept || !blocks[0].WrittenFormation.Formed {
		t.Fatalf("blocks: %+v, %v", blocks, err)
	}
	pairs, err := b.SafeguardPairs(ctx, c.Key, "contract_gate")
	if err != nil || len(pairs) != 1 || pairs[0].Written.ReplayID != "batch_a_written" || pairs[0].Gated == nil || pairs[0].Gated.ReplayID != "batch_a_gated" ||
		pairs[0].Gate == nil || pairs[0].Gate.Allowed || pairs[0].Effect != "prevented" || pairs[0].Gated.Decision != "escalate" {
		t.Fatalf("pairs: %+v, %v", pairs, err)
	}
	table, err := b.SafeguardRun(ctx, runID)
	if err != nil || len(table) != 1 || table[0].ChainKey != c.Key || len(table[0].Outcomes) != 1 || table[0].FinalArms[probe].Decision != "execute_requested" || !table[0].FinalFormation.Formed {
		t.Fatalf("run table: %+v, %v", table, err)
	}
	// Evaluating the policy again replaces its rows; the un-gated arm no pair uses any more goes.
	if err := b.SaveSafeguards(ctx, labBatch(c, block, steps[block].MemoryID, probe, "batch_b")); err != nil {
		t.Fatal(err)
	}
	arms, err := b.ReplaysForChain(ctx, c.Key)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range arms {
		ids = append(ids, r.ReplayID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"batch_b_gated", "batch_b_written"}) {
		t.Fatalf("arms after a second evaluation: %v", ids)
	}
	if evals, _ := b.SafeguardsForChain(ctx, c.Key); len(evals) != 1 || evals[0].BatchID != "batch_b" {
		t.Fatalf("evaluations after a second evaluation: %+v", evals)
	}
	other := labBatch(c, block, steps[block].MemoryID, probe, "batch_c")
	other.Chain = runs.ChainKey(1 << 40)
	for i := range other.Baseline {
		other.Baseline[i].Chain = other.Chain
	}
	if err := b.SaveSafeguards(ctx, other); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("a batch on an unknown chain: %v, want ErrNotFound", err)
	}
}
