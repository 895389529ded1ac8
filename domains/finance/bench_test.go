package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// BenchmarkReplayFidelityFormation is the per-case cost of the workspace's derivations on the
// built-in corpus (ealtest.BenchFaithfulScoring).
func BenchmarkReplayFidelityFormation(b *testing.B) {
	ealtest.BenchFaithfulScoring(b, Domain{}, ealtest.Builtin(b, Domain{}))
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
