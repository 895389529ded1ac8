package safeguards

// The MemTX policy over an EAL writer chain (docs/POLICIES.md "MemTX"). Each accepted memory
// version at block k is one transaction at logical time Blocks[k].EndedAt; every difference
// between the version and the committed store (a new record, changed fields, a status change,
// a dropped record) is a staged write; the store's four checks decide it. The executor is
// shown the committed records (the low-risk tier escalation and decline read at); its act
// decision runs only if an action-safe record of the snapshot authorizes the request (the
// external-action tier, invariant I1).

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// MemTXID is the policy id.
const MemTXID = "memtx"

// mtxStatusOf maps the envelope's shared status values (docs/FORMATS.md 4.2, every domain) to the
// store's; any other value is MTXStatusOther.
var mtxStatusOf = map[string]MTXStatus{
	"active":     MTXStatusActive,
	"revoked":    MTXStatusRevoked,
	"superseded": MTXStatusSuperseded,
}

// MemTX is the policy with default parameters.
func MemTX() engine.Policy { return NewMemTX(DefaultMemTXParams()) }

// NewMemTX is the policy with chosen parameters.
func NewMemTX(p MemTXParams) engine.Policy {
	m := memtxPolicy{params: p}
	return engine.Policy{ID: MemTXID, Version: "memtx_commit_v1",
		Description: "MemTX transactional belief commit: writes are staged and admitted by evidence, validity, conflict and dependency checks; the executor sees committed records and acts only on an action-safe one",
		Memory:      m, Gate: m}
}

type memtxPolicy struct{ params MemTXParams }

// memtxRun is one chain replayed through the store.
type memtxRun struct {
	d       engine.Domain
	c       *engine.Case
	rules   engine.SourceAuthorityRules
	store   *MTXStore
	ids     []string
	index   map[string]int
	srcKey  map[string]int
	sources []MTXSource
	values  map[string]int32
	classes map[string]int
	capable map[string]bool
	latest  map[int]engine.Record // the record as last written
	// versions caches the reading of a record by its canonical JSON.
	versions map[string]cachedVersion
	schema   engine.RecordSchema
}

// TransformMemory implements engine.MemoryTransform.
func (m memtxPolicy) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	run, err := m.replay(in.Domain, in.Case, in.Block, in.Evidence, true, in.Versions)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	snap := run.store.Read(MTXIsolationFor(MTXTierLow))
	var shown []engine.Record
	for _, v := range snap.Records {
		shown = append(shown, v.Version.Payload.(engine.Record))
	}
	tree, err := pyjson.Retree(in.Domain.TypedPayload(shown))
	if err != nil {
		return engine.GatedMemory{}, fmt.Errorf("memtx: committed memory: %w", err)
	}
	ev := in.Evidence
	ev.Kind, ev.Payload = engine.MemoryEvidence, tree
	shownIDs := map[int]bool{}
	for _, v := range snap.Records {
		shownIDs[v.Record] = true
	}
	var decisions []engine.RecordDecision
	for _, v := range run.store.View() {
		rec := run.latest[v.Record]
		if v.Version != nil {
			rec = v.Version.Payload.(engine.Record)
		}
		sources := []string{}
		if rec != nil {
			sources = append(sources, run.rules.RecordCitations(rec)...)
		}
		reasons := []string{}
		for _, r := range v.Reasons {
			reasons = append(reasons, run.named(r))
		}
		decisions = append(decisions, engine.RecordDecision{AuthorizationID: run.ids[v.Record], Kept: shownIDs[v.Record],
			Reasons: reasons, Sources: sources, State: v.State})
	}
	sort.SliceStable(decisions, func(a, b int) bool { return decisions[a].AuthorizationID < decisions[b].AuthorizationID })
	return engine.GatedMemory{Evidence: ev, Records: decisions}, nil
}

