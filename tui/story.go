package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// A chain's story is what presentation mode steps through and what `ealscope export` writes:
// the turn behind the false authority, the memory change, the false authority itself, the
// executor's action on the probe it grants, the same executor behind oracle-exact memory, and
// the end-to-end attribution (ARCHITECTURE.md "Concepts"). buildStory is a pure function of
// StoryData; LoadStory runs the queries (the chain view's own, plus the exact arm and re-runs).

// StoryData is everything a story is built from.
type StoryData struct {
	Detail ChainDetail
	Block  BlockDetail
	// ExactCondition names the chain whose trials are the oracle-exact arm ("" when the run has
	// none); ExactProbes are its probes with their trials.
	ExactCondition string
	ExactProbes    []ProbeRow
	// Replays and ReplayAttribution are the chain's live re-runs (`r` in the chain view).
	Replays           []runs.Replay
	ReplayAttribution []runs.ReplayAttribution
	// FinalProbes are the probes at the chain's last block, whose memory the run's trials read;
	// ProbeID is the probe whose failure is memory-induced ("" when none is), which the story
	// follows.
	FinalProbes []ProbeRow
	ProbeID     string
	// Keys names the chain view's keys the story's notes mention (the key map's, remapped or
	// not); empty fields read as the defaults.
	Keys StoryKeys
}

// StoryKeys are the keys a story's notes tell the reader to press.
type StoryKeys struct{ Rerun, Annotate string }

func (k StoryKeys) rerun() string    { return firstNonEmpty(k.Rerun, "r") }
func (k StoryKeys) annotate() string { return firstNonEmpty(k.Annotate, "a") }

// StoryStore is what LoadStory reads: the chain view's queries and the chain list.
type StoryStore interface {
	ChainLister
	ChainReader
}

// LoadStory runs the queries of one story: the chain and its block (block < 0: the first
// false-authority block, else 0), the run's oracle-exact arm for the same case (condition
// exact_repair, else faithful_typed, as the importer attributes against), and the chain's
// re-runs when rer is not nil.
func LoadStory(ctx context.Context, store StoryStore, rer Rerunner, key ChainKey, block int) (StoryData, error) {
	h, err := store.Chain(ctx, key.ID)
	if err != nil {
		return StoryData{}, err
	}
	steps, err := store.ChainBlocks(ctx, key.ID)
	if err != nil {
		return StoryData{}, err
	}
	d := presentChainDetail(h, steps)
	if !hasFailure(d.Summary) {
		return StoryData{}, fmt.Errorf("chain %s · %s has no failure to tell (no false authority, no unauthorized action)",
			sanitizeLine(key.CaseID), sanitizeLine(key.ConditionID))
	}
	if len(d.Blocks) == 0 {
		return StoryData{}, fmt.Errorf("chain %s · %s has no blocks", key.CaseID, key.ConditionID)
	}
	last := len(d.Blocks) - 1
	finalRows, ferr := store.ProbesAt(ctx, key.ID, last)
	final := presentBlock(BlockSummary{}, nil, nil, finalRows, ferr).Probes
	// The story stays at the first false-authority block (where the cause attribution looks)
	// and follows the memory-induced probe whose false authority forms earliest.
	induced, _, err := earliestForming(ctx, store, key.ID, memoryInducedProbes(final), len(d.Blocks))
	if err != nil {
		return StoryData{}, err
	}
	if block < 0 {
		block = max(d.Summary.FirstFalseAuthority, 0)
	}
	if block >= len(d.Blocks) {
		return StoryData{}, fmt.Errorf("block %d does not exist: this chain has blocks 0..%d", block, len(d.Blocks)-1)
	}
	bd, err := loadBlock(ctx, store, d, block)
	if err != nil {
		return StoryData{}, err
	}
	data := StoryData{Detail: d, Block: bd, FinalProbes: final, ProbeID: induced}
	for _, cond := range []string{engine.ExactRepairCondition, "faithful_typed"} {
		rows, err := store.Chains(ctx, runs.ChainFilter{RunID: d.Summary.Key.RunID, CaseID: d.Summary.Key.CaseID, Condition: cond})
		if err != nil {
			return StoryData{}, err
		}
		if len(rows) == 0 || rows[0].Key == key.ID {
			continue
		}
		probes, err := store.ProbesAt(ctx, rows[0].Key, len(d.Blocks)-1)
		if err != nil {
			return StoryData{}, err
		}
		data.ExactCondition = cond
		data.ExactProbes = presentBlock(BlockSummary{}, nil, nil, probes, nil).Probes
		break
	}
	if rer != nil {
		if data.Replays, err = rer.ReplaysForChain(ctx, key.ID); err != nil {
			return StoryData{}, err
		}
		if data.ReplayAttribution, err = rer.AttributionForChain(ctx, key.ID); err != nil {
			return StoryData{}, err
		}
	}
	return data, nil
}

