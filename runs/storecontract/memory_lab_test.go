package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
)

// memLab is one chain's stored lab results: its un-gated final view, and per policy the
// evaluation, blocks and pairs (by replay id).
type memLab struct {
	finalFormation runs.SafeguardFormation
	finalArms      map[string]engine.Outcome
	evals          map[string]runs.StoredSafeguard
	blocks         map[string][]runs.StoredSafeguardBlock
	pairs          map[string][]memPair
}

type memPair struct {
	pair           runs.StoredSafeguardPair
	written, gated string
}

// SaveSafeguards stores a batch all or nothing: the batch is applied to a copy of the
// store's lab rows and replays, which replace the originals only when every step held.
func (m *memStore) SaveSafeguards(ctx context.Context, b runs.SafeguardBatch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b.BatchID == "" {
		return errors.New("safeguards: batch_id is required")
	}
	if _, err := m.chainAt(b.Chain); err != nil {
		return err
	}
	replays, replayLab := slices.Clone(m.replays), slices.Clone(m.replayLab)
	restore := func() { m.replays, m.replayLab = replays, replayLab }
	lab := m.lab[b.Chain]
	if lab == nil {
		lab = &memLab{evals: map[string]runs.StoredSafeguard{}, blocks: map[string][]runs.StoredSafeguardBlock{}, pairs: map[string][]memPair{}}
	}
	next := &memLab{evals: cloneMap(lab.evals), blocks: cloneMap(lab.blocks), pairs: cloneMap(lab.pairs)}
	for _, p := range b.Policies {
		m.dropReplays(func(key runs.ChainKey, policy *string) bool {
			return key == b.Chain && policy != nil && *policy == p.PolicyID
		})
		delete(next.evals, p.PolicyID)
		delete(next.blocks, p.PolicyID)
		delete(next.pairs, p.PolicyID)
	}
	if err := m.storeBatch(b, next); err != nil {
		restore()
		return err
	}
	used := map[string]bool{}
	for _, ps := range next.pairs {
		for _, p := range ps {
			used[p.written] = true
		}
	}
	m.dropReplays(func(key runs.ChainKey, policy *string) bool { return key == b.Chain && policy != nil && *policy == "" }, used)
	next.finalFormation, next.finalArms = b.FinalFormation, b.FinalArms
	if next.finalArms == nil {
		next.finalArms = map[string]engine.Outcome{}
	}
	m.lab[b.Chain] = next
	return nil
}

// storeBatch adds a batch's arms and its policies' rows to next.
func (m *memStore) storeBatch(b runs.SafeguardBatch, next *memLab) error {
	created := b.CreatedAt.UTC().Format(time.RFC3339Nano)
	ungated := ""
	for _, a := range b.Baseline {
		a.Chain = b.Chain
		if err := m.insertReplay(a, &ungated); err != nil {
			return err
		}
	}
	for _, p := range b.Policies {
		policy := p.PolicyID
		for _, a := range p.Arms {
			a.Chain = b.Chain
			if err := m.insertReplay(a, &policy); err != nil {
				return err
			}
		}
		for _, bl := range p.Blocks {
			sb := runs.StoredSafeguardBlock{BlockIndex: bl.BlockIndex, MemoryID: bl.MemoryID, WrittenHash: bl.WrittenHash, WrittenFormation: bl.WrittenFormation,
				NotApplicable: bl.NotApplicable, GatedFormation: bl.GatedFormation, Records: slices.Clone(bl.Records)}
			if sb.Records == nil {
				sb.Records = []engine.RecordDecision{}
			}
			if bl.NotApplicable == "" {
				text, err := pyjson.CanonicalJSON(bl.GatedPayload)
				if err != nil {
					return fmt.Errorf("safeguards: policy %s block %d: gated payload: %w", p.PolicyID, bl.BlockIndex, err)
				}
				if s, ok := bl.GatedPayload.(string); ok {
					text = s
				}
				sb.GatedPayload, sb.GatedHash = text, bl.GatedHash
			}
			next.blocks[policy] = append(next.blocks[policy], sb)
		}
		for _, pr := range p.Pairs {
			next.pairs[policy] = append(next.pairs[policy], memPair{written: pr.WrittenReplayID, gated: pr.GatedReplayID,
				pair: runs.StoredSafeguardPair{BlockIndex: pr.BlockIndex, ProbeID: pr.ProbeID, RequestAuthorized: pr.RequestAuthorized, Effect: pr.Effect, Gate: pr.Gate}})
		}
		next.evals[policy] = runs.StoredSafeguard{ChainKey: b.Chain, PolicyID: p.PolicyID, PolicyVersion: p.PolicyVersion, Description: p.Description, BatchID: b.BatchID,
			Executor: b.ExecutorTarget, ExecutorProvenance: rawJSON(b.Executor), Seed: b.Seed, TrialBlocks: b.TrialBlocks, NotApplicable: p.NotApplicable,
			FirstFalseAuthorityBefore: p.FirstFalseAuthorityBefore, FirstFalseAuthorityAfter: p.FirstFalseAuthorityAfter, FormationRemoved: p.FormationRemoved,
			Counts: rawJSON(p.Counts), FinalCounts: rawJSON(p.FinalCounts), Removed: rawJSON(p.Removed), Outcome: p.Outcome, CreatedAt: created}
		e := next.evals[policy]
		if err := decodeInto(p.FinalWritten, &e.FinalWritten); err != nil {
			return err
		}
		if err := decodeInto(p.FinalGated, &e.FinalGated); err != nil {
			return err
		}
		next.evals[policy] = e
	}
	return nil
}