// GateAction implements engine.ActionGate: the action runs only if an action-safe record of
// the external-action snapshot authorizes the request (the domain's own predicate applied
// to the action-safe records, never the ledger).
func (m memtxPolicy) GateAction(in engine.ActionInput) engine.GateDecision {
	if in.Outcome.Decision != engine.ExecuteRequested {
		// The action taken is not the request, and which request it is lives in the domain's
		// tool arguments: no action-safe record can be shown to authorize it.
		return engine.GateDecision{Allowed: false, Reason: "memtx:" + TxReasonNoActionSafe + ":action_differs_from_request"}
	}
	// The gate is shown the memory the transformation let through, not the one written: the
	// chain is replayed and that memory merged on top (no retractions, pending writes kept),
	// and a record may act only if the transformation's own decision on it was committed with
	// nothing pending (at most outside its window at the block's end, which the action's own
	// instant decides).
	run, err := m.replay(in.Domain, in.Case, in.Block, in.Evidence, len(in.Versions) == 0, in.Versions)
	if err != nil {
		return engine.GateDecision{Allowed: false, Reason: "memtx:not_estimable:" + err.Error()}
	}
	eligible := func(id string) bool { return true }
	if in.Gated != nil {
		ok := map[string]bool{}
		for _, r := range in.Gated.Records {
			if r.State != MTXStateCommitted && r.State != MTXStateActionSafe {
				continue
			}
			clean := true
			for _, why := range r.Reasons {
				if why != TxReasonNotValidNow {
					clean = false
				}
			}
			ok[r.AuthorizationID] = clean
		}
		eligible = func(id string) bool { return ok[id] }
	}
	// The action runs at its own instant (the request's action time, when the domain names
	// one and it is later than the block's end): logical now moves there first.
	if clock, ok := in.Domain.(engine.ActionClock); ok {
		if at, ok := clock.ActionTime(in.Probe.Request); ok {
			if t, aware, err := engine.ParseISOTime(at); err == nil && aware && t.Unix() > run.store.now {
				run.store.Advance(in.Block, t.Unix())
			}
		}
	}
	snap := run.store.Read(MTXIsolationFor(MTXTierExternalAction))
	dec := run.store.Act(snap, func(v MTXVersion) bool {
		rec := v.Payload.(engine.Record)
		return eligible(rec.AuthorizationID()) && in.Domain.Deny(in.Case, rec, in.Probe.Request) == ""
	})
	if dec.Allowed {
		return engine.GateDecision{Allowed: true, Reason: "memtx:" + dec.Reason + ":" + run.ids[dec.Record]}
	}
	var safe []engine.Record
	for _, v := range snap.Records {
		safe = append(safe, v.Version.Payload.(engine.Record))
	}
	verdict := engine.Authorizes(in.Domain, in.Case, safe, in.Probe.Request)
	return engine.GateDecision{Allowed: false, Reason: "memtx:" + dec.Reason + ":" + verdict.Reason}
}

