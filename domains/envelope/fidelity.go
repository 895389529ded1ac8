package envelope

import (
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// FidelitySpec parameterises the toolkit's field-level fidelity (docs/FORMATS.md 7.1).
type FidelitySpec struct {
	Scope ScopeSpec
	// SortLists flattens scope lists as sorted tuples (cybersecurity, finance) rather than in
	// remembered order.
	SortLists bool
	// SameInstantExact treats two spellings of one instant (and a naive timestamp read as UTC)
	// as exact; cybersecurity has no such rule (a differently written equal instant is a
	// narrowing there).
	SameInstantExact bool
}

// envelopeFields are the flattened envelope fields, in EAL-Bench's _flatten order.
var envelopeFields = []string{"issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "supersedes", "source_turn_ids"}

// Fields lists the flattened field names compared per record: the envelope fields, then
// "scope.<name>" for every scope field in spec order.
func (s FidelitySpec) Fields() []string {
	out := append([]string{}, envelopeFields...)
	for _, f := range s.Scope.Fields {
		out = append(out, "scope."+f.Name)
	}
	return out
}

// Value flattens one field: strings as string or nil (None), ints as int64 or nil, lists as
// []string that is never nil (None and [] both read as the empty tuple, as in EAL-Bench's
// `tuple(x or ())`); scope lists sorted when SortLists.
func (s FidelitySpec) Value(r *Record, field string) any {
	if opt := r.optional(field); opt != nil {
		return pyjson.OrNull(*opt)
	}
	switch field {
	case "status":
		return r.State
	case "source_turn_ids":
		return append([]string{}, r.SourceTurnIDs...)
	}
	if len(field) > 6 && field[:6] == "scope." {
		f, ok := s.Scope.Field(field[6:])
		if !ok {
			return nil
		}
		v := r.Scope[f.Name]
		switch f.Kind {
		case ScopeList:
			l, _ := v.([]string)
			out := append([]string{}, l...)
			if s.SortLists {
				sort.Strings(out)
			}
			return out
		case ScopeInt:
			if n, ok := v.(int64); ok {
				return n
			}
			return nil
		default:
			if str, ok := v.(string); ok {
				return str
			}
			return nil
		}
	}
	return nil
}

var (
	classOmission   = engine.FieldClass{Errors: []string{"omission"}, Undergrant: true}
	classBroadening = engine.FieldClass{Errors: []string{"broadening"}, Overgrant: true}
	classNarrowing  = engine.FieldClass{Errors: []string{"narrowing"}, Undergrant: true}
	classStale      = engine.FieldClass{Errors: []string{"stale_retention"}, Overgrant: true}
)

// Classify is the toolkit domains' _classify: equal is exact; a missing (None or empty)
// remembered value is an omission (undergrant); scope lists compare as sets (strict superset
// broadens, strict subset narrows); bounded scope ints compare by their bound; validity
// times compare as instants (earlier valid_from or later valid_until broadens, anything else
// narrows); a remembered "active" where the ledger has another status is stale retention;
// any other difference is a contradiction that counts as both over- and undergrant for scope
// fields, issuer, grantee, effect and action, and as neither elsewhere.
func (s FidelitySpec) Classify(field string, canonical, remembered any) engine.FieldClass {
	if engine.ValuesEqual(canonical, remembered) {
		return engine.FieldClass{}
	}
	if remembered == nil {
		return classOmission
	}
	if l, ok := remembered.([]string); ok && len(l) == 0 {
		return classOmission
	}
	scoped := len(field) > 6 && field[:6] == "scope."
	if scoped {
		if f, ok := s.Scope.Field(field[6:]); ok {
			switch f.Kind {
			case ScopeList:
				c, _ := canonical.([]string)
				r, _ := remembered.([]string)
				switch {
				case engine.StrictSuperset(r, c):
					return classBroadening
				case engine.StrictSuperset(c, r):
					return classNarrowing
				}
			case ScopeInt:
				c, cok := canonical.(int64)
				r, rok := remembered.(int64)
				if cok && rok && f.Bound != NoBound {
					if (f.Bound == UpperBound) == (r > c) {
						return classBroadening
					}
					return classNarrowing
				}
			}
		}
	}
	switch field {
	case "valid_from", "valid_until":
		c, cok := engine.FieldInstant(canonical)
		r, rok := engine.FieldInstant(remembered)
		if cok && rok {
			if s.SameInstantExact && c.Equal(r) {
				return engine.FieldClass{}
			}
			if (field == "valid_from" && r.Before(c)) || (field == "valid_until" && r.After(c)) {
				return classBroadening
			}
			return classNarrowing
		}
	case "status":
		if remembered == StatusActive && canonical != StatusActive {
			return classStale
		}
	}
	if scoped || field == "issuer" || field == "grantee" || field == "effect" || field == "action" {
		return engine.FieldClass{Errors: []string{"contradiction"}, Overgrant: true, Undergrant: true}
	}
	return engine.FieldClass{Errors: []string{"contradiction"}}
}
