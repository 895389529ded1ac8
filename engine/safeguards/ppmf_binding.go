package safeguards

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// PPMF's platform provenance (docs/POLICIES.md, PPMF): for each remembered record, the
// turns that were in the writer's input when each of its fields last changed, bound
// pointer-first (the record's cited turns that were in that input), else by canonical
// argument matching (input turns whose text carries the record's key values). Every
// candidate is kept and the least trusted governs; a record's trust is the least of its
// fields' (non-amplification); a field nothing binds is UNKNOWN (fails closed).

// The binding methods of a field group.
const (
	BindPointer  = "pointer"
	BindArgument = "argument"
	BindNone     = "unbound"
)

// The reasons a record's provenance carries (machine-readable code, then detail).
const (
	ReasonPPMFPointerBound     = "pointer_bound"
	ReasonPPMFArgumentMatched  = "argument_matched"
	ReasonPPMFAmbiguous        = "ambiguous_least_trusted"
	ReasonPPMFUnbound          = "unbound_fails_closed"
	ReasonPPMFNonAmplification = "non_amplification"
	ReasonPPMFSingleMemory     = "single_memory_written_at_block"
)

// BoundTurn is one turn a record's provenance bound to, with its trust and the domain rule
// that set it.
type BoundTurn struct {
	ID    string
	Block int
	Trust engine.Trust
	Rule  string
}

// FieldBinding is the provenance of the fields of a record that last changed at one block.
type FieldBinding struct {
	Fields []string
	// Block is the block whose writer input changed them; Input says what that input was.
	Block  int
	Input  string
	Method string
	Turns  []BoundTurn
	Trust  engine.Trust
}

// RecordProvenance is one record's provenance and trust.
type RecordProvenance struct {
	AuthorizationID string
	Record          engine.Record
	Citations       []string
	Bindings        []FieldBinding
	Trust           engine.Trust
	// Bound are the ids of every bound turn, in case order.
	Bound   []string
	Reasons []string
}

// MemoryProvenance is the provenance of every record of a memory at a block.
type MemoryProvenance struct {
	Block   int
	Records []RecordProvenance
}

// Lookup finds a record's provenance by authorization id.
func (m *MemoryProvenance) Lookup(id string) (RecordProvenance, bool) {
	for _, r := range m.Records {
		if r.AuthorizationID == id {
			return r, true
		}
	}
	return RecordProvenance{}, false
}

// Decisions are the records as the lab shows them: all kept (the executor sees the memory
// unchanged), each with its trust, bound sources and reasons.
func (m *MemoryProvenance) Decisions() []engine.RecordDecision {
	out := make([]engine.RecordDecision, 0, len(m.Records))
	for _, r := range m.Records {
		out = append(out, engine.RecordDecision{AuthorizationID: r.AuthorizationID, Kept: true,
			Reasons: append([]string{}, r.Reasons...), Sources: append([]string{}, r.Citations...),
			Trust: r.Trust.String(), BoundSources: append([]string{}, r.Bound...)})
	}
	return out
}

// ppmfRoles are the domain roles PPMF reads.
type ppmfRoles struct {
	authority engine.SourceAuthorityRules
	trust     engine.TrustRules
}

func rolesOf(d engine.DomainIdentity) (ppmfRoles, error) {
	sar, ok := d.(engine.SourceAuthorityRules)
	if !ok {
		return ppmfRoles{}, fmt.Errorf("ppmf: domain %s has no source-authority rules: %w", d.ID(), engine.ErrNotApplicable)
	}
	tr, ok := d.(engine.TrustRules)
	if !ok {
		return ppmfRoles{}, fmt.Errorf("ppmf: domain %s declares no trust schema: %w", d.ID(), engine.ErrNotApplicable)
	}
	return ppmfRoles{authority: sar, trust: tr}, nil
}

// memoryRecords reads a memory's records: none for an empty memory, the typed payload
// through the domain's schema, free text through the canonical layout. Full history and
// free text in any other layout have no records to bind: not applicable.
func memoryRecords(d engine.MemoryCodec, ev engine.Evidence) ([]engine.Record, error) {
	switch ev.Kind {
	case engine.EmptyEvidence:
		return nil, nil
	case engine.FullHistoryEvidence:
		return nil, fmt.Errorf("ppmf binds remembered records; full history has none: %w", engine.ErrNotApplicable)
	}
	switch p := ev.Payload.(type) {
	case nil:
		return nil, fmt.Errorf("ppmf: memory evidence has no payload: %w", engine.ErrNotApplicable)
	case string:
		recs, err := d.ReadFreeText(p)
		if err != nil {
			return nil, fmt.Errorf("ppmf binds records; this free text is not in the canonical layout (%v): %w", err, engine.ErrNotApplicable)
		}
		return recs, nil
	default:
		// A payload read from a run file already is a JSON tree; anything else goes through
		// JSON once, as the strict readers expect (pyjson.Retree).
		tree := any(p)
		if !isJSONTree(p) {
			var err error
			if tree, err = pyjson.Retree(p); err != nil {
				return nil, fmt.Errorf("ppmf: typed memory: %w", err)
			}
		}
		recs, err := d.ParseTyped(tree)
		if err != nil {
			return nil, fmt.Errorf("ppmf: typed memory: %w", err)
		}
		return recs, nil
	}
}

