package cybersecurity

import "github.com/ealscope/ealscope/engine"

// EventSourcingSpec implements engine.EventSourcingRules with EAL-Bench's defaults for this
// domain (domains/registry.py): list provenance, null supersedes, only active records
// visible, and a replace names its target by the new record's supersedes.
func (Domain) EventSourcingSpec() engine.EventSourcingSpec {
	return engine.EventSourcingSpec{ReplacementTargetField: "supersedes"}
}
