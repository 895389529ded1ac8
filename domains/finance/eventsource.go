package finance

import "github.com/ealscope/ealscope/engine"

// EventSourcingSpec implements engine.EventSourcingRules for the flat schema "5" (EAL-Bench's
// domains/registry.py): provenance is one " | "-joined string, "none" is no predecessor, the
// scope list fields are stored joined, and only active mandates are visible.
func (Domain) EventSourcingSpec() engine.EventSourcingSpec {
	sep, none := ListDelimiter, NoSupersedes
	return engine.EventSourcingSpec{
		SourceIDSeparator:        &sep,
		EmptySupersedes:          &none,
		ReplacementTargetField:   "supersedes",
		FlattenedScopeListFields: []string{fieldStrategies, fieldInstruments, fieldSides, fieldOrderTypes},
	}
}
