package safeguards

// Machine checks of MemTX's two invariants over the protocol itself (the same MTXStore the
// policy runs), in two ways: random traces, and a bounded exhaustive enumeration of every
// protocol state reachable within B operations. The invariants are checked by code of their
// own here, never by the store's own action-safety test, so a broken check in the store is
// caught rather than mirrored.
//
//   I1: an irreversible action runs only if no tentative write is in flight and the record
//       that authorizes it is action-safe: committed, active, its window containing now, its
//       evidence sufficient (confidence, else the least authority of its sources), no write
//       of its own pending, and no ancestor (through supersedes) revoked, quarantined by a
//       revocation, or with a revocation pending.
//   I2: after a revocation every non-terminal descendant is inactive (quarantined), and every
//       action taken under the revoked record or a descendant is logged as leaked.

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
)

// MemTXVerifyConfig sizes a verification run.
type MemTXVerifyConfig struct {
	// Traces random traces of TraceLength operations each.
	Traces      int
	TraceLength int
	// Bound is the exhaustive enumeration's depth (operations from the empty store).
	Bound int
	Seed  uint64
	// Progress, when set, hears how far the check is: "traces" (done of Traces), then
	// "states" (states enumerated so far; total -1 until the enumeration ends, when done and
	// total are the final count). It is called every few thousand steps, never per step.
	Progress func(phase string, done, total int)
	// broken disables one commit check in every store (tests of the verifier only).
	broken string
}

// DefaultMemTXVerify is the full-size run (`ealscope verify memtx`).
func DefaultMemTXVerify() MemTXVerifyConfig {
	return MemTXVerifyConfig{Traces: 10000, TraceLength: 40, Bound: 7, Seed: 20260821}
}

// MemTXVerifyReport is what a run found.
type MemTXVerifyReport struct {
	Traces           int            `json:"traces_run"`
	TraceSteps       int            `json:"trace_steps"`
	Bound            int            `json:"bound"`
	StatesEnumerated int            `json:"states_enumerated"`
	ActionsChecked   int            `json:"actions_checked"`
	Violations       int            `json:"violations"`
	ByInvariant      map[string]int `json:"violations_by_invariant"`
	Examples         []string       `json:"examples"`
}

// The model's alphabet: three records in a supersedes line (1 supersedes 0, 2 supersedes 1),
// one slot with values 1 and 2 (a request q is covered by a version whose slot is q), and
// four sources: authority-capable at block 0, authority-capable at block 9 (newer evidence),
// another principal, and an unknown turn.
const (
	vRecords = 3
	srcOld   = 0
	srcNew   = 1
	srcOther = 2
	srcUnk   = 3
)

var verifySources = []MTXSource{
	{Turn: "t_old", Authority: 1, Class: 0, Block: 0},
	{Turn: "t_new", Authority: 1, Class: 0, Block: 9},
	{Turn: "t_other", Authority: 0.5, Class: 1, Block: 1, Problem: TxReasonNotAuthorityCapable},
	{Turn: "t_unknown", Authority: 0, Class: 0, Block: -1, Problem: TxReasonUnknownProvenance},
}

// writeTemplate is one write the model may stage.
type writeTemplate struct {
	kind     MTXWriteKind
	value    int32
	status   MTXStatus
	source   int
	interval int // 0 open now, 1 opens later, 2 over
	noSource bool
	// successor: a retraction in favour of the next record of the line.
	successor bool
}

var verifyTemplates = []writeTemplate{
	{kind: MTXPut, value: 1, status: MTXStatusActive, source: srcOld},
	{kind: MTXPut, value: 2, status: MTXStatusActive, source: srcNew},
	{kind: MTXPut, value: 2, status: MTXStatusActive, source: srcOther},
	{kind: MTXPut, value: 1, status: MTXStatusActive, source: srcUnk},
	{kind: MTXPut, value: 1, status: MTXStatusRevoked, source: srcNew},
	{kind: MTXPut, value: 1, status: MTXStatusActive, source: srcOld, interval: 1},
	{kind: MTXPut, value: 2, status: MTXStatusActive, source: srcNew, interval: 2},
	{kind: MTXRetract, noSource: true},
	{kind: MTXRetract, source: srcNew},
	{kind: MTXRetract, source: srcNew, successor: true},
}

