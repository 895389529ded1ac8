package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// BenchmarkReplayFidelityFormation measures the per-block scoring path of a faithful typed
// memory over 1,000 generated cases (ealtest.BenchFaithfulScoring). Generation is outside the
// timer.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	ealtest.BenchFaithfulScoring(b, Domain{}, ealtest.Generated(b, 1000, Generate, ToEngine))
}