// buildStory tells the chain at data.Block. A block whose memory grants nothing the ledger
// denies ends the story after the false-authority step, which then says so.
func buildStory(data StoryData) Story {
	d, b := data.Detail, data.Block
	st := Story{Chain: d.Summary.Key, Block: b.Index, BlockTitle: sanitizeLine(b.Title), LastBlock: len(d.Blocks) - 1,
		FirstFalse: d.Summary.FirstFalseAuthority, Unscored: formationUnscored(d.Summary)}
	probe := storyProbe(b, data)
	st.Steps = append(st.Steps, turnStep(d, b, probe), memoryStep(b))
	name := ""
	if probe != nil {
		name = sanitizeLine(shortProbe(d.Summary.Key.CaseID, probe.ProbeID))
	}
	fa := falseAuthorityStep(b, probe, name, finalMemoryNote(data, b.Index, probeID(probe), name))
	fa.Note = strings.ReplaceAll(fa.Note, "(a in the chain view)", "("+data.Keys.annotate()+" in the chain view)")
	st.Steps = append(st.Steps, fa)
	if probe == nil {
		return st
	}
	written := writtenArm(data, *probe)
	exact := exactArm(data, *probe, written)
	steps := []StoryStep{actionStep(data, *probe, name, written), exactStep(name, written, exact), attributionStep(data, *probe, name, written, exact)}
	for i := range steps {
		steps[i].Note = strings.ReplaceAll(steps[i].Note, "Press r ", "Press "+data.Keys.rerun()+" ")
	}
	st.Steps = append(st.Steps, steps...)
	return st
}

// turnStep names the cause only from the block's cause attribution (docs/CAUSES.md) and says
// how it is supported; a block without one says the cause is unknown. The highlighted turn
// is the first-ranked one when it is in this block.
func turnStep(d ChainDetail, b BlockDetail, probe *ProbeRow) StoryStep {
	s := StoryStep{Kind: StepTurn, Title: "The turn that caused it"}
	ledger := map[string][]string{}
	for _, e := range b.Events {
		for _, id := range e.SourceTurnIDs {
			ledger[id] = append(ledger[id], sanitizeLine(e.Type+":"+e.AuthorizationID))
		}
	}
	id := ""
	if probe != nil {
		id = probe.ProbeID
	}
	pw := b.Why.forProbe(id)
	top := ""
	if pw != nil && len(pw.Causes) > 0 {
		top = pw.Causes[0].TurnID
	}
	for _, t := range b.Turns {
		t.ID, t.Speaker, t.OccurredAt, t.Content = sanitizeLine(t.ID), sanitizeLine(t.Speaker), sanitizeLine(t.OccurredAt), sanitize(t.Content)
		s.Turns = append(s.Turns, StoryTurn{Turn: t, Highlight: top != "" && t.ID == top, Ledger: ledger[t.ID]})
	}
	s.Caption, s.Note = causeSentence(b, pw)
	return s
}

// causeSentence is the story's cause: the class and its support, then the explanation built
// from the evidence; or why the cause is unknown.
func causeSentence(b BlockDetail, pw *ProbeWhy) (caption, note string) {
	switch {
	case pw != nil && len(pw.Causes) > 0:
		c := pw.Causes[0]
		caption = fmt.Sprintf("Block %d: %s (%s), behind %s's turn %s.", b.Index, strings.ReplaceAll(pw.Class, "_", " "), pw.Support, c.Speaker, c.TurnID)
		if c.Change != "" {
			caption = fmt.Sprintf("Block %d: %s (%s): %s, behind %s's turn %s.", b.Index, strings.ReplaceAll(pw.Class, "_", " "), pw.Support, c.Change, c.Speaker, c.TurnID)
		}
		return caption, pw.Explanation
	case pw != nil:
		return fmt.Sprintf("Block %d: cause unknown.", b.Index), pw.Explanation
	case b.Why != nil && b.Why.Err != "":
		return fmt.Sprintf("Block %d: cause unknown.", b.Index), "The cause could not be attributed: " + sanitizeLine(b.Why.Err) + "."
	}
	return fmt.Sprintf("Block %d: cause unknown.", b.Index), "No false authority forms at this block, or the cause was not attributed."
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, sanitizeLine(k))
	}
	sort.Strings(out)
	return out
}

