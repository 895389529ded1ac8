package tui

// The lab over a workspace: replay's lab (replay.EvaluateChain, replay.EvaluateRun) run on the
// chains the workspace holds, with every policy of engine/safeguards, its results stored
// through runs (the same rows `ealscope safeguards` writes), and read back for the pane and
// the run screen, so what is shown is what is stored and reopening never re-runs anything.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// labSettings are the settings of every arm the lab runs: every registered policy on the
// named executor at the analysis seed, re-running the given blocks.
func labSettings(executor string, blocks replay.TrialBlocks) workbench.LabSettings {
	return workbench.LabSettings{Policies: safeguards.All(), Executor: executor, Seed: workbench.AnalysisSeed, Blocks: blocks}
}

// workspaceLab implements SafeguardLab over a workspace: workbench's lab, read back for the
// screens.
type workspaceLab struct {
	lab workbench.Lab
}

// newWorkspaceLab is the lab over store, or nil when store holds no lab results.
func newWorkspaceLab(store Store, models *replay.Config) SafeguardLab {
	s, ok := store.(workbench.LabStore)
	if !ok || s == nil {
		return nil
	}
	return &workspaceLab{lab: workbench.Lab{Store: s, Models: replay.Models{Config: models, Retry: replay.DefaultRetryPolicy()}}}
}

// policyRank orders stored policies as the registry lists them (unknown ids after, by id).
func policyRank(id string) int {
	for i, known := range safeguards.IDs() {
		if known == id {
			return i
		}
	}
	return 1 << 20
}

func (l *workspaceLab) StoredChain(ctx context.Context, key ChainKey) (SafeguardChain, bool, error) {
	store := l.lab.Store
	evals, err := store.SafeguardsForChain(ctx, key.ID)
	if err != nil {
		return SafeguardChain{}, false, err
	}
	sort.SliceStable(evals, func(i, j int) bool { return policyRank(evals[i].PolicyID) < policyRank(evals[j].PolicyID) })
	ch, err := workbench.LoadSafeguardChain(ctx, store, key.ID)
	if err != nil {
		return SafeguardChain{}, false, err
	}
	audience, err := l.storedChainAudience(ctx, key, ch)
	if err != nil || (len(evals) == 0 && audience == nil) {
		return SafeguardChain{}, false, err
	}
	out := SafeguardChain{Baseline: labBaseline}
	if len(evals) > 0 {
		out.Executor, out.TrialBlocks = evals[0].Executor, evals[0].TrialBlocks
	}

	for _, e := range evals {
		blocks, err := store.SafeguardBlocks(ctx, key.ID, e.PolicyID)
		if err != nil {
			return SafeguardChain{}, false, err
		}
		pairs, err := store.SafeguardPairs(ctx, key.ID, e.PolicyID)
		if err != nil {
			return SafeguardChain{}, false, err
		}
		p, err := presentStoredPolicy(ch, e, blocks, pairs)
		if err != nil {
			return SafeguardChain{}, false, err
		}
		out.Policies = append(out.Policies, p)
	}
	if audience != nil {
		// The run's audience lab, measured per request (the other policies are evaluated
		// per chain with r).
		out.Policies = append(out.Policies, *audience)
	}
	return out, true, nil
}

// EvaluateChain evaluates the chain at every block that has a memory (the pane steps
// through blocks), stores it, and reads it back. A cancelled evaluation stores nothing.
func (l *workspaceLab) EvaluateChain(ctx context.Context, key ChainKey, executor string, progress LabProgress) (SafeguardChain, error) {
	ev, err := l.lab.EvaluateChain(ctx, key.ID, labSettings(executor, replay.TrialsAtEveryBlock), func(done, total int) { progress("trials", done, total) })
	switch {
	case errors.Is(err, workbench.ErrNoMemory):
		return SafeguardChain{}, fmt.Errorf("this chain has no memory at any block: nothing to gate")
	case err != nil:
		return SafeguardChain{}, err
	case ev.Cancelled:
		return SafeguardChain{}, context.Canceled
	}
	out, _, err := l.StoredChain(context.WithoutCancel(ctx), key)
	return out, err
}