func (t writeTemplate) write(rec int) MTXWrite {
	w := MTXWrite{Record: rec, Kind: t.kind, Successor: -1}
	if !t.noSource {
		w.Sources = []int{t.source}
	}
	if t.successor && rec+1 < vRecords {
		w.Successor = rec + 1
	}
	if t.kind == MTXPut {
		v := MTXVersion{Slots: []int32{t.value}, Status: t.status, IntervalOK: true, Supersedes: rec - 1,
			Citations: []int{t.source}}
		switch t.interval {
		case 0:
			v.From, v.Until = 0, 1000
		case 1:
			v.From, v.Until = 45, 1000
		case 2:
			v.From, v.Until = 0, 25
		}
		w.Version = v
	}
	return w
}

// vOp is one model operation.
type vOp struct {
	kind     int // 0 begin, 1 stage, 2 commit, 3 snapshot, 4 act on held snapshot, 5 act fresh
	rec, tpl int
	q        int32
	// full: the transaction holds every difference from the store (pending writes of records
	// it does not write are dropped), as the EAL adapter's transactions do.
	full bool
}

const (
	opBegin = iota
	opStage
	opCommit
	opSnap
	opActHeld
	opActFresh
)

// vState is the model's state: the store and a caller's held snapshot.
type vState struct {
	store *MTXStore
	held  *MTXSnapshot
}

func (s vState) clone() vState {
	c := vState{store: s.store.Clone()}
	if s.held != nil {
		h := *s.held
		c.held = &h
	}
	return c
}

// enabled lists the operations possible in a state.
func enabled(s vState) []vOp {
	var ops []vOp
	if s.store.open == nil {
		if s.store.seq < 8 {
			ops = append(ops, vOp{kind: opBegin}, vOp{kind: opBegin, full: true})
		}
	} else {
		if len(s.store.open.writes) < 2 {
			for r := 0; r < vRecords; r++ {
				for t := range verifyTemplates {
					ops = append(ops, vOp{kind: opStage, rec: r, tpl: t})
				}
			}
		}
		ops = append(ops, vOp{kind: opCommit})
	}
	ops = append(ops, vOp{kind: opSnap})
	for q := int32(1); q <= 2; q++ {
		if s.held != nil {
			ops = append(ops, vOp{kind: opActHeld, q: q})
		}
		ops = append(ops, vOp{kind: opActFresh, q: q})
	}
	return ops
}

type verifier struct {
	rep *MemTXVerifyReport
	// states counts the distinct states enumerated (over every parameter set), for progress.
	states   int
	progress func(phase string, done, total int)
}

// Progress is reported every traceTick traces and every stateTick new states.
const (
	traceTick = 500
	stateTick = 1 << 16
)

func (v *verifier) newState() {
	v.states++
	if v.progress != nil && v.states%stateTick == 0 {
		v.progress("states", v.states, -1)
	}
}

func (v *verifier) violate(inv, msg string) {
	v.rep.Violations++
	v.rep.ByInvariant[inv]++
	if len(v.rep.Examples) < 5 {
		v.rep.Examples = append(v.rep.Examples, inv+": "+msg)
	}
}

// step applies one operation to a copy of the state and checks the invariants.
func (v *verifier) step(s vState, op vOp) vState {
	n := s.clone()
	st := n.store
	switch op.kind {
	case opBegin:
		st.Begin(st.seq+1, int64(st.seq+1)*10, op.full)
	case opStage:
		st.Stage(verifyTemplates[op.tpl].write(op.rec))
	case opCommit:
		st.Commit()
	case opSnap:
		snap := st.Read(MTXIsolationFor(MTXTierExternalAction))
		n.held = &snap
	case opActHeld, opActFresh:
		snap := st.Read(MTXIsolationFor(MTXTierExternalAction))
		if op.kind == opActHeld {
			snap = *n.held
		}
		inFlight := st.open != nil && len(st.open.writes) > 0
		q := op.q
		dec := st.Act(snap, func(ver MTXVersion) bool { return ver.Slots[0] == q })
		if dec.Allowed {
			v.rep.ActionsChecked++
			v.checkI1(st, dec.Record, q, inFlight)
		}
	}
	v.checkI2(st)
	v.checkReasons(st)
	return n
}

