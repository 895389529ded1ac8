package finance

import (
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestSourceAuthority: every turn of the shared case has the principal and authority
// capability EAL-Bench's source-authority adapter resolved, and the faithful memory of every
// built-in case, at every block, cites only visible turns of capable principals.
func TestSourceAuthority(t *testing.T) { ealtest.CheckSourceAuthorityRules(t, Domain{}, sharedCase) }

// TestRecordCitationsSplitFlatString: the flat record's source_turn_ids string is split on
// exactly " | " and the parts are not stripped; "a|b" stays one citation.
func TestRecordCitationsSplitFlatString(t *testing.T) {
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
		if got := ealtest.CitationsOf(t, Domain{}, tc.joined); !slices.Equal(got, tc.want) {
			t.Errorf("%q: citations %q, want %q", tc.joined, got, tc.want)
		}
	}
}
