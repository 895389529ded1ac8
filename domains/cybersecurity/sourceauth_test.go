package cybersecurity

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

// TestRecordCitationsListItems: list items are citations as they are, never split on " | ".
func TestRecordCitationsListItems(t *testing.T) {
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
	payload := d.TypedPayload(ledger[:1])
	payload["authorizations"].([]any)[0].(map[string]any)["source_turn_ids"] = []any{"src_a | src_b", "src_c"}
	records, err := d.ParseTyped(payload)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.RecordCitations(records[0]), []string{"src_a | src_b", "src_c"}; !slices.Equal(got, want) {
		t.Errorf("citations %q, want %q", got, want)
	}
}
