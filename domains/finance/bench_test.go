package finance

import (
	"github.com/ealscope/ealscope/engine"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// BenchmarkReplayFidelityFormation is the per-case cost of the workspace's derivations on the
// built-in corpus (ealtest.BenchFaithfulScoring).
func BenchmarkReplayFidelityFormation(b *testing.B) {
	d := Domain{}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		b.Fatal(err)
	}
	ealtest.BenchFaithfulScoring(b, d, cases)
}

// BenchmarkParseBuiltinCorpus is the strict reader on the built-in corpus (six cases).
func BenchmarkParseBuiltinCorpus(b *testing.B) {
	name, data := Domain{}.BuiltinCorpus()
	b.SetBytes(int64(len(data)))
	for range b.N {
		if _, err := (Domain{}).ParseCorpus(name, data); err != nil {
			b.Fatal(err)
		}
	}
}
