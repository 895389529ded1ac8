package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// BenchmarkReplayFidelityFormation measures the per-block scoring path of a faithful typed
// memory over 1,000 generated cases (ealtest.BenchFaithfulScoring). Generation is outside the
// timer.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	generated, err := Generate(1000, 1)
	if err != nil {
		b.Fatal(err)
	}
	cases := make([]*engine.Case, len(generated))
	for i, c := range generated {
		cases[i] = ToEngine(c, i+1)
	}
	ealtest.BenchFaithfulScoring(b, Domain{}, cases)
}
