package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// BenchmarkReplayFidelityFormation is procurement's benchmark of the same name on generated
// cybersecurity cases: for every case and block, replay the active ledger, serialise it as the
// typed payload, parse it back, compare it field by field and decide formation for the eight
// probes. Generation is outside the timer.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	const n = 200
	generated, err := Generate(n, 1)
	if err != nil {
		b.Fatal(err)
	}
	cases := make([]*engine.Case, len(generated))
	for i, c := range generated {
		cases[i] = ToEngine(c, i+1)
	}
	d := Domain{}
	iterations := 0
	for b.Loop() {
		for _, c := range cases {
			for k := range c.Blocks {
				ledger, err := d.Replay(c, k)
				if err != nil {
					b.Fatal(err)
				}
				tree, err := pyjson.Retree(d.TypedPayload(ledger))
				if err != nil {
					b.Fatal(err)
				}
				memory, err := d.ParseTyped(tree)
				if err != nil {
					b.Fatal(err)
				}
				p := engine.Fidelity(d, c, k, ledger, memory)
				f := engine.Form(d, c, k, ledger, memory)
				if !p.Exact || f.Formed {
					b.Fatalf("%s block %d: faithful memory scored exact=%v formed=%v", c.ID, k, p.Exact, f.Formed)
				}
			}
		}
		iterations++
	}
	b.ReportMetric(float64(iterations*n)/b.Elapsed().Seconds(), "cases/s")
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
