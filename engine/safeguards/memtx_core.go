package safeguards

// MemTX's commit protocol, domain-free (BACKGROUND.md section 2; docs/POLICIES.md "MemTX").
// A memory write is not a belief commit: every write a writer makes is staged (raw ->
// tentative) in a transaction and admitted by four ordered checks (evidence, validity,
// semantic conflict, dependency stability) before it becomes a committed belief, and only a
// committed belief that is active, valid now and causally stable is action-safe. The store
// here knows records by index, slot values by interned id and sources by index, so the same
// code serves the EAL adapter (memtx.go) and the verifier (memtxverify.go), which drives it
// through millions of states.

import (
	"sort"
	"strconv"
)

// mtxSlotMeta is what the protocol remembers of a slot's committed value.
type mtxSlotMeta struct {
	seq       int     // transaction that committed it
	authority float64 // evidence authority of that write
	classes   uint64  // source identities of that write
}

// mtxRecState is one record of the store.
type mtxRecState struct {
	known     bool
	committed bool
	ver       MTXVersion // committed version
	meta      []mtxSlotMeta
	lastSeq   int
	state     string // resting state: committed, quarantined, superseded, revoked (or the pending write's)
	reason    string
	evidence  mtxEvidenceResult // of the committed version's write
	pending   *MTXWrite         // a quarantined or parked write, offered again at every transaction
	pendState string
	pendWhy   string
	// cascaded marks a committed record made inactive by an ancestor's revocation (I2).
	cascaded bool
}

// MTXActionLog is one irreversible action that ran.
type MTXActionLog struct {
	Record int
	Seq    int
	Leaked bool
}

// MTXStore is MemTX's belief store.
type MTXStore struct {
	params  MemTXParams
	sources []MTXSource // shared, append-only
	recs    []mtxRecState
	seq     int
	now     int64
	open    *MTXTx
	actions []MTXActionLog
}

// NewMTXStore makes an empty store over a source table (shared, never copied).
func NewMTXStore(p MemTXParams, sources []MTXSource) *MTXStore {
	return &MTXStore{params: p, sources: sources, seq: -1}
}

// Clone copies the store (the source table is shared).
func (s *MTXStore) Clone() *MTXStore {
	c := *s
	c.recs = make([]mtxRecState, len(s.recs))
	for i, r := range s.recs {
		r.meta = append([]mtxSlotMeta(nil), r.meta...)
		if r.pending != nil {
			w := *r.pending
			r.pending = &w
		}
		c.recs[i] = r
	}
	c.actions = append([]MTXActionLog(nil), s.actions...)
	if s.open != nil {
		t := *s.open
		t.writes = append([]MTXWrite(nil), s.open.writes...)
		c.open = &t
	}
	return &c
}

func (s *MTXStore) ensure(i int) {
	for len(s.recs) <= i {
		s.recs = append(s.recs, mtxRecState{})
	}
}

// MTXTx is an open transaction: its logical time and the writes staged so far.
type MTXTx struct {
	Seq    int
	Now    int64
	Full   bool
	writes []MTXWrite
}

// Begin opens a transaction at logical time (seq, now). full says the writes staged will be
// every difference between the writer's memory and the committed store, so pending writes of
// records not written again are dropped (the writer no longer asserts them); otherwise they
// are offered again.
func (s *MTXStore) Begin(seq int, now int64, full bool) *MTXTx {
	s.open = &MTXTx{Seq: seq, Now: now, Full: full}
	return s.open
}

// Stage adds a write to the open transaction (raw -> tentative).
func (s *MTXStore) Stage(w MTXWrite) {
	s.ensure(w.Record)
	if w.Kind == MTXPut && w.Version.Supersedes >= 0 {
		s.ensure(w.Version.Supersedes)
	}
	s.recs[w.Record].known = true
	s.open.writes = append(s.open.writes, w)
}

// InFlight reports tentative writes staged in an open transaction.
func (s *MTXStore) InFlight() bool { return s.open != nil && len(s.open.writes) > 0 }

// MTXOutcome is a write's fate in one transaction.
type MTXOutcome struct {
	Record int
	State  string // committed, superseded, revoked, quarantined, tentative (parked), aborted, blocked
	Reason string
}

