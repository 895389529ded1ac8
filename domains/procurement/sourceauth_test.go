package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// TestSourceAuthority: every turn of the shared case has the principal and authority
// capability EAL-Bench's source-authority adapter resolved, and the faithful memory of every
// built-in case, at every block, cites only visible turns of capable principals.
func TestSourceAuthority(t *testing.T) { ealtest.CheckSourceAuthorityRules(t, Domain{}, benchmarkCase) }
