package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// TestSourceAuthorityMatchesEALBench: the principal and authority capability of every turn of
// the shared case are exactly the ones EAL-Bench's source-authority adapter resolved.
func TestSourceAuthorityMatchesEALBench(t *testing.T) {
	ealtest.CheckSourceAuthority(t, Domain{}, benchmarkCase(t))
}

// TestSourceAuthorityBuiltin: the faithful memory of every built-in case, at every block,
// cites only visible turns of capable principals (ealtest.CheckFaithfulCitations).
func TestSourceAuthorityBuiltin(t *testing.T) {
	ealtest.CheckFaithfulCitations(t, Domain{})
}

// benchmarkCase is the shared benchmark case (EALSCOPE_EAL_DATA).
func benchmarkCase(t *testing.T) *engine.Case {
	t.Helper()
	cases, err := Domain{}.ParseCorpus(benchmarkFile, readEAL(t, benchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	return cases[0]
}
