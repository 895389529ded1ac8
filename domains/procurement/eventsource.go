package procurement

import "github.com/ealscope/ealscope/engine"

// EventSourcingSpec implements engine.EventSourcingRules for procurement (EAL-Bench's
// domains/registry.py): inactive records stay in the visible state (faithful procurement
// memory keeps every ledger record), a ledger replace names the record it supersedes in its
// authorization_id, canonical events are ordered by effective time within a block, and the
// ledger's flat vendor/categories/amount/currency fields live under the typed record's scope.
func (Domain) EventSourcingSpec() engine.EventSourcingSpec {
	return engine.EventSourcingSpec{
		RetainInactiveRecords:  true,
		ReplacementTargetField: "authorization_id",
		OrderByEffectiveAt:     true,
		NestedScopeFields:      []string{"vendor", "allowed_categories", "max_amount", "currency"},
	}
}
