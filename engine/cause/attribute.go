package cause

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Attribute explains one failure (docs/CAUSES.md gives the rules in full):
//  1. an update that did not land (the last attempt neither accepted nor no_change) is
//     update_failed, and the block's ledger events on the request's records are what the
//     memory failed to apply;
//  2. with the memory, each wrong field of a record that grants the request is traced to
//     the turn behind it: a turn whose speaker cannot grant and that states the value the
//     memory took (or that the record cites) is misleading; otherwise the ledger event that
//     last set the field was misapplied, and its source turn is the cause;
//  3. without the memory, a turn of the error block whose speaker cannot grant and that
//     states the request's values beyond the ledger, or names the records it depends on, is
//     misleading; otherwise the block's ledger events on those records were misapplied.
//
// The first-ranked turn's role gives the class.
func Attribute(in Input) (Attribution, error) {
	if in.Domain == nil || in.Case == nil {
		return Attribution{}, fmt.Errorf("cause: no domain or case")
	}
	if in.Block < 0 || in.Block > in.Case.LastBlock() {
		return Attribution{}, fmt.Errorf("cause: block %d is outside case %s (0..%d)", in.Block, in.Case.ID, in.Case.LastBlock())
	}
	var lv *ledgerView
	var err error
	if in.Cache.usable(in.Case) {
		lv, err = in.Cache.ledger(in.Domain, in.Case, in.Block)
	} else {
		lv, err = newLedgerView(in.Domain, in.Case, in.Block)
	}
	if err != nil {
		return Attribution{}, fmt.Errorf("cause: case %s: %w", in.Case.ID, err)
	}
	w := &work{in: in, lv: lv, relevant: lv.relevant(in.Request)}
	w.requestValues()
	w.h = newHistory(in, in.Block, w.reqLeaves)
	a := Attribution{Basis: BasisHistory, EnteredHere: true, Block: in.Block, Attempts: in.Attempts}
	if in.HaveMemory {
		a.Basis = BasisMemory
		if err := w.memoryChanges(); err != nil {
			return Attribution{}, err
		}
		a.Changes = w.changes
	}
	landed := updateLanded(in.Attempts)
	var ranked []*scored
	switch {
	case !landed:
		ranked = append(w.notApplied(), w.blockMisleading()...)
	case in.HaveMemory:
		ranked = w.traceChanges()
	default:
		ranked = w.blockMisleading()
		if len(ranked) == 0 {
			ranked = w.blockMisapplied()
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].score > ranked[j].score })
	ranked = dedupeScored(ranked)
	for i, s := range ranked {
		t := w.h.turns[s.id]
		c := Cause{Rank: i + 1, Role: s.role, TurnID: s.id, Block: s.block, Score: s.score, Evidence: s.ev, Change: s.change, Record: s.record}
		if t != nil {
			c.Speaker = t.turn.Speaker
		}
		a.Causes = append(a.Causes, c)
	}
	a.landed = landed
	a.Class = classOf(landed, a.Causes)
	a.setMisleading()
	a.Ignored = w.ignored(landed)
	seen := map[string]bool{}
	for _, ig := range a.Ignored {
		for _, id := range ig.SourceTurnIDs {
			if !seen[id] {
				seen[id] = true
				a.IgnoredTurns = append(a.IgnoredTurns, id)
			}
		}
	}
	if in.HaveMemory && landed {
		a.EnteredHere = w.enteredHere(a.Causes)
	}
	a.Explanation = explain(a)
	return a, nil
}

// updateLanded says the writer's update at the block took effect: its last attempt was
// accepted or changed nothing (EAL-Bench's harness relabel reads the statuses the same way).
// No attempts at all (a block the writer did not update) counts as landed.
func updateLanded(statuses []string) bool {
	if len(statuses) == 0 {
		return true
	}
	last := statuses[len(statuses)-1]
	return last == "accepted" || last == "no_change"
}

func classOf(landed bool, causes []Cause) string {
	if !landed {
		return UpdateFailed
	}
	if len(causes) == 0 {
		return Other
	}
	switch causes[0].Role {
	case RoleMisleading:
		return RestatementApplied
	case RoleOwnAction:
		return OwnActionAsApproval
	case RoleMisapplied:
		return AuthoritativeChangeMisapplied
	}
	return Other
}