// chainOf walks a record's ancestors through committed supersedes edges (the checker's own).
func chainOf(st *MTXStore, i int) []int {
	var out []int
	seen := map[int]bool{i: true}
	next := st.recs[i].ver.Supersedes
	for next >= 0 && next < len(st.recs) && !seen[next] {
		seen[next] = true
		out = append(out, next)
		if !st.recs[next].committed {
			break
		}
		next = st.recs[next].ver.Supersedes
	}
	return out
}

func pendingRevocation(r *mtxRecState) bool {
	if r.pending == nil {
		return false
	}
	w := r.pending
	return w.Kind == MTXRetract || w.Version.Status != MTXStatusActive
}

func (v *verifier) checkI1(st *MTXStore, rec int, q int32, inFlight bool) {
	r := &st.recs[rec]
	p := st.params
	where := "record " + strconv.Itoa(rec) + " seq " + strconv.Itoa(st.seq)
	if inFlight {
		v.violate("I1", "action ran with a tentative write in flight ("+where+")")
	}
	if !r.committed || r.state != MTXStateCommitted || r.cascaded {
		v.violate("I1", "action ran on a record not committed ("+r.state+", "+where+")")
		return
	}
	ver := r.ver
	if ver.Status != MTXStatusActive || !ver.IntervalOK || st.now < ver.From || st.now >= ver.Until {
		v.violate("I1", "action ran on a record not active and valid now ("+where+")")
	}
	least := 1.0
	for _, c := range ver.Citations {
		if a := st.sources[c].Authority; a < least {
			least = a
		}
	}
	if len(ver.Citations) == 0 {
		least = 0
	}
	if !(p.WriterConfidence >= p.MinConfidence || least >= p.MinAuthority) {
		v.violate("I1", "action ran on a record whose evidence is insufficient ("+where+")")
	}
	if r.pending != nil {
		v.violate("I1", "action ran on a record with a pending write ("+where+")")
	}
	for _, a := range chainOf(st, rec) {
		ar := &st.recs[a]
		if ar.state == MTXStateRevoked || ar.cascaded || pendingRevocation(ar) {
			v.violate("I1", "action ran under an ancestor revoked or pending revocation ("+where+")")
		}
	}
	if ver.Slots[0] != q {
		v.violate("I1", "action ran on a record that does not authorize it ("+where+")")
	}
}

func (v *verifier) checkI2(st *MTXStore) {
	for x := range st.recs {
		if st.recs[x].state != MTXStateRevoked {
			continue
		}
		under := map[int]bool{x: true}
		for d := range st.recs {
			if d == x || !st.recs[d].committed {
				continue
			}
			for _, a := range chainOf(st, d) {
				if a == x {
					under[d] = true
					if s := st.recs[d].state; s != MTXStateQuarantined && s != MTXStateRevoked && s != MTXStateSuperseded {
						v.violate("I2", fmt.Sprintf("record %d is %s though its ancestor %d is revoked (seq %d)", d, s, x, st.seq))
					}
				}
			}
		}
		for _, a := range st.actions {
			if under[a.Record] && !a.Leaked {
				v.violate("I2", fmt.Sprintf("action under record %d not logged as leaked after the revocation of %d", a.Record, x))
			}
		}
	}
}

// checkReasons: every quarantine, block and committed record short of action-safe says why.
func (v *verifier) checkReasons(st *MTXStore) {
	for _, rv := range st.View() {
		switch rv.State {
		case MTXStateQuarantined, MTXStateCommitted, MTXStateRevoked, MTXStateSuperseded:
			if len(rv.Reasons) == 0 {
				v.violate("reasons", fmt.Sprintf("record %d is %s with no reason", rv.Record, rv.State))
			}
		}
	}
}