// labTableNote says how the run table's intervals are drawn (engine/bootstrap.go).
var labTableNote = fmt.Sprintf("at each chain's final block; paired bootstrap of the difference with chains (case, writer run) resampled, seed %d, %d draws",
	engine.BootstrapSeed, engine.BootstrapDraws)

func (l *workspaceLab) StoredRun(ctx context.Context, runID string) (SafeguardTable, bool, error) {
	rows, sums, err := workbench.StoredSafeguardTable(ctx, l.lab.Store, runID)
	if err != nil || len(sums) == 0 {
		return SafeguardTable{}, false, err
	}
	planned, err := l.lab.Store.SafeguardChains(ctx, runID)
	if err != nil {
		return SafeguardTable{}, false, err
	}
	t := presentSafeguardTable(rows)
	t.RunID, t.Chains, t.Planned, t.Note = runID, len(sums), len(planned), labTableNote
	return t, true, nil
}

// EvaluateRun evaluates every writer chain of the run with a memory at the final block,
// storing each chain as it finishes (a cancelled batch keeps those), and reads the table
// back from the store.
func (l *workspaceLab) EvaluateRun(ctx context.Context, runID, executor string, progress LabProgress) (SafeguardTable, error) {
	// One chain at a time, so the screen shows progress and esc stops it between chains.
	res, err := l.lab.EvaluateRun(ctx, runID, labSettings(executor, replay.TrialsAtFinalBlock), workbench.RunProgress{
		Reading:   func(done, total int) { progress("reading chains", done, total) },
		Evaluated: func(done, total int) { progress("chains", done, total) }})
	switch {
	case errors.Is(err, workbench.ErrNoMemory):
		return SafeguardTable{}, fmt.Errorf("run %s has no writer chain with a memory: nothing to gate", sanitizeLine(runID))
	case err != nil:
		return SafeguardTable{}, err
	case res.Cancelled:
		return SafeguardTable{}, context.Canceled
	}
	t, _, err := l.StoredRun(context.WithoutCancel(ctx), runID)
	t.Executor = res.Executor
	if res.Skipped > 0 {
		t.Skipped = append(t.Skipped, fmt.Sprintf("%d writer chains have no memory at any block: nothing to gate", res.Skipped))
	}
	return t, err
}