func dedupeScored(in []*scored) []*scored {
	seen := map[string]bool{}
	var out []*scored
	for _, s := range in {
		if !seen[s.id] {
			seen[s.id] = true
			out = append(out, s)
		}
	}
	return out
}

// work is one attribution in progress.
type work struct {
	in        Input
	lv        *ledgerView
	h         *history
	relevant  map[string]bool
	reqLeaves []Value
	// beyond are the request's values the ledger does not grant.
	beyond  []Value
	changes []Change
	// grants are the memory's records that authorize the request, as trees by id.
	grants map[string]map[string]any
	before map[string]map[string]any
}

// requestValues reads the request's fields and the values among them beyond the ledger: the
// ones that differ from the in-scope partner of its probe pair (the pair differs on one
// dimension), else the ones no relevant ledger record at the block holds.
func (w *work) requestValues() {
	fields := w.in.RequestFields
	rr, _ := w.in.Domain.(RequestReader)
	var probe engine.Probe
	var haveProbe bool
	if w.in.Probe != "" {
		probe, haveProbe = w.in.Case.Probe(w.in.Probe)
	}
	kind := w.in.RequestKind
	if kind == "" {
		kind = "submitted"
	}
	if fields == nil && rr != nil && haveProbe {
		fields = rr.RequestFields(probe, kind)
	}
	leafValues("", fields, &w.reqLeaves)
	sort.Slice(w.reqLeaves, func(i, j int) bool { return w.reqLeaves[i].Field < w.reqLeaves[j].Field })
	if rr != nil && haveProbe {
		for _, p := range w.in.Case.Probes {
			if p.PairID != probe.PairID || p.ID == probe.ID {
				continue
			}
			var partner []Value
			leafValues("", rr.RequestFields(p, kind), &partner)
			if len(partner) == 0 {
				continue
			}
			have := map[string]bool{}
			for _, v := range partner {
				have[v.Field+"\x00"+v.Text] = true
			}
			for _, v := range w.reqLeaves {
				if !have[v.Field+"\x00"+v.Text] {
					w.beyond = append(w.beyond, v)
				}
			}
			return
		}
	}
	held := map[string]bool{}
	for id := range w.relevant {
		var vals []Value
		leafValues("", w.lv.at(w.in.Block, id), &vals)
		for _, v := range vals {
			held[v.Text] = true
		}
	}
	for _, v := range w.reqLeaves {
		if !held[v.Text] {
			w.beyond = append(w.beyond, v)
		}
	}
}

// blockMisleading ranks the error block's turns whose speaker cannot grant by what they
// state about the request and its records (the history-only rule).
func (w *work) blockMisleading() []*scored {
	var out []*scored
	records := engine.SortedSet(w.relevant)
	for _, id := range w.h.order {
		t := w.h.turns[id]
		if t.turn.BlockIndex != w.in.Block {
			continue
		}
		if s := w.h.misleadingEvidence(id, nil, w.beyond, records, nil); s != nil {
			s.score += 2
			out = append(out, s)
		}
	}
	return out
}

// blockEvents are the error block's ledger events on the request's records (every event of
// the block when none is on them).
func (w *work) blockEvents() []engine.Event {
	var on, all []engine.Event
	for _, e := range w.lv.eventsAt(w.in.Block, "") {
		all = append(all, e)
		if w.relevant[e.AuthorizationID] || w.relevant[e.NewAuthorizationID] || w.grants[e.AuthorizationID] != nil {
			on = append(on, e)
		}
	}
	if len(on) > 0 {
		return on
	}
	return all
}

// blockMisapplied ranks the source turns of the block's events on the request's records.
func (w *work) blockMisapplied() []*scored {
	return w.eventTurns(w.blockEvents(), RoleMisapplied, 9, "")
}

// notApplied ranks the source turns of the block's events when the update did not land.
func (w *work) notApplied() []*scored {
	return w.eventTurns(w.blockEvents(), RoleNotApplied, 9, "")
}

func (w *work) eventTurns(events []engine.Event, role string, points int, change string) []*scored {
	var out []*scored
	for _, e := range events {
		for _, id := range e.SourceTurnIDs {
			s := &scored{id: id, role: role, block: e.BlockIndex, change: change}
			if t := w.h.turns[id]; t != nil {
				s.block = t.turn.BlockIndex
			}
			kind, text := EvLedgerSource, fmt.Sprintf("the ledger's %s of %s at block %d comes from it", e.Type, eventRecord(e), e.BlockIndex)
			if role == RoleNotApplied {
				kind, text = EvNotApplied, fmt.Sprintf("its %s of %s was not applied: the update at block %d did not land", e.Type, eventRecord(e), w.in.Block)
			}
			s.add(points, kind, text)
			if e.BlockIndex == w.in.Block {
				s.score += 2
			}
			out = append(out, s)
		}
	}
	return out
}

