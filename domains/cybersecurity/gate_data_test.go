package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestTypedParserAgreesWithEALBench runs the typed memories of the shared cybersecurity case
// recorded in source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, a real writer memory and hand-built edge memories): the parser must
// refuse exactly the memories EAL-Bench's parse_typed refused, and normalise the accepted ones
// to the state EAL-Bench re-serialised (whitespace stripped), and the domain's preservation
// payloads get the fidelity classes their recipes imply.
func TestTypedParserAgreesWithEALBench(t *testing.T) {
	ealtest.CheckTypedParser(t, Domain{}, sharedCase(t), 44, map[string]string{
		"preservation:widened_approved_actions": "broadening",
		"preservation:contradicted_incident_id": "contradiction",
	})
}
