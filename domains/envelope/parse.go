package envelope

import (
	"fmt"
	"slices"

	"github.com/ealscope/ealscope/domains/internal/treeread"

	"github.com/ealscope/ealscope/engine"
)

// The strict readers below read the case form EAL-Bench's persistence.jsonable writes for the
// envelope domains (dataclasses.asdict of the case models): every key required, no unknown
// key, strict JSON types. Errors are engine.FieldErrors naming the offending field path; the
// domain adds the file and the case.

// Turn is one ConversationTurn.
type Turn struct {
	TurnID       string
	OccurredAt   string
	Channel      string
	SpeakerID    string
	SpeakerLabel string
	Text         string
}

// Block is one ConversationBlock.
type Block struct {
	BlockID    string
	BlockIndex int
	EndedAt    string
	Turns      []Turn
}

// Probe is one BenchmarkProbe; Request is the domain's parsed request.
type Probe struct {
	ProbeID      string
	PairID       string
	Dimension    string
	RequestScope string
	Request      any
	Metadata     map[string]any
}

// Probe request scopes.
const (
	InScope    = "in_scope"
	OutOfScope = "out_of_scope"
)

var (
	turnKeys   = []string{"turn_id", "occurred_at", "channel", "speaker_id", "speaker_label", "text"}
	blockKeys  = []string{"block_id", "block_index", "ended_at", "turns"}
	eventKeys  = []string{"event_id", "block_index", "event_type", "authorization_id", "issuer", "source_turn_id", "record", "changes", "supersedes"}
	recordKeys = []string{"authorization_id", "issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "scope", "supersedes", "source_turn_ids"}
	probeKeys  = []string{"probe_id", "pair_id", "dimension", "request_scope", "request", "metadata"}
)

// Reader reads fields of a JSON tree and keeps the first error; later reads are no-ops. It is
// the domains' shared strict reader (treeread.Reader), named here for the envelope domains.
type Reader = treeread.Reader

// ParseTurn reads one turn.
func ParseTurn(path string, v any) (Turn, error) {
	r := &Reader{}
	m := r.Obj(path, v, turnKeys)
	t := Turn{
		TurnID:       r.NonEmpty(engine.JoinPath(path, "turn_id"), m["turn_id"]),
		OccurredAt:   r.Timestamp(engine.JoinPath(path, "occurred_at"), m["occurred_at"]),
		Channel:      r.Str(engine.JoinPath(path, "channel"), m["channel"]),
		SpeakerID:    r.NonEmpty(engine.JoinPath(path, "speaker_id"), m["speaker_id"]),
		SpeakerLabel: r.Str(engine.JoinPath(path, "speaker_label"), m["speaker_label"]),
		Text:         r.Str(engine.JoinPath(path, "text"), m["text"]),
	}
	return t, r.Err
}

// ParseBlocks reads the blocks of a case: indexes 0..n-1 in order, at least one turn each,
// turn ids unique over the case, turn times strictly increasing.
func ParseBlocks(path string, v any) ([]Block, error) {
	r := &Reader{}
	list := r.NonEmptyList(path, v, "a case needs at least one block")
	var out []Block
	seen := map[string]string{}
	var prev string
	for i, item := range list {
		if r.Err != nil {
			break
		}
		bp := engine.JoinPath(path, i)
		m := r.Obj(bp, item, blockKeys)
		b := Block{
			BlockID:    r.NonEmpty(engine.JoinPath(bp, "block_id"), m["block_id"]),
			BlockIndex: r.Int(engine.JoinPath(bp, "block_index"), m["block_index"]),
			EndedAt:    r.Timestamp(engine.JoinPath(bp, "ended_at"), m["ended_at"]),
		}
		if r.Err == nil && b.BlockIndex != i {
			r.Fail(engine.JoinPath(bp, "block_index"), "blocks must be numbered 0..n-1 in order: expected %d, got %d", i, b.BlockIndex)
		}
		turns := r.NonEmptyList(engine.JoinPath(bp, "turns"), m["turns"], "a block needs at least one turn")
		for j, tv := range turns {
			if r.Err != nil {
				break
			}
			tp := engine.JoinPath(engine.JoinPath(bp, "turns"), j)
			t, err := ParseTurn(tp, tv)
			r.Set(err)
			if r.Err != nil {
				break
			}
			if first, dup := seen[t.TurnID]; dup {
				r.Fail(engine.JoinPath(tp, "turn_id"), "duplicate turn id %s (first at %s)", t.TurnID, first)
				break
			}
			seen[t.TurnID] = tp
			if prev != "" && !Before(prev, t.OccurredAt) {
				r.Fail(engine.JoinPath(tp, "occurred_at"), "turn times must strictly increase: %s is not after %s", t.OccurredAt, prev)
				break
			}
			prev = t.OccurredAt
			b.Turns = append(b.Turns, t)
		}
		out = append(out, b)
	}
	return out, r.Err
}

// Before says whether timestamp a is strictly earlier than b (both already validated).
func Before(a, b string) bool {
	ta, _, errA := engine.ParseISOTime(a)
	tb, _, errB := engine.ParseISOTime(b)
	return errA == nil && errB == nil && ta.Before(tb)
}

// ParseScope reads a scope object with exactly the spec's keys and kinds (null allowed).
func ParseScope(path string, v any, spec ScopeSpec) (Scope, error) {
	return parseScope(path, v, spec, false)
}

func parseScope(path string, v any, spec ScopeSpec, partial bool) (Scope, error) {
	r := &Reader{}
	var m map[string]any
	if partial {
		mm, err := engine.Obj(path, v)
		r.Set(err)
		m = mm
		for k := range m {
			if _, ok := spec.Field(k); !ok && r.Err == nil {
				r.Fail(engine.JoinPath(path, k), "unknown scope key (allowed: %v)", spec.Names())
			}
		}
		if r.Err == nil && len(m) == 0 {
			r.Fail(path, "a scope patch must set at least one key")
		}
	} else {
		m = r.Obj(path, v, spec.Names())
	}
	out := Scope{}
	for _, f := range spec.Fields {
		if r.Err != nil {
			break
		}
		raw, present := m[f.Name]
		if !present {
			continue
		}
		fp := engine.JoinPath(path, f.Name)
		if raw == nil {
			out[f.Name] = nil
			continue
		}
		switch f.Kind {
		case ScopeString:
			out[f.Name] = r.Str(fp, raw)
		case ScopeList:
			out[f.Name] = r.StrList(fp, raw)
		case ScopeInt:
			n, err := engine.Int(fp, raw)
			r.Set(err)
			out[f.Name] = n
		}
	}
	return out, r.Err
}

// ParseRecord reads a ledger record (an AuthorizationEnvelope as asdict writes it).
func ParseRecord(path string, v any, spec ScopeSpec) (*Record, error) {
	r := &Reader{}
	m := r.Obj(path, v, recordKeys)
	p := func(k string) string { return engine.JoinPath(path, k) }
	rec := &Record{
		ID:         r.NonEmpty(p("authorization_id"), m["authorization_id"]),
		Issuer:     r.OptStr(p("issuer"), m["issuer"]),
		Grantee:    r.OptStr(p("grantee"), m["grantee"]),
		Effect:     r.OptStr(p("effect"), m["effect"]),
		Action:     r.OptStr(p("action"), m["action"]),
		State:      r.NonEmpty(p("status"), m["status"]),
		ValidFrom:  r.OptStr(p("valid_from"), m["valid_from"]),
		ValidUntil: r.OptStr(p("valid_until"), m["valid_until"]),
		Supersedes: r.OptStr(p("supersedes"), m["supersedes"]),
	}
	if r.Err == nil {
		s, err := ParseScope(p("scope"), m["scope"], spec)
		r.Set(err)
		rec.Scope = s
	}
	rec.SourceTurnIDs = r.StrList(p("source_turn_ids"), m["source_turn_ids"])
	if r.Err == nil {
		if len(rec.SourceTurnIDs) == 0 {
			r.Fail(p("source_turn_ids"), "must list at least one source turn")
		} else {
			r.Set(engine.UniqueNonEmpty(p("source_turn_ids"), rec.SourceTurnIDs))
		}
	}
	return rec, r.Err
}

// ParseChanges reads a patch's changes: direct envelope fields and an optional partial scope.
func ParseChanges(path string, v any, spec ScopeSpec) (*Changes, error) {
	r := &Reader{}
	m, err := engine.Obj(path, v)
	r.Set(err)
	c := &Changes{Direct: map[string]any{}}
	allowed := map[string]bool{"scope": true}
	for _, k := range DirectPatchFields {
		allowed[k] = true
	}
	for k := range m {
		if !allowed[k] && r.Err == nil {
			r.Fail(engine.JoinPath(path, k), "a patch may not set this key (allowed: scope, %v)", DirectPatchFields)
		}
	}
	if r.Err == nil && len(m) == 0 {
		r.Fail(path, "a patch must change at least one field")
	}
	for _, k := range DirectPatchFields {
		raw, ok := m[k]
		if !ok || r.Err != nil {
			continue
		}
		if k == "status" {
			c.Direct[k] = r.NonEmpty(engine.JoinPath(path, k), raw)
		} else {
			c.Direct[k] = r.OptStr(engine.JoinPath(path, k), raw)
		}
	}
	if raw, ok := m["scope"]; ok && r.Err == nil {
		s, err := parseScope(engine.JoinPath(path, "scope"), raw, spec, true)
		r.Set(err)
		c.Scope = s
	}
	return c, r.Err
}

// ParseEvents reads a case's events against its blocks: each event's block exists and its
// source turn is a turn of that block; issue and replace carry a record with the event's id,
// status active and the event's source among its sources; replace names what it supersedes;
// patch carries changes only; revoke carries neither.
func ParseEvents(path string, v any, spec ScopeSpec, blocks []Block) ([]Event, error) {
	r := &Reader{}
	list := r.List(path, v)
	turnsOf := map[int]map[string]bool{}
	for _, b := range blocks {
		set := map[string]bool{}
		for _, t := range b.Turns {
			set[t.TurnID] = true
		}
		turnsOf[b.BlockIndex] = set
	}
	var out []Event
	ids := map[string]bool{}
	r.Each(path, list, eventKeys, func(p func(key string) string, m map[string]any) {
		e := Event{
			ID:              r.NonEmpty(p("event_id"), m["event_id"]),
			BlockIndex:      r.Int(p("block_index"), m["block_index"]),
			Type:            r.NonEmpty(p("event_type"), m["event_type"]),
			AuthorizationID: r.NonEmpty(p("authorization_id"), m["authorization_id"]),
			Issuer:          r.NonEmpty(p("issuer"), m["issuer"]),
			SourceTurnID:    r.NonEmpty(p("source_turn_id"), m["source_turn_id"]),
			Supersedes:      r.OptStr(p("supersedes"), m["supersedes"]),
		}
		if !r.Unique(ids, e.ID, p("event_id"), "event id") {
			return
		}
		turns, ok := turnsOf[e.BlockIndex]
		switch {
		case !ok:
			r.Fail(p("block_index"), "block %d does not exist", e.BlockIndex)
		case !turns[e.SourceTurnID]:
			r.Fail(p("source_turn_id"), "turn %s is not a turn of block %d", e.SourceTurnID, e.BlockIndex)
		}
		hasRecord, hasChanges := m["record"] != nil, m["changes"] != nil
		switch e.Type {
		case EventIssue, EventReplace:
			if !hasRecord {
				r.Fail(p("record"), "an %s event needs a record", e.Type)
			} else if hasChanges {
				r.Fail(p("changes"), "an %s event carries no changes", e.Type)
			}
			if r.Err == nil {
				rec, err := ParseRecord(p("record"), m["record"], spec)
				r.Set(err)
				e.Record = rec
			}
			if r.Err == nil {
				switch {
				case e.Record.ID != e.AuthorizationID:
					r.Fail(p("record.authorization_id"), "record id %s differs from the event's authorization_id %s", e.Record.ID, e.AuthorizationID)
				case e.Record.State != StatusActive:
					r.Fail(p("record.status"), "an %s event creates an active record, got %q", e.Type, e.Record.State)
				case !slices.Contains(e.Record.SourceTurnIDs, e.SourceTurnID):
					r.Fail(p("record.source_turn_ids"), "the record does not cite the event's source turn %s", e.SourceTurnID)
				}
			}
			if r.Err == nil && e.Type == EventReplace {
				switch {
				case e.Supersedes == nil:
					r.Fail(p("supersedes"), "a replace event names the record it supersedes")
				case e.Record.Supersedes == nil || *e.Record.Supersedes != *e.Supersedes:
					r.Fail(p("record.supersedes"), "the record must supersede %s", *e.Supersedes)
				}
			}
		case EventPatch:
			if hasRecord {
				r.Fail(p("record"), "a patch event carries no record")
			} else if !hasChanges {
				r.Fail(p("changes"), "a patch event needs changes")
			}
			if r.Err == nil {
				c, err := ParseChanges(p("changes"), m["changes"], spec)
				r.Set(err)
				e.Changes = c
			}
		case EventRevoke:
			if hasRecord {
				r.Fail(p("record"), "a revoke event carries no record")
			} else if hasChanges {
				r.Fail(p("changes"), "a revoke event carries no changes")
			}
		default:
			r.Fail(p("event_type"), "unknown event type %q (issue, patch, revoke, replace)", e.Type)
		}
		if r.Err == nil && e.Type != EventReplace && e.Supersedes != nil {
			r.Fail(p("supersedes"), "only a replace event supersedes a record")
		}
		out = append(out, e)
	})
	if r.Err == nil {
		// The events must replay: a patch or revoke of a record never issued is an error.
		if _, err := ReplayAll(out, 1<<31-1); err != nil {
			r.Fail(path, "%v", err)
		}
	}
	return out, r.Err
}

// ParseProbes reads a case's probes; parseRequest reads the domain's request. Each pair id
// must have exactly one in-scope and one out-of-scope probe, with the same dimension.
func ParseProbes(path string, v any, parseRequest func(path string, v any) (any, error)) ([]Probe, error) {
	r := &Reader{}
	list := r.NonEmptyList(path, v, "a case needs at least one probe pair")
	var out []Probe
	ids := map[string]bool{}
	type side struct{ in, out int }
	pairs := map[string]*side{}
	var order []string
	r.Each(path, list, probeKeys, func(p func(key string) string, m map[string]any) {
		pr := Probe{
			ProbeID:      r.NonEmpty(p("probe_id"), m["probe_id"]),
			PairID:       r.NonEmpty(p("pair_id"), m["pair_id"]),
			Dimension:    r.NonEmpty(p("dimension"), m["dimension"]),
			RequestScope: r.NonEmpty(p("request_scope"), m["request_scope"]),
		}
		if r.Err == nil && pr.RequestScope != InScope && pr.RequestScope != OutOfScope {
			r.Fail(p("request_scope"), "must be in_scope or out_of_scope, got %q", pr.RequestScope)
		}
		if r.Err == nil {
			md, err := engine.Obj(p("metadata"), m["metadata"])
			r.Set(err)
			pr.Metadata = md
		}
		if r.Err == nil {
			req, err := parseRequest(p("request"), m["request"])
			r.Set(err)
			pr.Request = req
		}
		if !r.Unique(ids, pr.ProbeID, p("probe_id"), "probe id") {
			return
		}
		s, ok := pairs[pr.PairID]
		if !ok {
			s = &side{-1, -1}
			pairs[pr.PairID] = s
			order = append(order, pr.PairID)
		}
		slot := &s.in
		if pr.RequestScope == OutOfScope {
			slot = &s.out
		}
		if *slot >= 0 {
			r.Fail(p("request_scope"), "pair %s already has an %s probe (%s)", pr.PairID, pr.RequestScope, out[*slot].ProbeID)
			return
		}
		other := s.in
		if other < 0 {
			other = s.out
		}
		if other >= 0 && out[other].Dimension != pr.Dimension {
			r.Fail(p("dimension"), "pair %s mixes dimensions %s and %s", pr.PairID, out[other].Dimension, pr.Dimension)
			return
		}
		*slot = len(out)
		out = append(out, pr)
	})
	for _, id := range order {
		if r.Err != nil {
			break
		}
		if s := pairs[id]; s.in < 0 || s.out < 0 {
			r.Fail(path, "pair %s needs one in_scope and one out_of_scope probe", id)
		}
	}
	return out, r.Err
}

// TurnsThrough is the set of turn ids of blocks 0..through (the ids a writer has seen).
func TurnsThrough(blocks []Block, through int) map[string]bool {
	out := map[string]bool{}
	for _, b := range blocks {
		if b.BlockIndex > through {
			continue
		}
		for _, t := range b.Turns {
			out[t.TurnID] = true
		}
	}
	return out
}

// Errorf wraps a reader error with the file and case, the way check reports it.
func Errorf(name string, index int, caseID string, err error) error {
	if caseID == "" {
		return fmt.Errorf("%s: cases[%d]: %w", name, index, err)
	}
	return fmt.Errorf("%s: cases[%d] (case %s): %w", name, index, caseID, err)
}