// payloadIdentity is the address of a typed payload's map (0 for anything else), so the
// same stored memory repeated along a chain is recognised without comparing it.
func payloadIdentity(p any) uintptr {
	if m, ok := p.(map[string]any); ok && m != nil {
		return reflect.ValueOf(m).Pointer()
	}
	return 0
}

// isJSONTree reports a value made only of what pyjson.DecodeTree produces.
func isJSONTree(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, json.Number:
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONTree(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isJSONTree(e) {
				return false
			}
		}
		return true
	}
	return false
}

// writerInput is the turns a writer of the condition had in its input when it wrote the
// memory of block k (docs/FORMATS.md 4.4, 8.2): an incremental or event-sourced writer sees block k
// alone (its earlier memory is its own text, not a source); a one-shot writer the whole
// history through k; a faithful or exact memory is the ledger replayed through k, whose
// sources are the turns of blocks 0..k. chainKnown false (one memory, no chain) reads the
// memory as written at k from everything visible.
func writerInput(c *engine.Case, condition string, chainKnown bool, k int) ([]engine.Turn, string) {
	perBlock := false
	if chainKnown {
		if cond, ok := engine.ConditionByID(condition); ok {
			perBlock = cond.Strategy == "incremental"
		} else {
			perBlock = strings.HasPrefix(condition, "incremental") || strings.HasPrefix(condition, "bounded_event_sourced")
		}
	}
	var out []engine.Turn
	for _, b := range c.Blocks {
		if b.Index > k || (perBlock && b.Index != k) {
			continue
		}
		out = append(out, b.Turns...)
	}
	if perBlock {
		return out, fmt.Sprintf("block %d", k)
	}
	return out, fmt.Sprintf("blocks 0..%d", k)
}

// BindProvenance binds every record of the memory shown at block to its platform
// provenance and trust.
func BindProvenance(d engine.Domain, c *engine.Case, block int, ev engine.Evidence, condition string, versions []engine.MemoryVersion) (*MemoryProvenance, error) {
	roles, err := rolesOf(d)
	if err != nil {
		return nil, err
	}
	current, err := memoryRecords(d, ev)
	if err != nil {
		return nil, err
	}
	// The chain's earlier memories, oldest first; the memory shown stands for block itself.
	type version struct {
		block   int
		records map[string]engine.Record
	}
	var chain []version
	var lastPayload uintptr
	for _, v := range versions {
		if v.Block >= block {
			continue
		}
		// A chain whose state did not change at a block holds the same payload again: read
		// it once.
		if id := payloadIdentity(v.Evidence.Payload); id != 0 && id == lastPayload && len(chain) > 0 {
			chain = append(chain, version{block: v.Block, records: chain[len(chain)-1].records})
			continue
		}
		recs, err := memoryRecords(d, v.Evidence)
		if err != nil {
			return nil, fmt.Errorf("ppmf: memory of block %d in the chain: %w", v.Block, err)
		}
		lastPayload = payloadIdentity(v.Evidence.Payload)
		chain = append(chain, version{block: v.Block, records: byID(recs)})
	}
	sort.SliceStable(chain, func(i, j int) bool { return chain[i].block < chain[j].block })
	chainKnown := versions != nil

	capable := map[string]bool{}
	for _, p := range roles.authority.AuthorityCapablePrincipals(c) {
		capable[p] = true
	}
	trustOf := func(t engine.Turn) BoundTurn {
		a := roles.trust.TurnTrust(c, t, capable[roles.authority.TurnPrincipal(t)])
		return BoundTurn{ID: t.ID, Block: t.BlockIndex, Trust: a.Level, Rule: a.Rule}
	}
	keyFields := keyFieldNames(d.Schema())
	fields := d.FidelityFields()

	out := &MemoryProvenance{Block: block}
	for _, r := range current {
		id := r.AuthorizationID()
		// The block each field last changed: the latest version where it differs from the
		// version before (a record absent before is new in every field).
		changed := map[string]int{}
		for _, f := range fields {
			last, prev, have := block, any(nil), false
			if !chainKnown {
				changed[f] = block
				continue
			}
			last = -1
			for _, v := range chain {
				pr, ok := v.records[id]
				var val any
				if ok {
					val = d.FieldValue(pr, f)
				}
				if ok != have || (ok && !reflect.DeepEqual(val, prev)) {
					last = v.block
				}
				prev, have = val, ok
			}
			if val := d.FieldValue(r, f); !have || !reflect.DeepEqual(val, prev) {
				last = block
			}
			changed[f] = last
		}
		rp := RecordProvenance{AuthorizationID: id, Record: r, Citations: roles.authority.RecordCitations(r)}
		if !chainKnown {
			rp.Reasons = append(rp.Reasons, ReasonPPMFSingleMemory+": one memory known, read as written at block "+strconv.Itoa(block)+" from every visible turn")
		}
		for _, b := range groupBlocks(changed) {
			var group []string
			for _, f := range fields {
				if changed[f] == b {
					group = append(group, f)
				}
			}
			fb := bindGroup(d, r, rp.Citations, group, keyFields, c, condition, chainKnown, b, trustOf)
			rp.Bindings = append(rp.Bindings, fb)
			rp.Reasons = append(rp.Reasons, fb.reason())
		}
		rp.finish()
		out.Records = append(out.Records, rp)
	}
	return out, nil
}