// Commit runs the four checks on every staged write (and the pending writes offered again),
// ancestors before descendants, and closes the transaction.
func (s *MTXStore) Commit() []MTXOutcome {
	tx := s.open
	s.open = nil
	s.seq, s.now = tx.Seq, tx.Now
	written := map[int]bool{}
	writes := append([]MTXWrite(nil), tx.writes...)
	for _, w := range writes {
		written[w.Record] = true
	}
	for i := range s.recs {
		r := &s.recs[i]
		if written[i] {
			continue
		}
		if tx.Full {
			// The writer no longer asserts what it does not write again.
			r.pending, r.pendState, r.pendWhy = nil, "", ""
			if !r.committed {
				r.known, r.state, r.reason = false, "", ""
			}
			continue
		}
		if r.pending != nil {
			writes = append(writes, *r.pending)
		}
	}
	sort.SliceStable(writes, func(a, b int) bool {
		da, db := s.depth(writes[a]), s.depth(writes[b])
		if da != db {
			return da < db
		}
		return writes[a].Record < writes[b].Record
	})
	// Pending retractions and revocations of this transaction are known before any write
	// is checked, so a descendant never commits ahead of its ancestor's revocation.
	for _, w := range writes {
		if mtxIsRevocation(w) {
			r := &s.recs[w.Record]
			wc := w
			r.pending, r.pendState, r.pendWhy = &wc, MTXStateTentative, ""
		}
	}
	out := make([]MTXOutcome, 0, len(writes))
	for _, w := range writes {
		o := s.apply(w)
		out = append(out, o)
	}
	return out
}

func mtxIsRevocation(w MTXWrite) bool {
	return w.Kind == MTXRetract || w.Version.Status == MTXStatusRevoked || w.Version.Status == MTXStatusSuperseded
}

// depth is the length of a write's supersedes chain (ancestors first).
func (s *MTXStore) depth(w MTXWrite) int {
	n, seen := 0, map[int]bool{w.Record: true}
	next := -1
	if w.Kind == MTXPut {
		next = w.Version.Supersedes
	} else if s.recs[w.Record].committed {
		next = s.recs[w.Record].ver.Supersedes
	}
	for next >= 0 && !seen[next] && next < len(s.recs) {
		seen[next] = true
		n++
		if !s.recs[next].committed {
			break
		}
		next = s.recs[next].ver.Supersedes
	}
	return n
}

type mtxEvidenceResult struct {
	ok        bool
	authority float64
	classes   uint64
	snapshot  int // newest block among the sources (-1: none known)
	reason    string
}

// evidence is check 1: confidence at least MinConfidence unless authority at least
// MinAuthority; a write's authority is the least authority among its sources.
func (s *MTXStore) evidence(sources []int) mtxEvidenceResult {
	e := mtxEvidenceResult{snapshot: -1}
	if len(sources) == 0 {
		e.reason = TxReasonMissingProvenance
	} else {
		e.authority = 1
		for _, i := range sources {
			src := s.sources[i]
			if src.Authority < e.authority {
				e.authority = src.Authority
			}
			if src.Problem != "" && e.reason == "" {
				e.reason = src.Problem + ":" + src.Turn
			}
			e.classes |= 1 << uint(src.Class%64)
			if src.Block > e.snapshot {
				e.snapshot = src.Block
			}
		}
	}
	p := s.params
	e.ok = p.WriterConfidence >= p.MinConfidence || (len(sources) > 0 && e.authority >= p.MinAuthority)
	if p.broken == "evidence" {
		e.ok = true
	}
	if !e.ok && e.reason == "" {
		e.reason = TxReasonInsufficientEvidence + ":authority=" + strconv.FormatFloat(e.authority, 'g', 3, 64)
	}
	return e
}

func (s *MTXStore) setPending(w MTXWrite, state, why string) MTXOutcome {
	r := &s.recs[w.Record]
	wc := w
	r.pending, r.pendState, r.pendWhy = &wc, state, why
	if !r.committed {
		r.state, r.reason = state, why
	}
	return MTXOutcome{Record: w.Record, State: state, Reason: why}
}

func (s *MTXStore) drop(w MTXWrite, state, why string) MTXOutcome {
	r := &s.recs[w.Record]
	r.pending, r.pendState, r.pendWhy = nil, "", ""
	if !r.committed {
		r.state, r.reason = MTXStateQuarantined, why
	}
	return MTXOutcome{Record: w.Record, State: state, Reason: why}
}

