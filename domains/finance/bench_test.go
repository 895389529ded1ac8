package finance

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// BenchmarkReplayFidelityFormation is the per-case cost of the workspace's derivations on the
// built-in corpus: the ledger at every block, the faithful typed memory read back, fidelity
// and formation against it.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	d := Domain{}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for _, c := range cases {
			for block := range c.Blocks {
				ledger, err := d.Replay(c, block)
				if err != nil {
					b.Fatal(err)
				}
				memory, err := d.ParseTyped(treeOf(b, d.TypedPayload(ledger)))
				if err != nil {
					b.Fatal(err)
				}
				_ = engine.Fidelity(d, c, block, ledger, memory)
				_ = engine.Form(d, c, block, ledger, memory)
			}
		}
	}
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

func treeOf(b *testing.B, v map[string]any) any {
	t, err := pyjson.Retree(v)
	if err != nil {
		b.Fatal(err)
	}
	return t
}
