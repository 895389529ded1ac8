// Package envelope is EAL-Bench's toolkit for the envelope domains (cybersecurity and finance,
// docs/FORMATS.md 3.1, 3.3-3.5, 4.2, 4.3, 7.1): one authorization record shape with a domain-owned
// scope, the multi-record evaluation, the active-only ledger replay, strict readers for the
// cases as EAL-Bench's persistence.jsonable writes them, the turn rendering and the generic
// fidelity rows. Everything a particular domain names (scope fields, literals, denial reasons)
// comes in through a ScopeSpec or a function argument; none of it lives here.
package envelope

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// ScopeKind is the JSON type of one scope field.
type ScopeKind int

const (
	// ScopeString is a string (or null).
	ScopeString ScopeKind = iota
	// ScopeList is a list of strings (or null).
	ScopeList
	// ScopeInt is an integer (or null).
	ScopeInt
)

// Bound says which way a numeric scope field widens a grant, for fidelity (docs/FORMATS.md 7.1:
// a larger maximum or a smaller minimum is a broadening).
type Bound int

const (
	// NoBound: any difference is a contradiction.
	NoBound Bound = iota
	// UpperBound: a larger remembered value broadens the grant.
	UpperBound
	// LowerBound: a smaller remembered value broadens the grant.
	LowerBound
)

// ScopeField is one field of a domain's scope object.
type ScopeField struct {
	Name  string
	Kind  ScopeKind
	Bound Bound
}

// ScopeSpec is a domain's scope object: its fields in the domain's declaration order.
type ScopeSpec struct {
	Fields []ScopeField
}

// Names lists the scope field names in order.
func (s ScopeSpec) Names() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// Field finds a scope field by name.
func (s ScopeSpec) Field(name string) (ScopeField, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return ScopeField{}, false
}

// Scope holds scope values: string, []string or int64 per field kind, or nil for null.
type Scope map[string]any

// Str is a string scope value ("" and false when absent or not a string).
func (s Scope) Str(name string) (string, bool) {
	v, ok := s[name].(string)
	return v, ok
}

// List is a list scope value (nil and false when absent or not a list).
func (s Scope) List(name string) ([]string, bool) {
	v, ok := s[name].([]string)
	return v, ok
}

// Int is an integer scope value.
func (s Scope) Int(name string) (int64, bool) {
	v, ok := s[name].(int64)
	return v, ok
}

// Clone copies the scope, lists included.
func (s Scope) Clone() Scope {
	out := make(Scope, len(s))
	for k, v := range s {
		if l, ok := v.([]string); ok {
			v = append([]string{}, l...)
		}
		out[k] = v
	}
	return out
}

// Record is EAL-Bench's AuthorizationEnvelope (domains/base.py): the common envelope fields
// plus a domain-specific scope. It is the shape of both ledger records and typed-memory
// records, so that one predicate judges both (docs/FORMATS.md 3.1).
type Record struct {
	ID            string
	Issuer        *string
	Grantee       *string
	Effect        *string
	Action        *string
	State         string
	ValidFrom     *string
	ValidUntil    *string
	Scope         Scope
	Supersedes    *string
	SourceTurnIDs []string
}

var _ engine.Record = (*Record)(nil)

// AuthorizationID implements engine.Record.
func (r *Record) AuthorizationID() string { return r.ID }

// Status implements engine.Record.
func (r *Record) Status() string { return r.State }

// Clone deep-copies the record.
func (r *Record) Clone() *Record {
	c := *r
	for _, field := range c.optionals() {
		*field = cloneStr(*field)
	}
	c.Scope = r.Scope.Clone()
	c.SourceTurnIDs = append([]string{}, r.SourceTurnIDs...)
	return &c
}

// optionalNames are the envelope names of a record's nullable string fields, in the order
// optionals returns the fields.
var optionalNames = []string{"issuer", "grantee", "effect", "action", "valid_from", "valid_until", "supersedes"}

// optionals are the record's nullable string fields, in optionalNames order.
func (r *Record) optionals() []**string {
	return []**string{&r.Issuer, &r.Grantee, &r.Effect, &r.Action, &r.ValidFrom, &r.ValidUntil, &r.Supersedes}
}

// optional is the record's nullable string field of the given envelope name, or nil for any
// other name: the one map of those names onto the fields, for patches and the fidelity
// flattening.
func (r *Record) optional(name string) **string {
	if i := slices.Index(optionalNames, name); i >= 0 {
		return r.optionals()[i]
	}
	return nil
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

// Str returns a pointer to s (for building records).
func Str(s string) *string { return &s }

// Deref returns *s, or "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Tree is the record as a JSON tree in EAL-Bench's to_dict shape (scope keys in spec order
// do not matter: the canonical encoder sorts keys).
func (r *Record) Tree(spec ScopeSpec) map[string]any {
	return map[string]any{
		"authorization_id": r.ID,
		"issuer":           pyjson.OrNull(r.Issuer),
		"grantee":          pyjson.OrNull(r.Grantee),
		"effect":           pyjson.OrNull(r.Effect),
		"action":           pyjson.OrNull(r.Action),
		"status":           r.State,
		"valid_from":       pyjson.OrNull(r.ValidFrom),
		"valid_until":      pyjson.OrNull(r.ValidUntil),
		"scope":            r.Scope.Tree(spec),
		"supersedes":       pyjson.OrNull(r.Supersedes),
		"source_turn_ids":  pyjson.StringList(r.SourceTurnIDs),
	}
}

// Tree is the scope as a JSON tree; every spec field is present (null when unset).
func (s Scope) Tree(spec ScopeSpec) map[string]any {
	out := make(map[string]any, len(spec.Fields))
	for _, f := range spec.Fields {
		switch v := s[f.Name].(type) {
		case []string:
			out[f.Name] = pyjson.StringList(v)
		case nil:
			out[f.Name] = nil
		default:
			out[f.Name] = v
		}
	}
	return out
}

// SortByID sorts records by authorization id, as every EAL-Bench state listing is.
func SortByID(records []*Record) {
	sort.SliceStable(records, func(i, j int) bool { return records[i].ID < records[j].ID })
}

// Generic converts records to the engine's record interface.
func Generic(records []*Record) []engine.Record {
	out := make([]engine.Record, len(records))
	for i, r := range records {
		out[i] = r
	}
	return out
}

// Records converts engine records back; a record of another domain is an error.
func Records(records []engine.Record) ([]*Record, error) {
	out := make([]*Record, len(records))
	for i, r := range records {
		e, ok := r.(*Record)
		if !ok {
			return nil, fmt.Errorf("record %s is a %T, not an envelope record", r.AuthorizationID(), r)
		}
		out[i] = e
	}
	return out, nil
}

// MustRecords is Records for records the domain itself produced.
func MustRecords(records []engine.Record) []*Record {
	out, err := Records(records)
	if err != nil {
		panic(err)
	}
	return out
}

// Evaluate is the toolkit's evaluate_records (docs/FORMATS.md 3.1) over envelope records: sorted by
// id, the first record without a denial authorizes ("authorized:<id>"), otherwise every
// record's reason is listed ("no_matching_authorization:<id>=<reason>;..."), and no records
// at all is "no_authorization_record". deny returns "" when the record covers the request.
func Evaluate(records []*Record, deny func(*Record) string) engine.Verdict {
	return engine.EvaluateRecords(Generic(records), func(r engine.Record) string { return deny(r.(*Record)) })
}