// bindGroup binds the fields that last changed at block b.
func bindGroup(d engine.FidelityRules, r engine.Record, citations, group []string, keyFields map[string]bool, c *engine.Case,
	condition string, chainKnown bool, b int, trustOf func(engine.Turn) BoundTurn) FieldBinding {
	input, label := writerInput(c, condition, chainKnown, b)
	fb := FieldBinding{Fields: group, Block: b, Input: label, Method: BindNone}
	cited := map[string]bool{}
	for _, id := range citations {
		cited[id] = true
	}
	for _, t := range input {
		if cited[t.ID] {
			fb.Turns = append(fb.Turns, trustOf(t))
		}
	}
	if len(fb.Turns) > 0 {
		fb.Method = BindPointer
	} else {
		id := normaliseText(r.AuthorizationID())
		var keys []string
		for _, f := range group {
			if keyFields[lastPathElement(f)] {
				for _, v := range valueTexts(d.FieldValue(r, f)) {
					keys = append(keys, normaliseText(v))
				}
			}
		}
		for _, t := range input {
			text := normaliseText(t.Content)
			if (id != "" && containsToken(text, id)) || (len(keys) > 0 && containsAll(text, keys)) {
				fb.Turns = append(fb.Turns, trustOf(t))
			}
		}
		if len(fb.Turns) > 0 {
			fb.Method = BindArgument
		}
	}
	levels := make([]engine.Trust, len(fb.Turns))
	for i, t := range fb.Turns {
		levels[i] = t.Trust
	}
	fb.Trust = engine.LeastTrust(levels...)
	return fb
}

func (fb FieldBinding) reason() string {
	fields := strings.Join(fb.Fields, ", ")
	switch fb.Method {
	case BindPointer:
		return fmt.Sprintf("%s: %s last changed at block %d; cited %s in the writer's input (%s): %s",
			ReasonPPMFPointerBound, fields, fb.Block, turnList(fb.Turns), fb.Input, fb.Trust)
	case BindArgument:
		code := ReasonPPMFArgumentMatched
		if len(fb.Turns) > 1 {
			code = ReasonPPMFAmbiguous
		}
		return fmt.Sprintf("%s: %s last changed at block %d; no cited turn in the writer's input (%s); %d input turns carry the record's key values (%s), the least trusted governs: %s",
			code, fields, fb.Block, fb.Input, len(fb.Turns), turnList(fb.Turns), fb.Trust)
	}
	return fmt.Sprintf("%s: %s last changed at block %d; no cited turn in the writer's input (%s) and no input turn carries the record's key values: %s",
		ReasonPPMFUnbound, fields, fb.Block, fb.Input, engine.TrustUnknown)
}

// finish takes the record's trust as the least of its bindings' and lists its bound turns.
func (rp *RecordProvenance) finish() {
	var levels []engine.Trust
	seen := map[string]bool{}
	var bound []BoundTurn
	distinct := map[engine.Trust]bool{}
	for _, fb := range rp.Bindings {
		levels = append(levels, fb.Trust)
		for _, t := range fb.Turns {
			distinct[t.Trust] = true
			if !seen[t.ID] {
				seen[t.ID] = true
				bound = append(bound, t)
			}
		}
	}
	rp.Trust = engine.LeastTrust(levels...)
	sort.SliceStable(bound, func(i, j int) bool { return bound[i].Block < bound[j].Block })
	for _, t := range bound {
		rp.Bound = append(rp.Bound, t.ID)
	}
	if len(distinct) > 1 {
		var names []string
		for _, l := range engine.TrustLevels() {
			if distinct[l] {
				names = append(names, l.String())
			}
		}
		rp.Reasons = append(rp.Reasons, fmt.Sprintf("%s: sources at %s; the record takes %s",
			ReasonPPMFNonAmplification, strings.Join(names, ", "), rp.Trust))
	}
}

func turnList(ts []BoundTurn) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.ID + " " + t.Trust.String() + " (" + t.Rule + ")"
	}
	return strings.Join(parts, ", ")
}

func byID(recs []engine.Record) map[string]engine.Record {
	out := make(map[string]engine.Record, len(recs))
	for _, r := range recs {
		out[r.AuthorizationID()] = r
	}
	return out
}

// groupBlocks lists the distinct change blocks, earliest first.
func groupBlocks(changed map[string]int) []int {
	return slices.Compact(slices.Sorted(maps.Values(changed)))
}