// apply runs the four checks on one write and applies its outcome.
func (s *MTXStore) apply(w MTXWrite) MTXOutcome {
	r := &s.recs[w.Record]
	// 1. Evidence.
	ev := s.evidence(w.Sources)
	if !ev.ok {
		return s.setPending(w, MTXStateQuarantined, ev.reason)
	}
	// 2. Validity: an active grant's interval must be well formed and not over at logical
	// now.
	if w.Kind == MTXPut && w.Version.Status == MTXStatusActive && s.params.broken != "validity" {
		v := w.Version
		switch {
		case !v.IntervalOK:
			return s.setPending(w, MTXStateQuarantined, TxReasonInvalidInterval)
		// A grant whose window opens later is a true belief now: it commits, and stays
		// short of action-safe until logical now enters the window (notActionSafe).
		case s.now >= v.Until:
			return s.setPending(w, MTXStateQuarantined, TxReasonExpired)
		}
	}
	// 3. Semantic conflict on the record's slots.
	if r.committed {
		if r.state == MTXStateRevoked || r.state == MTXStateSuperseded {
			if w.Kind == MTXPut && w.Version.Status == MTXStatusActive && r.state == MTXStateRevoked {
				return s.drop(w, "blocked", TxReasonRestatesRevoked)
			}
			if w.Kind == MTXRetract || w.Version.Status != MTXStatusActive {
				// Withdrawing what is already withdrawn changes nothing.
				r.pending, r.pendState, r.pendWhy = nil, "", ""
				return MTXOutcome{Record: w.Record, State: r.state, Reason: r.reason}
			}
			return s.drop(w, "blocked", TxReasonWriteToTerminal)
		}
		changed := s.changedSlots(w)
		for _, i := range changed {
			if r.meta[i].seq > ev.snapshot && s.params.broken != "stale" {
				return s.drop(w, "aborted", TxReasonStaleLateWrite+":slot="+strconv.Itoa(i))
			}
		}
		if anc := s.revokedAncestor(w); anc >= 0 {
			return s.drop(w, "blocked", TxReasonDerivedFromRevoked+":"+strconv.Itoa(anc))
		}
		for _, i := range changed {
			m := r.meta[i]
			switch {
			case ev.authority > m.authority:
			case ev.authority < m.authority:
				return s.drop(w, "aborted", TxReasonLowerAuthority+":slot="+strconv.Itoa(i))
			case ev.classes != m.classes:
				return s.setPending(w, MTXStateQuarantined, TxReasonEqualAuthority+":slot="+strconv.Itoa(i))
			}
		}
	} else if anc := s.revokedAncestor(w); anc >= 0 {
		return s.drop(w, "blocked", TxReasonDerivedFromRevoked+":"+strconv.Itoa(anc))
	}
	if w.Kind == MTXRetract && !r.committed {
		// Nothing committed to withdraw: the uncommitted record simply goes.
		r.pending, r.pendState, r.pendWhy = nil, "", ""
		r.known = false
		return MTXOutcome{Record: w.Record, State: "dropped", Reason: ""}
	}
	// 4. Dependency stability: no pending revocation among the ancestors.
	if s.params.broken != "dependency" {
		if anc := s.pendingRevocationAncestor(w); anc >= 0 {
			return s.setPending(w, MTXStateQuarantined, TxReasonPendingRevocationAn+":"+strconv.Itoa(anc))
		}
	}
	return s.commitWrite(w, ev)
}

func (s *MTXStore) changedSlots(w MTXWrite) []int {
	r := &s.recs[w.Record]
	if w.Kind == MTXRetract {
		return []int{mtxStatusSlot(r.meta)}
	}
	var out []int
	for i, v := range w.Version.Slots {
		if i >= len(r.ver.Slots) || r.ver.Slots[i] != v {
			out = append(out, i)
		}
	}
	return out
}

// mtxStatusSlot is the slot a retraction writes: the protocol keeps the status's commit
// metadata in the record's last slot position it knows (any slot works for staleness as
// long as it is the same one); the record's last commit covers it.
func mtxStatusSlot(meta []mtxSlotMeta) int {
	best := 0
	for i, m := range meta {
		if m.seq > meta[best].seq {
			best = i
		}
	}
	return best
}