// decodeInto reads a value given as any (replay's) into its stored type, as a JSON column
// read back would.
func decodeInto(v any, into any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// dropReplays removes the arms drop selects, except those keep names.
func (m *memStore) dropReplays(drop func(runs.ChainKey, *string) bool, keep ...map[string]bool) {
	var replays []runs.Replay
	var labs []*string
	for i, r := range m.replays {
		if drop(r.ChainKey, m.replayLab[i]) && (len(keep) == 0 || !keep[0][r.ReplayID]) {
			continue
		}
		replays, labs = append(replays, r), append(labs, m.replayLab[i])
	}
	m.replays, m.replayLab = replays, labs
}

func (m *memStore) SafeguardRun(ctx context.Context, runID string) ([]runs.StoredSafeguardChain, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows, err := m.selected(runs.ChainFilter{RunID: runID})
	if err != nil {
		return nil, err
	}
	out := []runs.StoredSafeguardChain{}
	for _, c := range rows {
		lab := m.lab[c.Key]
		if lab == nil {
			continue
		}
		sc := runs.StoredSafeguardChain{ChainKey: c.Key, CaseID: c.CaseID, Condition: c.ConditionID, WriterTarget: c.Writer, WriterRunID: c.WriterRunID,
			FinalFormation: lab.finalFormation, FinalArms: lab.finalArms}
		for _, e := range sortedEvals(lab) {
			sc.Outcomes = append(sc.Outcomes, e.Outcome)
		}
		out = append(out, sc)
	}
	return out, nil
}

func sortedEvals(lab *memLab) []runs.StoredSafeguard {
	var out []runs.StoredSafeguard
	for _, e := range lab.evals {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b runs.StoredSafeguard) int {
		if a.PolicyID < b.PolicyID {
			return -1
		}
		if a.PolicyID > b.PolicyID {
			return 1
		}
		return 0
	})
	return out
}

func (m *memStore) SafeguardsForChain(ctx context.Context, key runs.ChainKey) ([]runs.StoredSafeguard, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if lab := m.lab[key]; lab != nil {
		return sortedEvals(lab), nil
	}
	return nil, nil
}

func (m *memStore) SafeguardBlocks(ctx context.Context, key runs.ChainKey, policyID string) ([]runs.StoredSafeguardBlock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if lab := m.lab[key]; lab != nil {
		out := slices.Clone(lab.blocks[policyID])
		slices.SortStableFunc(out, func(a, b runs.StoredSafeguardBlock) int { return a.BlockIndex - b.BlockIndex })
		return out, nil
	}
	return nil, nil
}

func (m *memStore) SafeguardPairs(ctx context.Context, key runs.ChainKey, policyID string) ([]runs.StoredSafeguardPair, error) {
	m.mu.Lock()
	lab := m.lab[key]
	m.mu.Unlock()
	if lab == nil {
		return []runs.StoredSafeguardPair{}, nil
	}
	out := []runs.StoredSafeguardPair{}
	for _, l := range lab.pairs[policyID] {
		ids := []string{l.written}
		if l.gated != "" {
			ids = append(ids, l.gated)
		}
		rs, err := m.ReplaysByID(context.Background(), ids)
		if err != nil {
			return nil, err
		}
		p := l.pair
		p.Written = rs[0]
		if len(rs) > 1 {
			p.Gated = &rs[1]
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b runs.StoredSafeguardPair) int {
		if a.BlockIndex != b.BlockIndex {
			return a.BlockIndex - b.BlockIndex
		}
		if a.ProbeID < b.ProbeID {
			return -1
		}
		if a.ProbeID > b.ProbeID {
			return 1
		}
		return 0
	})
	return out, nil
}
