package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestTypedParserAgreesWithEALBench runs every typed memory of the shared finance case in
// source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, the real writer memories and the hand-built edge memories): the
// parser refuses exactly what EAL-Bench's parse_typed refused, normalises the rest to the
// state EAL-Bench re-serialised, and the preservation payloads get the fidelity classes their
// recipes imply (EAL-Bench's expected_fidelity rows are not in the shared data).
func TestTypedParserAgreesWithEALBench(t *testing.T) {
	ealtest.CheckTypedParser(t, Domain{}, sharedCase(t), 66, map[string]string{
		"preservation:widened_max_limit_price_micros": "broadening",
		"preservation:contradicted_account_id":        "contradiction",
		"preservation:stale_state_block_1":            "broadening,contradiction",
	})
}