// replay runs the chain's versions through 0..block as transactions. Without versions the
// memory is one transaction at block from nothing (engine.MemoryInput).
//
// final is the memory at block; when it differs from the last version it is one more
// transaction, holding every difference from the store (finalFull: dropped records are
// retracted) or merged on top (new and changed records only).
func (m memtxPolicy) replay(d engine.Domain, c *engine.Case, block int, ev engine.Evidence, finalFull bool, versions []engine.MemoryVersion) (*memtxRun, error) {
	if ev.Kind != engine.MemoryEvidence {
		return nil, fmt.Errorf("memtx reads typed memory records, not %s evidence: %w", evidenceKindName(ev.Kind), engine.ErrNotApplicable)
	}
	if _, ok := ev.Payload.(string); ok {
		return nil, fmt.Errorf("memtx reads typed memory records, not free text: %w", engine.ErrNotApplicable)
	}
	rules, ok := d.(engine.SourceAuthorityRules)
	if !ok {
		return nil, fmt.Errorf("memtx: domain %s declares no source authority rules", d.ID())
	}
	if block < 0 || block >= len(c.Blocks) {
		return nil, fmt.Errorf("memtx: case %s has no block %d", c.ID, block)
	}
	run := &memtxRun{d: d, c: c, rules: rules, index: map[string]int{}, srcKey: map[string]int{},
		values: map[string]int32{}, classes: map[string]int{"": 0}, capable: map[string]bool{},
		latest: map[int]engine.Record{}, schema: d.Schema(), versions: map[string]cachedVersion{}}
	for _, p := range rules.AuthorityCapablePrincipals(c) {
		run.capable[p] = true
	}
	var chain []engine.MemoryVersion
	for _, v := range versions {
		if v.Block <= block {
			chain = append(chain, v)
		}
	}
	final, err := pyjson.CanonicalJSON(ev.Payload)
	if err != nil {
		return nil, fmt.Errorf("memtx: memory at block %d: %w", block, err)
	}
	finalIndex := -1
	if n := len(chain); n == 0 {
		chain = []engine.MemoryVersion{{Block: block, Evidence: ev}}
		finalIndex = 0
	} else if last, err := pyjson.CanonicalJSON(chain[n-1].Evidence.Payload); err != nil || last != final {
		chain = append(chain, engine.MemoryVersion{Block: block, Evidence: ev})
		finalIndex = n
	}
	// Sources are appended while versions are read; the store reads them through run.
	run.store = NewMTXStore(m.params, nil)
	prev := ""
	lastSeq := -1
	for i, v := range chain {
		if v.Evidence.Kind != engine.MemoryEvidence {
			continue
		}
		text, err := pyjson.CanonicalJSON(v.Evidence.Payload)
		if err != nil {
			return nil, fmt.Errorf("memtx: memory at block %d: %w", v.Block, err)
		}
		if text == prev {
			continue // no_change: no update, no transaction
		}
		prev = text
		if err := run.transaction(v.Block, v.Evidence.Payload, i != finalIndex || finalFull); err != nil {
			return nil, err
		}
		lastSeq = v.Block
	}
	if block > lastSeq {
		now, err := run.now(block)
		if err != nil {
			return nil, err
		}
		run.store.sources = run.sources
		run.store.Advance(block, now)
	}
	return run, nil
}

func evidenceKindName(k engine.EvidenceKind) string {
	switch k {
	case engine.EmptyEvidence:
		return "empty"
	case engine.FullHistoryEvidence:
		return "full-history"
	}
	return "memory"
}

func (r *memtxRun) now(block int) (int64, error) {
	t, aware, err := engine.ParseISOTime(r.c.Blocks[block].EndedAt)
	if err != nil || !aware {
		return 0, fmt.Errorf("memtx: case %s block %d: ended_at %q is not an aware ISO timestamp", r.c.ID, block, r.c.Blocks[block].EndedAt)
	}
	return t.Unix(), nil
}

func (r *memtxRun) recordIndex(id string) int {
	if i, ok := r.index[id]; ok {
		return i
	}
	r.index[id] = len(r.ids)
	r.ids = append(r.ids, id)
	return len(r.ids) - 1
}

