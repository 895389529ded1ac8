package engine

// EventSourcingSpec is a domain's storage and lifecycle conventions for the bounded
// event-sourcing reducer (docs/FORMATS.md 8.2; EAL-Bench's domains/event_sourcing.py): how the
// domain's typed records keep provenance and "no predecessor", which records stay visible,
// and how its ledger events name what they replace. The reducer itself is domain-neutral.
type EventSourcingSpec struct {
	// RetainInactiveRecords keeps revoked and superseded records in the visible state
	// (procurement); otherwise only active records are visible.
	RetainInactiveRecords bool
	// SourceIDSeparator, when set, means a record's source_turn_ids is one string joined by
	// it (finance's flat " | "); when nil it is a list of strings.
	SourceIDSeparator *string
	// EmptySupersedes is the value a record's supersedes takes for "no predecessor" (finance
	// "none"); nil means JSON null.
	EmptySupersedes *string
	// ReplacementTargetField is the ledger event field that names the record a replace
	// supersedes ("supersedes", or procurement's "authorization_id").
	ReplacementTargetField string
	// OrderByEffectiveAt orders a case's canonical events by (block, effective_at, id)
	// rather than (block, id).
	OrderByEffectiveAt bool
	// NestedScopeFields are the ledger record fields that belong under the typed record's
	// scope object (procurement).
	NestedScopeFields []string
	// FlattenedScopeListFields are the scope list fields a flat record stores as one
	// separator-joined string (finance).
	FlattenedScopeListFields []string
}

// EventSourcingRules is the optional role of a domain that supports the
// bounded_event_sourced_typed condition.
type EventSourcingRules interface {
	EventSourcingSpec() EventSourcingSpec
}