func memoryStep(b BlockDetail) StoryStep {
	s := StoryStep{Kind: StepMemory, Title: "The memory change"}
	m := b.Memory
	if m == nil {
		s.Caption = fmt.Sprintf("No memory at block %d: the writer has not produced a version yet.", b.Index)
		return s
	}
	state := strings.ReplaceAll(b.UpdateStatus, "_", " ")
	if state == "" {
		state = "written"
	}
	score := "not scored"
	if b.Exact != nil {
		score = "exact"
		if !*b.Exact {
			score = "differs from the ledger"
		}
	}
	s.MemoryHead = fmt.Sprintf("%s · %s · %s · %s", sanitizeLine(shortID(m.MemoryID)), sanitizeLine(m.Architecture), state, score)
	s.TextDiff = m.Architecture != "typed"
	prev := b.Previous
	if m.BlockIndex != b.Index && m.BlockIndex >= 0 {
		prev = m // unchanged here: the version's own change belongs to the block that wrote it
	}
	s.Diff = memoryDiff(prev, m)
	added, dropped, changed := 0, 0, 0
	var record byte // the op of the record the field rows belong to
	for _, r := range s.Diff {
		switch {
		case s.TextDiff:
			if r.Op == '~' {
				changed++
			}
		case r.Header:
			record = r.Op
			if r.Op == '+' {
				added++
			} else if r.Op == '-' {
				dropped++
			}
		case record == '~' && r.Op != '=':
			changed++
		}
	}
	switch {
	case prev == nil:
		s.Caption = fmt.Sprintf("Block %d: the writer's first version (%s).", b.Index, state)
	case added+dropped+changed == 0:
		s.Caption = fmt.Sprintf("Block %d: the memory is unchanged (%s).", b.Index, state)
	case s.TextDiff:
		s.Caption = fmt.Sprintf("Block %d: the writer rewrote %s (%s).", b.Index, plural(changed, "line"), state)
	default:
		var parts []string
		if added > 0 {
			parts = append(parts, plural(added, "record")+" added")
		}
		if dropped > 0 {
			parts = append(parts, plural(dropped, "record")+" dropped")
		}
		if changed > 0 {
			parts = append(parts, plural(changed, "field")+" changed")
		}
		s.Caption = fmt.Sprintf("Block %d: %s (%s).", b.Index, strings.Join(parts, ", "), state)
	}
	return s
}

// memoryDiff compares a version with the previous one: typed payloads field by field grouped
// by record (records matched by authorization id, as fieldDiff does), free text word by word.
func memoryDiff(prev, cur *MemoryVersion) []DiffRow {
	if cur.Architecture != "typed" {
		old := ""
		if prev != nil {
			old = prev.Text
		}
		return textDiffRows(old, cur.Text)
	}
	var before any
	if prev != nil {
		before = prev.Payload
	}
	type pair struct {
		old, nw       string
		hasOld, hasNw bool
	}
	fields := map[string]map[string]*pair{}
	get := func(path string) *pair {
		rec, f := splitRecord(path)
		if fields[rec] == nil {
			fields[rec] = map[string]*pair{}
		}
		if fields[rec][f] == nil {
			fields[rec][f] = &pair{}
		}
		return fields[rec][f]
	}
	for _, f := range flatten(before) {
		p := get(f.path)
		p.old, p.hasOld = f.value, true
	}
	for _, f := range flatten(cur.Payload) {
		p := get(f.path)
		p.nw, p.hasNw = f.value, true
	}
	var out []DiffRow
	for _, rec := range sortedKeys(fields) {
		names := sortedKeys(fields[rec])
		var rows []DiffRow
		added, removed, changed := 0, 0, 0
		for _, n := range names {
			p := fields[rec][n]
			r := DiffRow{Field: sanitizeLine(n), Old: sanitizeLine(p.old), New: sanitizeLine(p.nw), Op: '='}
			switch {
			case p.hasOld && p.hasNw && p.old != p.nw:
				r.Op = '~'
				changed++
			case p.hasNw && !p.hasOld:
				r.Op = '+'
				added++
			case p.hasOld && !p.hasNw:
				r.Op = '-'
				removed++
			}
			rows = append(rows, r)
		}
		h := DiffRow{Header: true, Record: sanitizeLine(rec), Fields: len(names), Op: '~'}
		if h.Record == "" {
			h.Record = "(payload)"
		}
		switch {
		case added+removed+changed == 0:
			h.Op = '='
			out = append(out, h) // an unchanged record collapses to its header
			continue
		case added == len(names):
			h.Op = '+'
		case removed == len(names):
			h.Op = '-'
		}
		out = append(out, h)
		out = append(out, rows...)
	}
	return out
}

