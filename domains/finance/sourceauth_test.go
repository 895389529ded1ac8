package finance

import (
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// TestSourceAuthorityMatchesEALBench: the principal and authority capability of every turn of
// the shared case are exactly the ones EAL-Bench's source-authority adapter resolved.
func TestSourceAuthorityMatchesEALBench(t *testing.T) {
	ealtest.CheckSourceAuthority(t, Domain{}, sharedCase(t))
}

// TestSourceAuthorityBuiltin: the faithful memory of every built-in case, at every block,
// cites only visible turns of capable principals (ealtest.CheckFaithfulCitations).
func TestSourceAuthorityBuiltin(t *testing.T) {
	cases, err := engine.BuiltinCases(Domain{})
	if err != nil {
		t.Fatal(err)
	}
	ealtest.CheckFaithfulCitations(t, Domain{}, cases)
}

// TestRecordCitationsSplitFlatString: the flat record's source_turn_ids string is split on
// exactly " | " and the parts are not stripped; "a|b" stays one citation.
func TestRecordCitationsSplitFlatString(t *testing.T) {
	d := Domain{}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := d.Replay(cases[0], cases[0].LastBlock())
	if err != nil || len(ledger) == 0 {
		t.Fatalf("replay: %v (%d records)", err, len(ledger))
	}
	for _, tc := range []struct {
		joined string
		want   []string
	}{
		{"src_a | src_b", []string{"src_a", "src_b"}},
		{"src_a |  src_b", []string{"src_a", " src_b"}},
		{"src_a|src_b", []string{"src_a|src_b"}},
		{"  src_a  ", []string{"src_a"}},
		{"src_a | ", []string{"src_a |"}},
	} {
		payload := d.TypedPayload(ledger[:1])
		payload["authorizations"].([]any)[0].(map[string]any)["source_turn_ids"] = tc.joined
		records, err := d.ParseTyped(payload)
		if err != nil {
			t.Fatalf("%q: %v", tc.joined, err)
		}
		if got := d.RecordCitations(records[0]); !slices.Equal(got, tc.want) {
			t.Errorf("%q: citations %q, want %q", tc.joined, got, tc.want)
		}
	}
}
