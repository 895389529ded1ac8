package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
)

// Presentation: pure functions from runs values to display rows, and the commands that run
// the queries (all I/O happens inside the returned tea.Cmd, never in Update or View).

func presentRun(r runs.RunSummary) RunSummary {
	return RunSummary{
		RunID: r.RunID, DomainID: r.DomainID, Study: r.Study, Status: r.Status, StartedAt: r.StartedAt,
		Source: r.ImportedFrom, Chains: r.Chains, Forming: r.ChainsForming, Trials: r.Trials, TrialsNotEstimable: r.TrialsNotEstimable,
		Verified: r.Verification == "verified", Incomplete: r.Incomplete,
		WriterAttempts: r.WriterAttempts, WriterErrors: r.WriterErrors, Writers: r.Writers, Executors: r.Executors,
		WriterTokens: r.WriterTokens, ExecutorTokens: r.ExecutorTokens,
	}
}

func presentChain(c runs.ChainRow) ChainSummary {
	fa := -1
	if c.FirstFalseAuthorityBlock != nil {
		fa = *c.FirstFalseAuthorityBlock
	}
	return ChainSummary{
		Key:    ChainKey{ID: c.Key, RunID: c.RunID, CaseID: c.CaseID, ConditionID: c.ConditionID, WriterRunID: int(c.WriterRunID)},
		Writer: c.Writer, Architecture: c.Architecture, Memories: c.Memories, FirstFalseAuthority: fa,
		UnauthorizedActions: c.UnauthorizedActions, MemoryInduced: c.AttributedMemoryInduced, NeedsAnnotation: c.NeedsAnnotation,
	}
}

