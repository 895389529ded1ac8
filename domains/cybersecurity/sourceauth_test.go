package cybersecurity

import (
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestSourceAuthorityMatchesEALBench: the principal and authority capability of every turn of
// the shared case are exactly the ones EAL-Bench's source-authority adapter resolved.
func TestSourceAuthorityMatchesEALBench(t *testing.T) {
	ealtest.CheckSourceAuthority(t, Domain{}, sharedCase(t))
}

// TestSourceAuthorityBuiltin: the faithful memory of every built-in case, at every block,
// cites only visible turns of capable principals (ealtest.CheckFaithfulCitations).
func TestSourceAuthorityBuiltin(t *testing.T) {
	ealtest.CheckFaithfulCitations(t, Domain{})
}

// TestRecordCitationsListItems: list items are citations as they are, never split on " | ".
func TestRecordCitationsListItems(t *testing.T) {
	got := ealtest.CitationsOf(t, Domain{}, []any{"src_a | src_b", "src_c"})
	if want := []string{"src_a | src_b", "src_c"}; !slices.Equal(got, want) {
		t.Errorf("citations %q, want %q", got, want)
	}
}