// transaction stages every difference between the version written at block and the store.
func (r *memtxRun) transaction(block int, payload any, full bool) error {
	// Chain payloads are JSON trees already; one built in Go is taken through JSON first.
	records, err := r.d.ParseTyped(payload)
	if err != nil {
		tree, terr := pyjson.Retree(payload)
		if terr != nil {
			return fmt.Errorf("memtx: memory at block %d: %w", block, terr)
		}
		if records, err = r.d.ParseTyped(tree); err != nil {
			return fmt.Errorf("memtx: memory at block %d: %w", block, err)
		}
	}
	now, err := r.now(block)
	if err != nil {
		return err
	}
	type staged struct {
		idx int
		ver MTXVersion
	}
	var puts []staged
	present := map[int]bool{}
	successor := map[int]int{}
	for _, rec := range records {
		ver, err := r.version(rec, block)
		if err != nil {
			return fmt.Errorf("memtx: memory at block %d, record %s: %w", block, rec.AuthorizationID(), err)
		}
		idx := r.recordIndex(rec.AuthorizationID())
		present[idx] = true
		r.latest[idx] = rec
		puts = append(puts, staged{idx, ver})
		if ver.Supersedes >= 0 {
			successor[ver.Supersedes] = idx
		}
	}
	r.store.sources = r.sources
	r.store.Begin(block, now, full)
	citesOf := map[int][]int{}
	for _, p := range puts {
		citesOf[p.idx] = p.ver.Citations
	}
	for _, p := range puts {
		st := r.store.state(p.idx)
		if st.committed && mtxSameVersion(st.ver, p.ver) {
			continue
		}
		r.store.Stage(MTXWrite{Record: p.idx, Kind: MTXPut, Version: p.ver, Sources: mtxNewCitations(st, p.ver.Citations)})
	}
	for i := range r.ids {
		st := r.store.state(i)
		if !full || present[i] || !st.committed || st.state == MTXStateRevoked || st.state == MTXStateSuperseded {
			continue
		}
		// A dropped record is withdrawn: superseded when a record of this version names it
		// (that record's citations are the evidence), else revoked on no cited evidence.
		w := MTXWrite{Record: i, Kind: MTXRetract, Successor: -1}
		if s, ok := successor[i]; ok {
			w.Successor, w.Sources = s, citesOf[s]
		}
		r.store.Stage(w)
	}
	r.store.Commit()
	return nil
}

// state reads a record of the store (a zero record when unknown).
func (s *MTXStore) state(i int) mtxRecState {
	if i < len(s.recs) {
		return s.recs[i]
	}
	return mtxRecState{}
}

// mtxNewCitations are the citations a version adds to the committed one (all of them when it
// adds none: the write then rests on what it cites).
func mtxNewCitations(st mtxRecState, cites []int) []int {
	if !st.committed {
		return cites
	}
	had := map[int]bool{}
	for _, c := range st.ver.Citations {
		had[c] = true
	}
	var out []int
	for _, c := range cites {
		if !had[c] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cites
	}
	return out
}

// version reduces a record to what the protocol reads, through the schema's roles.
func (r *memtxRun) version(rec engine.Record, block int) (MTXVersion, error) {
	payload := r.d.TypedPayload([]engine.Record{rec})
	auths, _ := payload["authorizations"].([]any)
	if len(auths) != 1 {
		return MTXVersion{}, errors.New("record does not serialise as one typed record")
	}
	tree, _ := auths[0].(map[string]any)
	// A record written again unchanged reads the same, unless a turn it cites was not yet
	// visible when it was first read (consecutive versions share most records).
	key, err := pyjson.CanonicalJSON(tree)
	if err != nil {
		return MTXVersion{}, err
	}
	if c, ok := r.versions[key]; ok && !c.future {
		v := c.ver
		v.Payload = rec
		return v, nil
	}
	v, err := r.readVersion(rec, tree, block)
	if err != nil {
		return MTXVersion{}, err
	}
	future := false
	for _, i := range v.Citations {
		future = future || r.sources[i].Problem == TxReasonFutureProvenance
	}
	r.versions[key] = cachedVersion{ver: v, future: future}
	return v, nil
}

type cachedVersion struct {
	ver    MTXVersion
	future bool
}

