package cybersecurity

import (
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestSourceAuthority: every turn of the shared case has the principal and authority
// capability EAL-Bench's source-authority adapter resolved, and the faithful memory of every
// built-in case, at every block, cites only visible turns of capable principals.
func TestSourceAuthority(t *testing.T) { ealtest.CheckSourceAuthorityRules(t, Domain{}, sharedCase) }

// TestRecordCitationsListItems: list items are citations as they are, never split on " | ".
func TestRecordCitationsListItems(t *testing.T) {
	got := ealtest.CitationsOf(t, Domain{}, []any{"src_a | src_b", "src_c"})
	if want := []string{"src_a | src_b", "src_c"}; !slices.Equal(got, want) {
		t.Errorf("citations %q, want %q", got, want)
	}
}
