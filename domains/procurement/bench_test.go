package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// BenchmarkReplayFidelityFormation measures the per-block scoring path of a faithful typed
// memory over 1,000 generated cases: for every case and block, replay the ledger, serialise it
// as the typed payload, parse the payload back, compare it field by field with the ledger and
// decide formation for the case's probes. Generation is outside the timer.
func BenchmarkReplayFidelityFormation(b *testing.B) {
	const n = 1000
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
