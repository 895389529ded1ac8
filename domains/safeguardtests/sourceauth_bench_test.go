package safeguardtests_test

import (
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// BenchmarkSourceAuthorityGate: the gate policy on the faithful memory of every block of 200
// generated cases per domain (generated, replayed and serialised outside the timer), as the
// lab applies it to every memory version of a chain. Each memory must keep every record.
func BenchmarkSourceAuthorityGate(b *testing.B) {
	policy := safeguards.SourceAuthorityGate()
	for _, id := range domains.IDs() {
		b.Run(id, func(b *testing.B) {
			d, cases := generatedCases(b, id, 200, 1)
			var inputs []engine.MemoryInput
			records := 0
			for _, c := range cases {
				for block := 0; block <= c.LastBlock(); block++ {
					ledger, err := d.Replay(c, block)
					if err != nil {
						b.Fatal(err)
					}
					records += len(ledger)
					inputs = append(inputs, engine.MemoryInput{Domain: d, Case: c, Block: block, Evidence: typedEvidence(d, ledger)})
				}
			}
			b.ResetTimer()
			for b.Loop() {
				for _, in := range inputs {
					g, err := policy.Memory.TransformMemory(in)
					if err != nil {
						b.Fatal(err)
					}
					for _, r := range g.Records {
						if !r.Kept {
							b.Fatalf("%s block %d: faithful record %s removed (%v)", in.Case.ID, in.Block, r.AuthorizationID, r.Reasons)
						}
					}
				}
			}
			b.ReportMetric(float64(len(inputs)), "memories/op")
			b.ReportMetric(float64(records), "records/op")
		})
	}
}