func textDiffRows(prev, cur string) []DiffRow {
	out := []DiffRow{{Op: '='}}
	for _, op := range wordDiff(sanitize(prev), sanitize(cur)) {
		code := byte('=')
		switch op.op {
		case diffmatchpatch.DiffDelete:
			code = '-'
		case diffmatchpatch.DiffInsert:
			code = '+'
		}
		for i, part := range strings.Split(op.text, "\n") {
			if i > 0 {
				out = append(out, DiffRow{Op: '='})
			}
			if part == "" {
				continue
			}
			last := &out[len(out)-1]
			last.Segs = append(last.Segs, DiffSeg{Op: code, Text: part})
			if code != '=' && strings.TrimSpace(part) != "" {
				last.Op = '~'
			}
		}
	}
	return out
}

// shortProbe shows a probe by the part of its id that differs within its case
// ("time_shift_inside" for "probe_<case>_time_shift_inside"), as the probes pane does.
func shortProbe(caseID, id string) string {
	return caseLocalID(caseID, id)
}

func probeID(p *ProbeRow) string {
	if p == nil {
		return ""
	}
	return p.ProbeID
}

// falseAuthorityStep shows the ledger rows the memory contradicts and the probe it grants;
// final says what the final memory does for the probe when the story's block is an earlier one.
func falseAuthorityStep(b BlockDetail, p *ProbeRow, name, final string) StoryStep {
	s := StoryStep{Kind: StepFalseAuthority, Title: "The false authority"}
	for _, r := range b.Fidelity {
		if len(r.Errors) == 0 {
			continue
		}
		r.AuthorizationID, r.Field, r.Ledger, r.Remembered = sanitizeLine(r.AuthorizationID), sanitizeLine(r.Field), sanitizeLine(r.Ledger), sanitizeLine(r.Remembered)
		errs := make([]string, len(r.Errors))
		for i, e := range r.Errors {
			errs[i] = sanitizeLine(e)
		}
		r.Errors = errs
		s.Ledger = append(s.Ledger, r)
	}
	// Overgrants first: they are what lets the memory grant the probe.
	sort.SliceStable(s.Ledger, func(i, j int) bool { return s.Ledger[i].Overgrant && !s.Ledger[j].Overgrant })
	if p == nil {
		switch {
		case b.Memory == nil:
			s.Caption = fmt.Sprintf("No memory at block %d, so no false authority.", b.Index)
		case b.Exact == nil && len(b.Fidelity) == 0:
			s.Caption = fmt.Sprintf("False authority at block %d: %s.", b.Index, notScoredText)
			if why := strings.ReplaceAll(sanitizeLine(b.Unscored), "_", " "); why != "" {
				s.Note = "Not scored: " + why + "."
			}
			if b.Memory.Architecture == "free_text" {
				s.Note += " Annotating it (a in the chain view) scores it."
			}
		default:
			s.Caption = fmt.Sprintf("The memory at block %d grants nothing the ledger denies.", b.Index)
		}
		return s
	}
	cp := *p
	cp.ProbeID, cp.Scope, cp.Dimension = sanitizeLine(p.ProbeID), sanitizeLine(p.Scope), sanitizeLine(p.Dimension)
	cp.ReasonNow, cp.MemoryReason = sanitizeLine(p.ReasonNow), sanitizeLine(p.MemoryReason)
	s.Probe = &cp
	s.Caption = fmt.Sprintf("The memory grants %s, which the ledger denies at block %d.", name, b.Index)
	if cp.Forms == nil || !*cp.Forms {
		s.Caption = fmt.Sprintf("At block %d the memory %s.", b.Index, formsPhrase(&cp, name))
	}
	if final != "" {
		s.Caption += " " + final
	}
	// The row that matters is one of the record the memory grants the probe through
	// ("authorized:<id>"): move that record's overgranting rows to the front.
	if granting, ok := strings.CutPrefix(cp.MemoryReason, "authorized:"); ok {
		sort.SliceStable(s.Ledger, func(i, j int) bool {
			gi := s.Ledger[i].AuthorizationID == granting && s.Ledger[i].Overgrant
			gj := s.Ledger[j].AuthorizationID == granting && s.Ledger[j].Overgrant
			return gi && !gj
		})
	}
	if len(s.Ledger) > 0 {
		r := s.Ledger[0]
		s.Caption += fmt.Sprintf(" The ledger row it contradicts: %s %s, %s.", r.AuthorizationID, fieldLabel(r.Field), strings.Join(r.Errors, ", "))
	}
	if cp.ReasonNow != "" {
		s.Note = "Ledger: " + cp.ReasonNow
	}
	return s
}