func (r *memtxRun) readVersion(rec engine.Record, tree map[string]any, block int) (MTXVersion, error) {
	v := MTXVersion{Supersedes: -1, Payload: rec}
	for _, f := range r.schema.Fields {
		if f.Role == engine.RoleID {
			continue
		}
		text, err := pyjson.CanonicalJSON(engine.GetPath(tree, f.Path))
		if err != nil {
			return MTXVersion{}, fmt.Errorf("field %s: %w", f.Path, err)
		}
		id, ok := r.values[text]
		if !ok {
			id = int32(len(r.values) + 1)
			r.values[text] = id
		}
		v.Slots = append(v.Slots, id)
	}
	v.Status = mtxStatusOf[rec.Status()]
	from, okFrom := r.timestamp(tree, engine.RoleValidFrom)
	until, okUntil := r.timestamp(tree, engine.RoleValidUntil)
	v.From, v.Until, v.IntervalOK = from, until, okFrom && okUntil && from < until
	if f, ok := r.schema.ByRole(engine.RoleSupersedes); ok {
		if s, ok := engine.GetPath(tree, f.Path).(string); ok && s != "" && (f.NullText == "" || s != f.NullText) {
			v.Supersedes = r.recordIndex(s)
		}
	}
	for _, turn := range r.rules.RecordCitations(rec) {
		v.Citations = append(v.Citations, r.source(turn, block))
	}
	return v, nil
}

func (r *memtxRun) timestamp(tree map[string]any, role engine.FieldRole) (int64, bool) {
	f, ok := r.schema.ByRole(role)
	if !ok {
		return 0, false
	}
	s, ok := engine.GetPath(tree, f.Path).(string)
	if !ok {
		return 0, false
	}
	t, aware, err := engine.ParseISOTime(s)
	if err != nil || !aware {
		return 0, false
	}
	return t.Unix(), true
}

// source is a cited turn as the platform knows it at the transaction's block: its principal
// (the domain's SourceAuthorityRules, never the memory's text), visibility and block.
func (r *memtxRun) source(turn string, block int) int {
	t, ok := r.c.Turn(turn)
	// A visible turn reads the same at every block; a turn not yet visible is keyed apart.
	key := turn
	if ok && t.BlockIndex > block {
		key = turn + "\x00future"
	}
	if i, ok := r.srcKey[key]; ok {
		return i
	}
	src := MTXSource{Turn: turn, Block: -1}
	switch {
	case !ok:
		src.Problem = TxReasonUnknownProvenance
	case t.BlockIndex > block:
		src.Problem, src.Block = TxReasonFutureProvenance, t.BlockIndex
	default:
		src.Block = t.BlockIndex
		p := r.rules.TurnPrincipal(t)
		if r.capable[p] {
			src.Authority, src.Class = 1, 0
		} else {
			src.Authority, src.Problem = 0.5, TxReasonNotAuthorityCapable
			c, ok := r.classes[p]
			if !ok {
				c = len(r.classes)
				r.classes[p] = c
			}
			src.Class = c
		}
	}
	r.srcKey[key] = len(r.sources)
	r.sources = append(r.sources, src)
	return len(r.sources) - 1
}

// named rewrites the record indices in a reason as authorization ids and slot indices as
// field paths, so reasons read in the domain's own names.
func (r *memtxRun) named(reason string) string {
	parts := strings.Split(reason, ":")
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		if strings.HasPrefix(p, "slot=") {
			if n, err := strconv.Atoi(p[5:]); err == nil {
				parts[i] = "field=" + r.slotPath(n)
			}
			continue
		}
		if n, err := strconv.Atoi(p); err == nil && n >= 0 && n < len(r.ids) && isRecordReason(parts[i-1]) {
			parts[i] = r.ids[n]
		}
	}
	return strings.Join(parts, ":")
}

func isRecordReason(code string) bool {
	switch code {
	case TxReasonDerivedFromRevoked, TxReasonAncestorRevoked, TxReasonPendingRevocationAn, TxReasonAncestorPending, TxReasonSupersededByRecord:
		return true
	}
	return false
}

func (r *memtxRun) slotPath(n int) string {
	i := 0
	for _, f := range r.schema.Fields {
		if f.Role == engine.RoleID {
			continue
		}
		if i == n {
			return f.Path
		}
		i++
	}
	return strconv.Itoa(n)
}
