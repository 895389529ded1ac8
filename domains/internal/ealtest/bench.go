package ealtest

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// FaithfulTyped is the faithful typed memory of case c at block k, the way a run stores and
// reads it: the ledger replayed through k, serialised as the typed payload (its tree is
// returned too), and parsed back.
func FaithfulTyped(tb testing.TB, d engine.Domain, c *engine.Case, k int) (ledger []engine.Record, tree any, memory []engine.Record) {
	tb.Helper()
	ledger, err := d.Replay(c, k)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err = pyjson.Retree(d.TypedPayload(ledger))
	if err != nil {
		tb.Fatal(err)
	}
	memory, err = d.ParseTyped(tree)
	if err != nil {
		tb.Fatalf("%s block %d: %v", c.ID, k, err)
	}
	return ledger, tree, memory
}

// BenchFaithfulScoring measures the per-block scoring path of a faithful typed memory, the
// workspace's derivations: for every case and block, replay the ledger, serialise it as the
// typed payload, parse the payload back, compare it field by field with the ledger and decide
// formation for the case's probes. A faithful memory must score exact and form nothing. It
// reports cases/s; building the cases is the caller's, outside the timer.
func BenchFaithfulScoring(b *testing.B, d engine.Domain, cases []*engine.Case) {
	b.Helper()
	iterations := 0
	for b.Loop() {
		for _, c := range cases {
			for k := range c.Blocks {
				ledger, _, memory := FaithfulTyped(b, d, c, k)
				p := engine.Fidelity(d, c, k, ledger, memory)
				f := engine.Form(d, c, k, ledger, memory)
				if !p.Exact || f.Formed {
					b.Fatalf("%s block %d: faithful memory scored exact=%v formed=%v", c.ID, k, p.Exact, f.Formed)
				}
			}
		}
		iterations++
	}
	b.ReportMetric(float64(iterations*len(cases))/b.Elapsed().Seconds(), "cases/s")
}
