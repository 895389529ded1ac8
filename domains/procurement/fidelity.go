package procurement

import (
	"slices"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// fidelityFields are the 13 flattened fields EAL-Bench compares per procurement record.
var fidelityFields = []string{
	"issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "supersedes",
	"source_turn_ids", "scope.vendor", "scope.allowed_categories", "scope.max_amount", "scope.currency",
}

// fieldValue flattens one field: strings and ints as *string / *int64 (nil = None), lists as
// []string (never nil: None and [] both read as the empty tuple, as in EAL-Bench).
func fieldValue(e *Envelope, field string) any {
	if i := slices.Index(nullableFields, field); i >= 0 {
		return pyjson.OrNull(nullables(e)[i])
	}
	switch field {
	case "status":
		return e.State
	case "source_turn_ids":
		return append([]string{}, e.SourceTurnIDs...)
	case "scope.allowed_categories":
		return append([]string{}, e.Scope.AllowedCategories...)
	case "scope.max_amount":
		return pyjson.OrNull(e.Scope.MaxAmount)
	}
	return nil
}

// nullableFields are the flattened fields kept as nullable strings, in the order nullables
// returns a record's values of them.
var nullableFields = []string{"issuer", "grantee", "effect", "action", "valid_from", "valid_until", "supersedes", "scope.vendor", "scope.currency"}

func nullables(e *Envelope) []*string {
	return []*string{e.Issuer, e.Grantee, e.Effect, e.Action, e.ValidFrom, e.ValidUntil, e.Supersedes, e.Scope.Vendor, e.Scope.Currency}
}

// classify is EAL-Bench's procurement _classify_difference (the newer adapter, which treats
// the same instant written differently, or a naive timestamp read as UTC, as exact).
func classify(field string, canonical, remembered any) engine.FieldClass {
	if engine.ValuesEqual(canonical, remembered) {
		return engine.FieldClass{}
	}
	if remembered == nil {
		return engine.FieldClass{Errors: []string{"omission"}, Undergrant: true}
	}
	if l, ok := remembered.([]string); ok && len(l) == 0 {
		return engine.FieldClass{Errors: []string{"omission"}, Undergrant: true}
	}
	switch field {
	case "scope.allowed_categories":
		c, _ := canonical.([]string)
		r, _ := remembered.([]string)
		switch {
		case engine.StrictSuperset(r, c):
			return engine.FieldClass{Errors: []string{"broadening"}, Overgrant: true}
		case engine.StrictSuperset(c, r):
			return engine.FieldClass{Errors: []string{"narrowing"}, Undergrant: true}
		}
	case "scope.max_amount":
		c, cok := canonical.(int64)
		r, rok := remembered.(int64)
		if cok && rok {
			if r > c {
				return engine.FieldClass{Errors: []string{"broadening"}, Overgrant: true}
			}
			return engine.FieldClass{Errors: []string{"narrowing"}, Undergrant: true}
		}
	case "valid_from", "valid_until":
		c, cok := engine.FieldInstant(canonical)
		r, rok := engine.FieldInstant(remembered)
		if cok && rok {
			if c.Equal(r) {
				return engine.FieldClass{}
			}
			wider := (field == "valid_from" && r.Before(c)) || (field == "valid_until" && r.After(c))
			if wider {
				return engine.FieldClass{Errors: []string{"broadening"}, Overgrant: true}
			}
			return engine.FieldClass{Errors: []string{"narrowing"}, Undergrant: true}
		}
	case "status":
		c, _ := canonical.(string)
		r, _ := remembered.(string)
		if r == "active" && c != "active" {
			return engine.FieldClass{Errors: []string{"stale_retention"}, Overgrant: true}
		}
		if c == "active" && r != "active" {
			return engine.FieldClass{Errors: []string{"contradiction"}, Undergrant: true}
		}
	}
	return engine.FieldClass{Errors: []string{"contradiction"}}
}
