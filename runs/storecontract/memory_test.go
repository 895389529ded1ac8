package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
)

var _ Backend = (*memStore)(nil)

func TestMemoryBackendHonoursTheContract(t *testing.T) {
	Run(t, func(t *testing.T) Backend { return newMemStore() })
}

// TestBackendsDeriveAlike: the in-memory backend derives every chain fact, block step and
// probe formation of the fixture exactly as the SQLite store does.
func TestBackendsDeriveAlike(t *testing.T) {
	ctx := context.Background()
	sq, mem := openSQLite(t), Backend(newMemStore())
	sqRun, memRun := imported(t, sq), imported(t, mem)
	if sqRun != memRun {
		t.Fatalf("run ids %s / %s", sqRun, memRun)
	}
	sameDerivation(t, sq, mem, sqRun)
	// Labels change what is derived: both backends derive the labelled chain alike.
	text := chainOf(t, sq, sqRun, "one_shot_text")
	steps, err := sq.ChainBlocks(ctx, text.Key)
	if err != nil {
		t.Fatal(err)
	}
	memText, err := sq.MemoryAt(ctx, text.Key, len(steps)-1)
	if err != nil {
		t.Fatal(err)
	}
	faithful := chainOf(t, sq, sqRun, "faithful_typed")
	state, err := sq.MemoryAt(ctx, faithful.Key, len(steps)-1)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []Backend{sq, mem} {
		if _, err := b.Adjudicate(ctx, memText.MemoryID, "judge", mustDecode(t, state.Payload), ""); err != nil {
			t.Fatal(err)
		}
	}
	sameDerivation(t, sq, mem, sqRun)
}