// presentStoredPolicy turns one policy's stored evaluation of a chain into the pane's rows.
func presentStoredPolicy(ch replay.SafeguardChain, e runs.StoredSafeguard, blocks []runs.StoredSafeguardBlock, pairs []runs.StoredSafeguardPair) (SafeguardPolicy, error) {
	var counts replay.PolicyCounts
	if err := json.Unmarshal(e.Counts, &counts); err != nil {
		return SafeguardPolicy{}, fmt.Errorf("safeguard %s: counts: %w", sanitizeLine(e.PolicyID), err)
	}
	var removed []replay.RemovedRecord
	if err := json.Unmarshal(e.Removed, &removed); err != nil {
		return SafeguardPolicy{}, fmt.Errorf("safeguard %s: removed records: %w", sanitizeLine(e.PolicyID), err)
	}
	p := SafeguardPolicy{ID: e.PolicyID, Version: e.PolicyVersion, Description: e.Description, NotApplicable: e.NotApplicable,
		FirstFalseBefore: blockOrNone(e.FirstFalseAuthorityBefore), FirstFalseAfter: blockOrNone(e.FirstFalseAuthorityAfter),
		Prevented: counts.Prevented, Refused: counts.Refused, NotEstimable: counts.NotEstimable, Trials: counts.Pairs, RecordsRemoved: len(removed),
		FinalOnly: e.TrialBlocks == "final"}
	written := map[int]replay.SafeguardVersion{}
	for _, v := range ch.Versions {
		written[v.Block] = v
	}
	for _, b := range blocks {
		sb := SafeguardBlock{Index: b.BlockIndex, NotApplicable: b.NotApplicable,
			FormsBefore: b.WrittenFormation.Estimable && b.WrittenFormation.Formed, FormsAfter: b.GatedFormation.Estimable && b.GatedFormation.Formed}
		v := written[b.BlockIndex]
		sb.Written = labMemory(v.MemoryID, b.BlockIndex, ch.Architecture, v.Payload, b.WrittenHash)
		if b.NotApplicable == "" {
			gated, err := gatedPayload(ch.Architecture, b.GatedPayload)
			if err != nil {
				return p, fmt.Errorf("safeguard %s block %d: gated payload: %w", sanitizeLine(e.PolicyID), b.BlockIndex, err)
			}
			sb.Gated = labMemory("gated:"+e.PolicyID, b.BlockIndex, ch.Architecture, gated, b.GatedHash)
		}
		for _, r := range b.Records {
			sb.Records = append(sb.Records, SafeguardRecord{AuthorizationID: r.AuthorizationID, Kept: r.Kept, Reasons: r.Reasons,
				Sources: sourceTurns(ch.Domain, ch.Case, r.Sources), State: r.State, Trust: r.Trust,
				BoundSources: sourceTurns(ch.Domain, ch.Case, r.BoundSources)})
		}
		for _, pair := range pairs {
			if pair.BlockIndex == b.BlockIndex {
				sb.Probes = append(sb.Probes, storedProbe(pair))
			}
		}
		if len(sb.Probes) == 0 && e.TrialBlocks == "final" {
			sb.NoTrials = "evaluated at the final block only: r re-evaluates at every block"
		}
		p.Blocks = append(p.Blocks, sb)
	}
	return p, nil
}

// gatedPayload parses a stored gated memory: typed memory is canonical JSON, free text as is.
func gatedPayload(arch, stored string) (any, error) {
	if stored == "" {
		return nil, nil
	}
	if arch != engine.ArchTyped {
		return stored, nil
	}
	m := presentMemory("", 0, arch, stored, "")
	if m.Payload == nil {
		return nil, fmt.Errorf("not canonical JSON")
	}
	return m.Payload, nil
}

// storedProbe is one stored pair of arms as the pane shows it.
func storedProbe(pair runs.StoredSafeguardPair) SafeguardProbe {
	sp := SafeguardProbe{ProbeID: pair.ProbeID, Authorized: pair.RequestAuthorized, Effect: presentEffect(pair.Effect),
		Before: storedTrial(&pair.Written, nil), After: storedTrial(pair.Gated, pair.Gate)}
	sp.FormsBefore = storedFormed(&pair.Written)
	if pair.Gated != nil {
		sp.FormsAfter = storedFormed(pair.Gated)
	}
	return sp
}

func storedFormed(r *runs.Replay) *bool {
	if !r.FormationEstimable {
		return nil
	}
	f := r.MemoryFormed
	return &f
}

func storedTrial(r *runs.Replay, gate *engine.GateDecision) SafeguardTrial {
	if r == nil {
		return SafeguardTrial{Missing: true}
	}
	t := SafeguardTrial{Decision: r.Decision, Compliant: r.Compliant, Unauthorized: r.UnauthorizedActionTaken}
	if r.ProviderError != nil {
		t.ProviderError = *r.ProviderError
	}
	if r.RawToolName != nil {
		t.ToolName = *r.RawToolName
		if r.RawToolArguments != nil {
			if b, err := json.Marshal(r.RawToolArguments); err == nil {
				t.ToolArgs = jsonCell(b)
			}
		}
	}
	if gate != nil && !gate.Allowed {
		t.GateReason = gate.Reason
	}
	return t
}
