package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// BenchmarkReplayFidelityFormation is procurement's benchmark of the same name on 200
// generated cybersecurity cases (ealtest.BenchFaithfulScoring). Generation is outside the timer.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	ealtest.BenchFaithfulScoring(b, Domain{}, ealtest.Generated(b, 200, Generate, ToEngine))
}

// BenchmarkParseCorpus measures the strict reader (oracle separation included) on the
// generated corpus document.
func BenchmarkParseCorpus(b *testing.B) {
	data, err := GenerateCorpus(200, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := ParseCorpus("gen.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