func eventRecord(e engine.Event) string {
	if e.NewAuthorizationID != "" && e.NewAuthorizationID != e.AuthorizationID {
		if e.AuthorizationID == "" {
			return e.NewAuthorizationID
		}
		return e.AuthorizationID + " → " + e.NewAuthorizationID
	}
	return e.AuthorizationID
}

// ignored are the ledger events the memory failed to apply: with the memory, the events
// behind the wrong fields of the granting records; without it (or when the update did not
// land), the block's events on the request's records.
func (w *work) ignored(landed bool) []Ignored {
	var out []Ignored
	seen := map[string]bool{}
	add := func(e engine.Event, field string) {
		if seen[e.ID+"\x00"+field] {
			return
		}
		seen[e.ID+"\x00"+field] = true
		out = append(out, Ignored{EventID: e.ID, Type: e.Type, AuthorizationID: eventRecord(e), Block: e.BlockIndex,
			SourceTurnIDs: append([]string(nil), e.SourceTurnIDs...), Field: field})
	}
	if !w.in.HaveMemory || !landed {
		for _, e := range w.blockEvents() {
			if landed && !w.relevant[e.AuthorizationID] && !w.relevant[e.NewAuthorizationID] {
				continue
			}
			add(e, "")
		}
		return out
	}
	for _, c := range w.changes {
		b := w.changeBlock(c)
		if b < 0 {
			continue
		}
		for _, e := range w.lv.eventsAt(b, c.AuthorizationID) {
			add(e, c.Field)
		}
	}
	return out
}

// enteredHere: the memory took a wrong value at this block, or the ledger changed a wrong
// field at this block and the memory did not follow; otherwise the error was carried from an
// earlier block's memory.
func (w *work) enteredHere(causes []Cause) bool {
	if len(w.changes) == 0 {
		return true
	}
	for _, c := range w.changes {
		if c.Here || w.changeBlock(c) == w.in.Block {
			return true
		}
	}
	return false
}

func joinIDs(ids []string) string { return strings.Join(ids, ", ") }

// setMisleading lists the misleading turns in rank order (the error block's first: they
// score higher), when the class is one a misleading turn explains.
func (a *Attribution) setMisleading() {
	a.Misleading = nil
	if a.Class != RestatementApplied && a.Class != OwnActionAsApproval {
		return
	}
	for _, c := range a.Causes {
		if c.Role == RoleMisleading || c.Role == RoleOwnAction {
			a.Misleading = append(a.Misleading, c.TurnID)
		}
	}
}

// Confirm re-ranks the causes after ablation: turns whose removal stops the failure come
// first (a cause by intervention), the rest keep their order; the class and the sentence
// follow the new first turn.
func (a *Attribution) Confirm() {
	sort.SliceStable(a.Causes, func(i, j int) bool { return stops(a.Causes[i]) && !stops(a.Causes[j]) })
	for i := range a.Causes {
		a.Causes[i].Rank = i + 1
	}
	a.Class = classOf(a.landed || updateLanded(a.Attempts), a.Causes)
	a.setMisleading()
	a.Explanation = explain(*a)
}

func stops(c Cause) bool { return c.Ablation != nil && c.Ablation.Status == AblationStops }

// Support says how the first-ranked cause is supported: confirmed by ablation, or by rule.
func (a Attribution) Support() string {
	if top := a.Top(); top != nil && stops(*top) {
		return "confirmed by ablation"
	}
	if a.JointStops() {
		return "confirmed by joint ablation (overdetermined)"
	}
	return "rule-based"
}

// JointStops says the failure is overdetermined and withholding the turns behind every
// granting record together stops it, the first-ranked turn among them.
func (a Attribution) JointStops() bool {
	top := a.Top()
	if a.Joint == nil || top == nil || a.Joint.Ablation.Status != AblationStops {
		return false
	}
	for _, id := range a.Joint.TurnIDs {
		if id == top.TurnID {
			return true
		}
	}
	return false
}