func mustDecode(t *testing.T, text string) any {
	t.Helper()
	tree, err := pyjson.DecodeTree([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// sameDerivation compares every chain row, block step and probe formation of a run.
func sameDerivation(t *testing.T, sq, mem Backend, runID string) {
	t.Helper()
	ctx := context.Background()
	a, b := chainsOf(t, sq, runs.ChainFilter{RunID: runID}), chainsOf(t, mem, runs.ChainFilter{RunID: runID})
	if len(a) != len(b) {
		t.Fatalf("%d / %d chains", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Key, y.Key = 0, 0
		if !sameRow(x, y) {
			t.Fatalf("chain %d:\n sqlite %+v\n memory %+v", i, x, y)
		}
		sa, err := sq.ChainBlocks(ctx, a[i].Key)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := mem.ChainBlocks(ctx, b[i].Key)
		if err != nil {
			t.Fatal(err)
		}
		for k := range sa {
			if stepFacts(sa[k]) != stepFacts(sb[k]) {
				t.Fatalf("chain %s block %d:\n sqlite %s\n memory %s", a[i].ConditionID, k, stepFacts(sa[k]), stepFacts(sb[k]))
			}
			pa, err := sq.ProbesAt(ctx, a[i].Key, k)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := mem.ProbesAt(ctx, b[i].Key, k)
			if err != nil {
				t.Fatal(err)
			}
			if probeFacts(pa) != probeFacts(pb) {
				t.Fatalf("chain %s block %d probes:\n sqlite %s\n memory %s", a[i].ConditionID, k, probeFacts(pa), probeFacts(pb))
			}
		}
	}
}

// stepFacts is what a step derives (events and faults aside: the memory backend keeps no
// ledger events or faults).
func stepFacts(s runs.BlockStep) string {
	return fmt.Sprint(s.BlockIndex, s.Title, s.EndedAt, s.MemoryID, s.UpdateStatus, s.Badge, deref(s.Exact), s.ExactFields, s.OvergrantFields, s.UndergrantFields,
		deref(s.FormsFalseAuthority), s.FormedProbeIDs, s.FirstFalseAuthority, s.ScoredFrom, s.UnscoredReason)
}

func probeFacts(views []runs.ProbeView) string {
	var b strings.Builder
	for _, v := range views {
		fmt.Fprint(&b, v.ProbeID, v.PairID, v.AuthorizedNow, v.AuthorizedFinal, deref(v.MemoryAuthorized), deref(v.Formed), len(v.Trials), ";")
	}
	return b.String()
}

func (m *memStore) Runs(ctx context.Context) ([]runs.RunSummary, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []runs.RunSummary{}
	for _, r := range m.runs {
		out = append(out, r.summary)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID < out[j].RunID })
	return out, nil
}

func (m *memStore) Run(ctx context.Context, id string) (runs.RunSummary, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.runOf(id)
	if err != nil {
		return runs.RunSummary{}, err
	}
	return r.summary, nil
}

// selected is the chains a filter keeps, in the filter's order, before paging.
func (m *memStore) selected(f runs.ChainFilter) ([]runs.ChainRow, error) {
	if _, err := m.runOf(f.RunID); err != nil {
		return nil, err
	}
	var out []runs.ChainRow
	for _, ch := range m.chains {
		r := ch.row
		switch {
		case r.RunID != f.RunID, f.Condition != "" && r.ConditionID != f.Condition, f.CaseID != "" && r.CaseID != f.CaseID,
			f.FormedAt != nil && (r.FirstFalseAuthorityBlock == nil || *r.FirstFalseAuthorityBlock != *f.FormedAt),
			f.Forming && r.FirstFalseAuthorityBlock == nil, f.Unauthorized && r.UnauthorizedActions == 0,
			f.MemoryInduced && r.AttributedMemoryInduced == 0, f.NeedsAnnotation && !r.NeedsAnnotation:
			continue
		}
		out = append(out, r)
	}
	byKey := func(x, y runs.ChainRow) int {
		return strings.Compare(fmt.Sprintf("%s\x00%s\x00%s\x00%020d", x.CaseID, x.ConditionID, x.Writer, x.WriterRunID),
			fmt.Sprintf("%s\x00%s\x00%s\x00%020d", y.CaseID, y.ConditionID, y.Writer, y.WriterRunID))
	}
	sign := 1
	if f.Desc {
		sign = -1
	}
	slices.SortStableFunc(out, func(x, y runs.ChainRow) int {
		var c int
		switch f.Sort {
		case runs.SortByFirstFalseAuthority:
			xa, ya := x.FirstFalseAuthorityBlock, y.FirstFalseAuthorityBlock
			switch {
			case xa == nil && ya == nil:
			case xa == nil:
				return 1
			case ya == nil:
				return -1
			default:
				c = sign * (*xa - *ya)
			}
		case runs.SortByUnauthorized:
			c = sign * (x.UnauthorizedActions - y.UnauthorizedActions)
		case runs.SortByAttributed:
			c = sign * (x.AttributedMemoryInduced - y.AttributedMemoryInduced)
		default:
			return sign * byKey(x, y)
		}
		if c != 0 {
			return c
		}
		return byKey(x, y)
	})
	return out, nil
}

func (m *memStore) Chains(ctx context.Context, f runs.ChainFilter) ([]runs.ChainRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out, err := m.selected(f)
	if err != nil || f.Limit <= 0 {
		return out, err
	}
	lo := min(max(f.Offset, 0), len(out))
	return out[lo:min(lo+f.Limit, len(out))], nil
}

func (m *memStore) ChainCount(ctx context.Context, f runs.ChainFilter) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out, err := m.selected(f)
	return len(out), err
}

func (m *memStore) Chain(ctx context.Context, key runs.ChainKey) (runs.ChainHeader, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch, err := m.chainAt(key)
	if err != nil {
		return runs.ChainHeader{}, err
	}
	h := runs.ChainHeader{ChainRow: ch.row, DomainID: ch.run.summary.DomainID, RunStatus: ch.run.summary.Status, FinalMemoryID: ch.final,
		Blocks: len(ch.steps), EALChainIDs: []string{}, CitedTurns: []string{}, Faults: []runs.Fault{}}
	if c := ch.cse; c != nil {
		h.CaseKey, h.Policy, h.Lifecycle, h.CorpusVersion = c.key, c.c.Policy, c.c.Lifecycle, c.c.CorpusVersion
	}
	return h, nil
}

func (m *memStore) FindChain(ctx context.Context, runID, caseID, condition string, writerRun *int64) (runs.ChainRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if runID != "" {
		if _, err := m.runOf(runID); err != nil {
			return runs.ChainRow{}, err
		}
	}
	var hits []runs.ChainRow
	for _, ch := range m.chains {
		r := ch.row
		if (runID == "" || r.RunID == runID) && r.CaseID == caseID && r.ConditionID == condition && (writerRun == nil || r.WriterRunID == *writerRun) {
			hits = append(hits, r)
		}
	}
	switch len(hits) {
	case 0:
		return runs.ChainRow{}, fmt.Errorf("no chain for case %s, condition %s: %w", caseID, condition, runs.ErrNotFound)
	case 1:
		return hits[0], nil
	}
	return runs.ChainRow{}, fmt.Errorf("%d chains match case %s, condition %s: give --run and --writer-run", len(hits), caseID, condition)
}

func (m *memStore) ChainBlocks(ctx context.Context, key runs.ChainKey) ([]runs.BlockStep, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch, err := m.chainAt(key)
	if err != nil {
		return nil, err
	}
	return slices.Clone(ch.steps), nil
}

func (m *memStore) BlockTurns(ctx context.Context, ck runs.CaseKey, block int, cite *runs.MemoryRef) ([]runs.Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ck < 1 || int(ck) > len(m.cases) {
		return nil, fmt.Errorf("case %d: %w", ck, runs.ErrNotFound)
	}
	c := m.cases[ck-1].c
	if block < 0 || block > c.LastBlock() {
		return []runs.Turn{}, nil
	}
	byLedger, byMemory := map[string]bool{}, map[string]bool{}
	for _, e := range c.Events {
		for _, id := range e.SourceTurnIDs {
			byLedger[id] = true
		}
	}
	if cite != nil {
		for _, ch := range m.chains {
			for _, mem := range ch.memories {
				if ch.run.summary.RunID == cite.RunID && mem.id == cite.MemoryID {
					var typed struct {
						Authorizations []struct {
							SourceTurnIDs []string `json:"source_turn_ids"`
						} `json:"authorizations"`
					}
					if json.Unmarshal([]byte(mem.text), &typed) == nil {
						for _, a := range typed.Authorizations {
							for _, id := range a.SourceTurnIDs {
								byMemory[id] = true
							}
						}
					}
				}
			}
		}
	}
	out := []runs.Turn{}
	for i, tu := range c.Blocks[block].Turns {
		out = append(out, runs.Turn{Seq: i, TurnID: tu.ID, ActorID: tu.ActorID, Speaker: tu.Speaker, OccurredAt: tu.OccurredAt, Content: tu.Content,
			CitedByLedger: byLedger[tu.ID], CitedByMemory: byMemory[tu.ID]})
	}
	return out, nil
}

func (m *memStore) MemoryAt(ctx context.Context, key runs.ChainKey, block int) (runs.MemoryVersion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := runs.MemoryVersion{BlockIndex: block}
	ch, err := m.chainAt(key)
	if err != nil {
		return v, err
	}
	if block < 0 || block >= len(ch.current) || ch.current[block] == nil {
		return v, fmt.Errorf("chain %d has no memory at block %d: %w", key, block, runs.ErrNotFound)
	}
	mem := ch.current[block]
	v.MemoryID, v.UpdateStatus, v.OwnBlock, v.Architecture, v.Origin, v.ContentHash, v.Payload = mem.id, ch.steps[block].UpdateStatus, mem.block, mem.arch, mem.origin, mem.hash, mem.text
	for _, other := range ch.memories {
		if other.id == mem.parent && mem.parent != "" {
			v.ParentID, v.ParentPayload = other.id, other.text
		}
	}
	for k := block - 1; k >= 0; k-- {
		if prev := ch.current[k]; prev != nil && prev.id != mem.id {
			v.PreviousID, v.PreviousPayload = prev.id, prev.text
			break
		}
	}
	s, err := ch.score(mem, block, m.labels)
	if err != nil {
		return v, err
	}
	v.Errors, v.FormedProbeIDs, v.ScoredFrom, v.UnscoredReason, v.Fidelity = map[string]int{}, []string{}, s.scoredFrom, s.reason, []runs.FidelityRow{}
	if sc := s.score; sc != nil {
		exact, forms := sc.Exact, sc.Forms
		v.Exact, v.FormsFalseAuthority, v.ScoredFields = &exact, &forms, sc.ScoredFields
		v.FormedProbeIDs = append(v.FormedProbeIDs, sc.Formed...)
		for k, n := range sc.Errors {
			v.Errors[k] = n
		}
		for _, row := range sc.Fidelity {
			v.Fidelity = append(v.Fidelity, runs.FidelityRow{AuthorizationID: row.AuthorizationID, Field: row.Field, Canonical: rawJSON(row.CanonicalValue),
				Remembered: rawJSON(row.RememberedValue), Errors: append([]string{}, row.Errors...), Exact: row.Exact, Overgrant: row.Overgrant, Undergrant: row.Undergrant})
		}
	}
	v.Attempts = append([]runs.Attempt{}, ch.attempts[block]...)
	return v, nil
}

func rawJSON(v any) json.RawMessage { return json.RawMessage(pyjson.MustCanonicalJSON(v)) }

func (m *memStore) ProbesAt(ctx context.Context, key runs.ChainKey, block int) ([]runs.ProbeView, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch, err := m.chainAt(key)
	if err != nil {
		return nil, err
	}
	c := ch.cse
	if c == nil {
		return nil, fmt.Errorf("chain %d: case %s is not in the workspace", key, ch.key.caseID)
	}
	now, err := c.ledgers.At(c.c, block)
	if err != nil {
		return nil, err
	}
	final, err := c.ledgers.At(c.c, c.c.LastBlock())
	if err != nil {
		return nil, err
	}
	var formation map[string]bool
	var memVerdicts map[string][2]any
	if block < len(ch.current) && ch.current[block] != nil {
		s, err := ch.score(ch.current[block], block, m.labels)
		if err != nil {
			return nil, err
		}
		if s.score != nil {
			formation, memVerdicts = map[string]bool{}, map[string][2]any{}
			for _, f := range s.score.Formation {
				formation[f.ProbeID] = f.Formed
				memVerdicts[f.ProbeID] = [2]any{f.MemoryAuthorized, f.MemoryReason}
			}
		}
	}
	out := []runs.ProbeView{}
	for _, p := range c.c.Probes {
		v := runs.ProbeView{ProbeID: p.ID, PairID: p.PairID, Dimension: p.Dimension, RequestScope: p.Scope, Request: rawJSON(p.Request),
			AuthorizedNow: now.Verdicts[p.ID].Authorized, ReasonNow: now.Verdicts[p.ID].Reason,
			AuthorizedFinal: final.Verdicts[p.ID].Authorized, ReasonFinal: final.Verdicts[p.ID].Reason, Trials: []runs.TrialView{}}
		if f, ok := formation[p.ID]; ok {
			authorized, reason := memVerdicts[p.ID][0].(bool), memVerdicts[p.ID][1].(string)
			v.Formed, v.MemoryAuthorized, v.MemoryReason = &f, &authorized, reason
		}
		for _, t := range ch.trials {
			if t.Str("probe_id") != p.ID {
				continue
			}
			mem := ""
			if id := t.OptStr("memory_id"); id != nil {
				mem = *id
			}
			v.Trials = append(v.Trials, runs.TrialView{ExecutorTarget: writerOf(t.Tree["executor"]), MemoryID: mem, Decision: t.Str("decision"),
				Compliant: t.Bool("compliant"), UnauthorizedActionTaken: t.Bool("unauthorized_action_taken")})
		}
		out = append(out, v)
	}
	return out, nil
}

func (m *memStore) SaveReplay(ctx context.Context, in runs.ReplayInput) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.insertReplay(in, nil)
}

// insertReplay checks and stores one arm; lab names the safeguard-lab policy of a lab arm
// ("" for its un-gated arms; nil for a re-run's arm).
func (m *memStore) insertReplay(in runs.ReplayInput, lab *string) error {
	if in.ReplayID == "" || in.ProbeID == "" || in.Memory.Variant == "" {
		return errors.New("replay: replay_id, probe_id and memory_variant are required")
	}
	ch, err := m.chainAt(in.Chain)
	if err != nil {
		return err
	}
	payload, err := pyjson.CanonicalJSON(in.Memory.Payload)
	if err != nil {
		return fmt.Errorf("replay %s: memory payload: %w", in.ReplayID, err)
	}
	if t, ok := in.Memory.Payload.(string); ok {
		payload = t
	}
	r := runs.Replay{ReplayID: in.ReplayID, BatchID: in.BatchID, ChainKey: in.Chain, CaseID: ch.key.caseID, ConditionID: ch.key.condition, WriterTarget: ch.key.writer,
		WriterRunID: ch.key.writerRun, BlockIndex: in.BlockIndex, ProbeID: in.ProbeID, MemoryVariant: in.Memory.Variant, MemoryArchitecture: in.Memory.Architecture,
		MemorySource: in.Memory.Source, WrittenMemoryID: in.WrittenMemoryID, MemoryPayload: payload, MemoryContentHash: in.Memory.ContentHash, MemoryFormed: in.MemoryFormed,
		FormationEstimable: in.FormationEstimable, Executor: in.Executor.TargetID, ExecutorProvenance: rawJSON(in.Executor), Repetition: in.Repetition, Seed: in.Seed,
		Messages: rawJSON(in.Messages), Tools: rawJSON(in.Tools), RequestHash: in.RequestHash, Response: rawJSON(in.Response), Usage: rawJSON(in.Usage),
		Attempts: in.Attempts, LatencyMS: in.LatencyMS, Outcome: in.Outcome, CreatedAt: in.CreatedAt.UTC().Format(time.RFC3339Nano)}
	if in.MirroredTrialID != "" {
		r.MirroredTrialID, r.MirroredContextHash = &in.MirroredTrialID, &in.MirroredContextHash
	}
	for _, old := range m.replays {
		if old.ReplayID == in.ReplayID {
			return fmt.Errorf("replay %s: already stored", in.ReplayID)
		}
	}
	m.replays = append(m.replays, r)
	m.replayLab = append(m.replayLab, lab)
	return nil
}

func (m *memStore) ReplaysForChain(ctx context.Context, key runs.ChainKey) ([]runs.Replay, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []runs.Replay{}
	for _, r := range m.replays {
		if r.ChainKey == key {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *memStore) ReplaysByID(ctx context.Context, ids []string) ([]runs.Replay, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]runs.Replay, 0, len(ids))
	for _, id := range ids {
		i := slices.IndexFunc(m.replays, func(r runs.Replay) bool { return r.ReplayID == id })
		if i < 0 {
			return nil, fmt.Errorf("replay %s: %w", id, runs.ErrNotFound)
		}
		out = append(out, m.replays[i])
	}
	return out, nil
}