// ancestors lists a write's ancestors through supersedes (committed versions beyond the
// first hop), nearest first.
func (s *MTXStore) ancestors(w MTXWrite) []int {
	next := -1
	if w.Kind == MTXPut {
		next = w.Version.Supersedes
	} else if s.recs[w.Record].committed {
		next = s.recs[w.Record].ver.Supersedes
	}
	return s.chain(w.Record, next)
}

func (s *MTXStore) chain(self, next int) []int {
	var out []int
	seen := map[int]bool{self: true}
	for next >= 0 && next < len(s.recs) && !seen[next] {
		seen[next] = true
		out = append(out, next)
		if !s.recs[next].committed {
			break
		}
		next = s.recs[next].ver.Supersedes
	}
	return out
}

func (s *MTXStore) revokedAncestor(w MTXWrite) int {
	for _, a := range s.ancestors(w) {
		if s.recs[a].state == MTXStateRevoked {
			return a
		}
	}
	return -1
}

func (s *MTXStore) pendingRevocationAncestor(w MTXWrite) int {
	for _, a := range s.ancestors(w) {
		if p := s.recs[a].pending; p != nil && mtxIsRevocation(*p) && s.recs[a].state != MTXStateRevoked {
			return a
		}
	}
	return -1
}

func (s *MTXStore) commitWrite(w MTXWrite, ev mtxEvidenceResult) MTXOutcome {
	r := &s.recs[w.Record]
	r.pending, r.pendState, r.pendWhy = nil, "", ""
	if w.Kind == MTXRetract {
		r.lastSeq = s.seq
		r.evidence = ev
		if w.Successor >= 0 {
			r.state, r.reason = MTXStateSuperseded, TxReasonSupersededByRecord+":"+strconv.Itoa(w.Successor)
			return MTXOutcome{Record: w.Record, State: MTXStateSuperseded, Reason: r.reason}
		}
		r.state, r.reason = MTXStateRevoked, TxReasonRevokedByWrite
		s.cascade(w.Record)
		return MTXOutcome{Record: w.Record, State: MTXStateRevoked, Reason: r.reason}
	}
	changed := s.changedSlots(w)
	if !r.committed {
		changed = changed[:0]
		for i := range w.Version.Slots {
			changed = append(changed, i)
		}
	}
	for len(r.meta) < len(w.Version.Slots) {
		r.meta = append(r.meta, mtxSlotMeta{})
	}
	for _, i := range changed {
		r.meta[i] = mtxSlotMeta{seq: s.seq, authority: ev.authority, classes: ev.classes}
	}
	r.committed, r.ver, r.lastSeq, r.evidence, r.cascaded = true, w.Version, s.seq, ev, false
	switch w.Version.Status {
	case MTXStatusRevoked:
		r.state, r.reason = MTXStateRevoked, TxReasonRevokedByWrite
		s.cascade(w.Record)
	case MTXStatusSuperseded:
		r.state, r.reason = MTXStateSuperseded, TxReasonSupersededByRecord
	default:
		r.state, r.reason = MTXStateCommitted, ""
	}
	return MTXOutcome{Record: w.Record, State: r.state, Reason: r.reason}
}

// cascade is I2: after a revocation every non-terminal descendant is inactive
// (quarantined) and every action taken under the record or a descendant is logged as leaked.
func (s *MTXStore) cascade(root int) {
	if s.params.broken == "cascade" {
		return
	}
	hit := map[int]bool{root: true}
	for i := range s.recs {
		if i == root || !s.recs[i].committed {
			continue
		}
		for _, a := range s.chain(i, s.recs[i].ver.Supersedes) {
			if a == root {
				hit[i] = true
				r := &s.recs[i]
				if r.state != MTXStateRevoked && r.state != MTXStateSuperseded {
					r.state, r.reason, r.cascaded = MTXStateQuarantined, TxReasonAncestorRevoked+":"+strconv.Itoa(root), true
				}
				break
			}
		}
	}
	for i := range s.actions {
		if hit[s.actions[i].Record] {
			s.actions[i].Leaked = true
		}
	}
}

// Advance moves logical time on without new writes: pending writes are offered again (a
// parked grant whose window opened commits).
func (s *MTXStore) Advance(seq int, now int64) []MTXOutcome {
	s.Begin(seq, now, false)
	return s.Commit()
}
