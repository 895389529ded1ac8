package workbench

// The safeguard lab joined to the workspace: a stored chain becomes a replay.SafeguardChain,
// an evaluation becomes the runs.SafeguardBatch that stores it (one transaction per chain),
// and stored results become the run table again. The headless command and the TUI share it.

import (
	"context"
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// ChainRefOf names a stored chain in the lab's batch and replay ids.
func ChainRefOf(h runs.ChainHeader) string { return fmt.Sprintf("%s/%d", h.RunID, h.Key) }

// SafeguardChainFor converts a stored chain: its memory at every block with the stored
// formation verdicts, and the operational context EAL-Bench sent per probe.
func SafeguardChainFor(src runs.SafeguardSource) replay.SafeguardChain {
	ch := replay.SafeguardChain{
		Domain: src.Domain, Case: src.Case, Condition: src.Chain.ConditionID, Architecture: src.Architecture, ChainRef: ChainRefOf(src.Chain),
		WriterTarget: src.Chain.Writer, WriterRunID: src.Chain.WriterRunID, OperationalContext: map[string]string{},
	}
	for _, p := range src.Probes {
		if p.ContextUserMessage != "" {
			if oc := replay.OperationalContextFrom(src.Domain, p.Probe, p.ContextUserMessage); oc != "" {
				ch.OperationalContext[p.Probe.ID] = oc
			}
		}
	}
	for _, v := range src.Versions {
		f := replay.FormationVerdict(v.Formation)
		ch.Versions = append(ch.Versions, replay.SafeguardVersion{Block: v.Block, MemoryID: v.MemoryID, Payload: v.Payload, Formation: &f})
	}
	return ch
}

// LoadSafeguardChain loads one stored chain for the lab.
func LoadSafeguardChain(ctx context.Context, store SafeguardReader, key runs.ChainKey) (replay.SafeguardChain, error) {
	src, err := store.SafeguardSource(ctx, key)
	if err != nil {
		return replay.SafeguardChain{}, err
	}
	return SafeguardChainFor(src), nil
}

// LoadSafeguardRun loads every chain of a run the lab evaluates (runs.SafeguardChains), with
// the chain key of each chain ref. Chains with no memory (a writer that failed everywhere)
// are left out and counted in skipped.
func LoadSafeguardRun(ctx context.Context, store SafeguardReader, runID string) (chains []replay.SafeguardChain, keys map[string]runs.ChainKey, skipped int, err error) {
	return LoadSafeguardRunProgress(ctx, store, runID, nil)
}

// LoadSafeguardRunProgress is LoadSafeguardRun reporting before each chain it reads (done of
// total chains) when progress is set, and stopping between chains once ctx is done: reading
// a run's chains can take longer than the built-in executor's trials.
func LoadSafeguardRunProgress(ctx context.Context, store SafeguardReader, runID string, progress func(done, total int)) (chains []replay.SafeguardChain, keys map[string]runs.ChainKey, skipped int, err error) {
	rows, err := store.SafeguardChains(ctx, runID)
	if err != nil {
		return nil, nil, 0, err
	}
	keys = map[string]runs.ChainKey{}
	for i, r := range rows {
		if progress != nil {
			progress(i, len(rows))
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		ch, err := LoadSafeguardChain(ctx, store, r.Key)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("chain %s/%s writer run %d: %w", r.CaseID, r.ConditionID, r.WriterRunID, err)
		}
		if len(ch.Versions) == 0 {
			skipped++
			continue
		}
		keys[ch.ChainRef] = r.Key
		chains = append(chains, ch)
	}
	return chains, keys, skipped, nil
}

// TrialBlocksName is how a batch's trial blocks are stored.
func TrialBlocksName(b replay.TrialBlocks) string {
	if b == replay.TrialsAtEveryBlock {
		return "every"
	}
	return "final"
}

// SafeguardBatchOf converts an evaluation of the chain `key` to its stored batch.
func SafeguardBatchOf(key runs.ChainKey, ev *replay.ChainEvaluation, blocks replay.TrialBlocks) runs.SafeguardBatch {
	b := runs.SafeguardBatch{
		Chain: key, BatchID: ev.BatchID, ExecutorTarget: ev.Executor.TargetID, Executor: ev.Executor, Seed: ev.Seed, TrialBlocks: TrialBlocksName(blocks),
		FinalFormation: runs.SafeguardFormation(ev.FinalFormation), FinalArms: map[string]engine.Outcome{}, CreatedAt: ev.CreatedAt,
	}
	memByBlock := map[int]string{}
	if len(ev.Policies) > 0 {
		for _, bl := range ev.Policies[0].Blocks {
			memByBlock[bl.BlockIndex] = bl.MemoryID
		}
	}
	for _, a := range ev.Baseline {
		b.Baseline = append(b.Baseline, armInput(key, ev.BatchID, a, currentMemory(memByBlock, a.BlockIndex, a.Memory.Source)))
		if a.BlockIndex == ev.FinalBlock {
			b.FinalArms[a.ProbeID] = a.Outcome
		}
	}
	for _, p := range ev.Policies {
		pb := runs.SafeguardPolicyBatch{
			PolicyID: p.PolicyID, PolicyVersion: p.PolicyVersion, Description: p.Description, NotApplicable: p.NotApplicable,
			FirstFalseAuthorityBefore: p.FirstFalseAuthorityBefore, FirstFalseAuthorityAfter: p.FirstFalseAuthorityAfter, FormationRemoved: p.FormationRemoved,
			Counts: p.Counts, FinalCounts: p.FinalCounts, FinalWritten: p.FinalWritten, FinalGated: p.FinalGated, Removed: p.Removed,
		}
		for _, o := range ev.Outcomes() {
			if o.PolicyID == p.PolicyID {
				pb.Outcome = o
			}
		}
		for _, bl := range p.Blocks {
			pb.Blocks = append(pb.Blocks, runs.SafeguardBlockInput{
				BlockIndex: bl.BlockIndex, MemoryID: bl.MemoryID, WrittenHash: bl.WrittenHash, WrittenFormation: runs.SafeguardFormation(bl.Written),
				NotApplicable: bl.NotApplicable, GatedPayload: bl.GatedPayload, GatedHash: bl.GatedHash, GatedFormation: runs.SafeguardFormation(bl.GatedFormation),
				Records: bl.Records,
			})
		}
		for _, pr := range p.Pairs {
			in := runs.SafeguardPairInput{BlockIndex: pr.BlockIndex, ProbeID: pr.ProbeID, RequestAuthorized: pr.RequestAuthorized, Effect: pr.Effect, WrittenReplayID: pr.Written.ReplayID}
			if pr.Gated != nil {
				in.GatedReplayID, in.Gate = pr.Gated.ReplayID, pr.Gated.Gate
				pb.Arms = append(pb.Arms, armInput(key, ev.BatchID, pr.Gated, currentMemory(memByBlock, pr.BlockIndex, "")))
			}
			pb.Pairs = append(pb.Pairs, in)
		}
		b.Policies = append(b.Policies, pb)
	}
	return b
}

func currentMemory(byBlock map[int]string, block int, fallback string) string {
	if id, ok := byBlock[block]; ok {
		return id
	}
	return fallback
}

func armInput(key runs.ChainKey, batch string, a *replay.SafeguardArm, writtenMemory string) runs.ReplayInput {
	in := runs.ReplayInput{Chain: key, WrittenMemoryID: writtenMemory, Arm: a.Arm}
	in.BatchID = batch
	return in
}

// SaveSafeguards stores each evaluated chain of a run (keys from LoadSafeguardRun).
func SaveSafeguards(store SafeguardSaver, keys map[string]runs.ChainKey, blocks replay.TrialBlocks) func(ctx context.Context, ev *replay.ChainEvaluation) error {
	return func(ctx context.Context, ev *replay.ChainEvaluation) error {
		key, ok := keys[ev.ChainRef]
		if !ok {
			return fmt.Errorf("safeguards: chain %s is not in the workspace", ev.ChainRef)
		}
		return store.SaveSafeguards(ctx, SafeguardBatchOf(key, ev, blocks))
	}
}

// StoredSafeguardTable rebuilds the run table from the stored lab results of a run.
func StoredSafeguardTable(ctx context.Context, store SafeguardResults, runID string) ([]engine.SafeguardRow, []replay.SafeguardChainSummary, error) {
	stored, err := store.SafeguardRun(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	// Rows follow the registry's policy order, as a fresh evaluation of every policy does
	// (the store lists a chain's evaluations by policy id); unknown ids go last, by id.
	order := map[string]int{}
	for i, id := range safeguards.IDs() {
		order[id] = i
	}
	rank := func(id string) int {
		if i, ok := order[id]; ok {
			return i
		}
		return len(order)
	}
	sums := make([]replay.SafeguardChainSummary, 0, len(stored))
	for _, s := range stored {
		outcomes := append([]engine.SafeguardOutcome(nil), s.Outcomes...)
		sort.SliceStable(outcomes, func(i, j int) bool {
			a, b := outcomes[i].PolicyID, outcomes[j].PolicyID
			if rank(a) != rank(b) {
				return rank(a) < rank(b)
			}
			return a < b
		})
		sums = append(sums, replay.SafeguardChainSummary{CaseID: s.CaseID, Condition: s.Condition, WriterTarget: s.WriterTarget, WriterRunID: s.WriterRunID,
			Outcomes: outcomes, FinalFormation: replay.FormationVerdict(s.FinalFormation), FinalArms: s.FinalArms})
	}
	return replay.SafeguardTableOf(sums), sums, nil
}