func presentChainDetail(h runs.ChainHeader, steps []runs.BlockStep) ChainDetail {
	d := ChainDetail{Summary: presentChain(h.ChainRow), DomainID: h.DomainID, CaseKey: h.CaseKey, CitedTurns: h.CitedTurns,
		EALChainIDs: h.EALChainIDs}
	if h.MissingCorpus != nil {
		d.MissingCorpus = h.MissingCorpus.String()
	}
	for _, s := range steps {
		b := BlockSummary{Index: s.BlockIndex, Title: s.Title, EndedAt: s.EndedAt, MemoryID: s.MemoryID,
			UpdateStatus: s.UpdateStatus, Fidelity: s.Badge,
			Forms: s.FormsFalseAuthority != nil && *s.FormsFalseAuthority}
		for _, e := range s.Events {
			b.Events = append(b.Events, EventSummary{ID: e.EventID, Type: e.Type, Issuer: e.Issuer,
				AuthorizationID: firstNonEmpty(e.NewAuthorizationID, e.AuthorizationID), SourceTurnIDs: e.SourceTurnIDs})
		}
		for _, f := range s.Faults {
			b.Faults = append(b.Faults, f.Family)
		}
		d.Blocks = append(d.Blocks, b)
	}
	for _, f := range h.Faults {
		d.Faults = append(d.Faults, ScriptedFault{Family: f.Family, AuthorizationID: f.AuthorizationID, Field: f.Field,
			Description: f.Description, Block: f.BlockIndex, EventBlock: f.EventBlock, SourceTurnIDs: f.SourceTurnIDs})
	}
	return d
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// presentMemory parses a stored payload: typed memory is canonical JSON, free text is as is.
func presentMemory(id string, block int, arch, payload, hash string) *MemoryVersion {
	m := &MemoryVersion{MemoryID: id, BlockIndex: block, Architecture: arch, ContentHash: hash}
	if arch == engine.ArchTyped {
		// json.Number leaves: a large integer limit stays an integer (125000000, not 1.25e+08).
		if tree, err := pyjson.DecodeTree([]byte(payload)); err == nil {
			m.Payload = tree
			return m
		}
		m.Architecture = "typed (unparsed)"
	}
	m.Text = payload
	return m
}

// jsonCell shows a stored JSON value in one table cell: strings without quotes, null as
// "—", anything else compact.
// treeJSON is a decoded JSON tree as JSON text again (nil: null).
func treeJSON(v any) json.RawMessage {
	s, err := pyjson.CanonicalJSON(v)
	if err != nil {
		return nil
	}
	return json.RawMessage(s)
}

func jsonCell(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "—"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

func presentBlock(b BlockSummary, turns []runs.Turn, mem *runs.MemoryVersion, probes []runs.ProbeView, probesErr error) BlockDetail {
	d := BlockDetail{Index: b.Index, Title: b.Title, Events: b.Events, UpdateStatus: b.UpdateStatus}
	for _, t := range turns {
		d.Turns = append(d.Turns, Turn{ID: t.TurnID, Speaker: t.Speaker, OccurredAt: t.OccurredAt, Content: t.Content,
			CitedByLedger: t.CitedByLedger, CitedByMemory: t.CitedByMemory})
	}
	if mem != nil {
		d.Memory = presentMemory(mem.MemoryID, mem.OwnBlock, mem.Architecture, mem.Payload, mem.ContentHash)
		if mem.PreviousID != "" {
			d.Previous = presentMemory(mem.PreviousID, -1, mem.Architecture, mem.PreviousPayload, "")
		}
		if mem.UpdateStatus != "" {
			d.UpdateStatus = mem.UpdateStatus
		}
		d.Exact, d.Unscored, d.Ledger = mem.Exact, mem.UnscoredReason, mem.LedgerState
		for _, f := range mem.Fidelity {
			d.Fidelity = append(d.Fidelity, FieldRow{AuthorizationID: f.AuthorizationID, Field: f.Field,
				Ledger: jsonCell(f.Canonical), Remembered: jsonCell(f.Remembered), Errors: f.Errors,
				Overgrant: f.Overgrant, Undergrant: f.Undergrant})
		}
	}
	for _, p := range probes {
		row := ProbeRow{ProbeID: p.ProbeID, Scope: p.RequestScope, Dimension: p.Dimension,
			AuthorizedNow: p.AuthorizedNow, AuthorizedFinal: p.AuthorizedFinal, Forms: p.Formed,
			ReasonNow: p.ReasonNow, MemoryAuthorized: p.MemoryAuthorized, MemoryReason: p.MemoryReason, Request: requestFields(p.Request)}
		for _, t := range p.Trials {
			args := ""
			if len(t.ToolArguments) > 0 && string(t.ToolArguments) != "null" {
				args = jsonCell(t.ToolArguments)
			}
			row.Trials = append(row.Trials, Trial{ExecutorRunID: int(t.ExecutorRunID), Decision: t.Decision,
				ToolName: t.ToolName, ToolArgs: args, Compliant: t.Compliant, Unauthorized: t.UnauthorizedActionTaken,
				ProviderError: t.ProviderError, Attributed: t.Attributed, Executor: t.ExecutorTarget, Reasons: t.AttributionReasons})
		}
		d.Probes = append(d.Probes, row)
	}
	if probesErr != nil {
		d.ProbesErr = probesErr.Error()
	}
	return d
}

// requestFields flattens a probe request's top-level fields into sanitised (name, value) rows.
func requestFields(raw json.RawMessage) [][2]string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 100000000, not 1e+08
	if len(raw) == 0 || dec.Decode(&v) != nil || v == nil {
		return nil
	}
	var out [][2]string
	for _, f := range flatten(v) {
		// The request's own fields; nested ones (a near-match request) and nulls are noise here.
		if strings.ContainsAny(f.path, ".[") || f.value == "null" {
			continue
		}
		out = append(out, [2]string{sanitizeLine(f.path), sanitizeLine(f.value)})
	}
	return out
}

func presentHit(h runs.SearchHit) SearchHit {
	item := h.TurnID
	if h.Kind == "memory" {
		item = h.MemoryID
	}
	return SearchHit{Key: ChainKey{ID: h.Chain, RunID: h.RunID, CaseID: h.CaseID}, Block: h.BlockIndex,
		Kind: h.Kind, ItemID: item, Snippet: h.Snippet}
}

// Commands.

type runsLoadedMsg struct {
	runs []RunSummary
	err  error
}

func loadRunsCmd(ctx context.Context, store RunLister) tea.Cmd {
	return func() tea.Msg {
		rs, err := store.Runs(ctx)
		out := make([]RunSummary, len(rs))
		for i, r := range rs {
			out[i] = presentRun(r)
		}
		return runsLoadedMsg{out, err}
	}
}

type chainsLoadedMsg struct {
	runID  string
	chains []ChainSummary
	err    error
}

func loadChainsCmd(ctx context.Context, store ChainLister, runID string) tea.Cmd {
	return func() tea.Msg {
		cs, err := store.Chains(ctx, runs.ChainFilter{RunID: runID})
		out := make([]ChainSummary, len(cs))
		for i, c := range cs {
			out[i] = presentChain(c)
		}
		return chainsLoadedMsg{runID, out, err}
	}
}

type chainLoadedMsg struct {
	key    runs.ChainKey
	detail ChainDetail
	err    error
}

func loadChainCmd(ctx context.Context, store ChainReader, key runs.ChainKey) tea.Cmd {
	return func() tea.Msg {
		h, err := store.Chain(ctx, key)
		if err != nil {
			return chainLoadedMsg{key: key, err: err}
		}
		steps, err := store.ChainBlocks(ctx, key)
		if err != nil {
			return chainLoadedMsg{key: key, err: err}
		}
		return chainLoadedMsg{key, presentChainDetail(h, steps), nil}
	}
}

type blockLoadedMsg struct {
	key    runs.ChainKey
	block  int
	detail BlockDetail
	err    error
}

// loadBlock runs the three queries of one block step. A block before the chain's first
// memory is not an error, and neither is a missing corpus for the probes: both show as text
// in their pane.
func loadBlock(ctx context.Context, store ChainReader, d ChainDetail, block int) (BlockDetail, error) {
	if block < 0 || block >= len(d.Blocks) {
		return BlockDetail{}, fmt.Errorf("block %d is outside this chain (0..%d)", block, len(d.Blocks)-1)
	}
	b := d.Blocks[block]
	var cite *runs.MemoryRef
	if b.MemoryID != "" {
		cite = &runs.MemoryRef{RunID: d.Summary.Key.RunID, MemoryID: b.MemoryID}
	}
	var turns []runs.Turn
	if d.CaseKey != 0 {
		var err error
		if turns, err = store.BlockTurns(ctx, d.CaseKey, block, cite); err != nil {
			return BlockDetail{}, err
		}
	}
	var mem *runs.MemoryVersion
	if b.MemoryID != "" {
		m, err := store.MemoryAt(ctx, d.Summary.Key.ID, block)
		switch {
		case err == nil:
			mem = &m
		case !errors.Is(err, runs.ErrNotFound):
			return BlockDetail{}, err
		}
	}
	probes, perr := store.ProbesAt(ctx, d.Summary.Key.ID, block)
	bd := presentBlock(b, turns, mem, probes, perr)
	k := d.Summary.Key
	ds, err := store.Diagnoses(ctx, k.CaseID, k.ConditionID, int64(k.WriterRunID), block)
	if err != nil {
		return BlockDetail{}, err
	}
	mine := diagnosesOfChain(ds, d)
	bd.Judges = presentDiagnoses(mine)
	bd.Why = loadWhy(ctx, store, d, bd, mine)
	return bd, nil
}

func loadBlockCmd(ctx context.Context, store ChainReader, d ChainDetail, block int) tea.Cmd {
	return func() tea.Msg {
		bd, err := loadBlock(ctx, store, d, block)
		return blockLoadedMsg{d.Summary.Key.ID, block, bd, err}
	}
}

type searchDoneMsg struct {
	seq  int
	hits []SearchHit
	err  error
}

func searchCmd(ctx context.Context, s Searcher, seq int, q string) tea.Cmd {
	return func() tea.Msg {
		hs, err := s.Search(ctx, q, 200)
		out := make([]SearchHit, len(hs))
		for i, h := range hs {
			out[i] = presentHit(h)
		}
		return searchDoneMsg{seq, out, err}
	}
}

// resolveChainCmd finds the chain of a case in a run, preferring the given condition and
// writer run, and opens it (`:case ID`).
func resolveChainCmd(ctx context.Context, store ChainLister, runID, caseID, condition string, writerRun int) tea.Cmd {
	return func() tea.Msg {
		rows, err := store.Chains(ctx, runs.ChainFilter{RunID: runID, CaseID: caseID})
		if err != nil {
			return errMsg{err}
		}
		if len(rows) == 0 {
			return unknownCaseMsg(ctx, store, runID, caseID)
		}
		best := rows[0]
		for _, r := range rows {
			if r.ConditionID == condition && (int(r.WriterRunID) == writerRun || best.ConditionID != condition) {
				best = r
			}
		}
		return openChainMsg{presentChain(best).Key, -1}
	}
}