// hashState is a 64-bit digest of everything the protocol's future depends on.
func hashState(s vState) uint64 {
	h := fnv.New64a()
	st := s.store
	var b []byte
	put := func(n int64) { b = strconv.AppendInt(b, n, 10); b = append(b, ',') }
	str := func(x string) { b = append(b, x...); b = append(b, ';') }
	put(int64(st.seq))
	put(st.now)
	if st.open != nil {
		put(1)
		if st.open.Full {
			put(2)
		}
		for _, w := range st.open.writes {
			put(int64(w.Record))
			put(int64(w.Kind))
			put(int64(len(w.Sources)))
			for _, src := range w.Sources {
				put(int64(src))
			}
			writeVersion(&b, w.Version)
		}
	}
	for i, r := range st.recs {
		put(int64(i))
		if r.known {
			put(1)
		}
		if r.committed {
			put(2)
			writeVersion(&b, r.ver)
		}
		for _, m := range r.meta {
			put(int64(m.seq))
			put(int64(m.authority * 10))
			put(int64(m.classes))
		}
		put(int64(r.lastSeq))
		str(r.state)
		str(r.reason)
		if r.pending != nil {
			put(int64(r.pending.Kind))
			writeVersion(&b, r.pending.Version)
			for _, src := range r.pending.Sources {
				put(int64(src))
			}
			str(r.pendState)
			str(r.pendWhy)
		}
		if r.cascaded {
			put(3)
		}
	}
	for _, a := range st.actions {
		put(int64(a.Record))
		put(int64(a.Seq))
		if a.Leaked {
			put(1)
		}
	}
	if s.held != nil {
		put(9)
		put(int64(s.held.Seq))
		for _, rv := range s.held.Records {
			put(int64(rv.Record))
			writeVersion(&b, *rv.Version)
		}
	}
	h.Write(b)
	return h.Sum64()
}

func writeVersion(b *[]byte, v MTXVersion) {
	for _, x := range v.Slots {
		*b = strconv.AppendInt(*b, int64(x), 10)
	}
	*b = append(*b, '|', byte('0'+v.Status))
	*b = strconv.AppendInt(*b, v.From, 10)
	*b = strconv.AppendInt(append(*b, '-'), v.Until, 10)
	*b = strconv.AppendInt(append(*b, '^'), int64(v.Supersedes), 10)
	for _, c := range v.Citations {
		*b = strconv.AppendInt(append(*b, '@'), int64(c), 10)
	}
	*b = append(*b, '/')
}

// verifyParams are the parameter sets checked: the default (evidence rests on authority) and
// a confident writer (evidence passes on confidence, so the conflict rule's authority
// comparisons and equal-authority quarantines are reached).
func verifyParams(broken string) []MemTXParams {
	def := DefaultMemTXParams()
	conf := DefaultMemTXParams()
	conf.WriterConfidence = 0.8
	def.broken, conf.broken = broken, broken
	return []MemTXParams{def, conf}
}

// VerifyMemTX runs the random traces and the bounded enumeration.
func VerifyMemTX(cfg MemTXVerifyConfig) MemTXVerifyReport {
	rep := MemTXVerifyReport{Bound: cfg.Bound, ByInvariant: map[string]int{}, Examples: []string{}}
	v := &verifier{rep: &rep, progress: cfg.Progress}
	params := verifyParams(cfg.broken)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d656d7478))
	for t := 0; t < cfg.Traces; t++ {
		s := vState{store: NewMTXStore(params[t%len(params)], verifySources)}
		for i := 0; i < cfg.TraceLength; i++ {
			ops := enabled(s)
			s = v.step(s, ops[rng.IntN(len(ops))])
			rep.TraceSteps++
		}
		rep.Traces++
		if cfg.Progress != nil && (rep.Traces%traceTick == 0 || rep.Traces == cfg.Traces) {
			cfg.Progress("traces", rep.Traces, cfg.Traces)
		}
	}
	for _, p := range params {
		seen := map[uint64]int{}
		root := vState{store: NewMTXStore(p, verifySources)}
		v.explore(root, cfg.Bound, seen)
		rep.StatesEnumerated += len(seen)
	}
	if cfg.Progress != nil {
		cfg.Progress("states", rep.StatesEnumerated, rep.StatesEnumerated)
	}
	return rep
}

// explore is a depth-bounded search that expands a state again when it is reached with more
// operations left than before, so every state within the bound is visited.
func (v *verifier) explore(s vState, left int, seen map[uint64]int) {
	h := hashState(s)
	prev, ok := seen[h]
	if ok && prev >= left {
		return
	}
	seen[h] = left
	if !ok {
		v.newState()
	}
	if left == 0 {
		return
	}
	for _, op := range enabled(s) {
		v.explore(v.step(s, op), left-1, seen)
	}
}
