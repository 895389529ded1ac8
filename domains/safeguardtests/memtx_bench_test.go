package safeguardtests_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// benchCases is the corpus size of the benchmark (1,000 in docs/BENCHMARKS.md).
var benchCases = 1000

func init() {
	if n, err := strconv.Atoi(os.Getenv("EALSCOPE_MEMTX_BENCH_CASES")); err == nil && n > 0 {
		benchCases = n
	}
}

type benchChain struct {
	c     *engine.Case
	chain []engine.MemoryVersion
}

// generatedChains are n generated cases of a domain with their faithful writer chains.
func generatedChains(b *testing.B, id string, n int) (engine.Domain, []benchChain) {
	d, cases := generatedCases(b, id, n, 1)
	out := make([]benchChain, 0, len(cases))
	for _, c := range cases {
		out = append(out, benchChain{c, faithfulChain(b, d, c, c.LastBlock())})
	}
	return d, out
}

// BenchmarkMemTX1000Cases: one op is MemTX over 1,000 generated cases of a domain: the
// transformation and the gate for every probe at the final block (faithful chains).
func BenchmarkMemTX1000Cases(b *testing.B) {
	p := safeguards.MemTX()
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		b.Run(id, func(b *testing.B) {
			d, chains := generatedChains(b, id, benchCases)
			trials := 0
			for _, ch := range chains {
				trials += len(ch.c.Probes)
			}
			b.ReportMetric(float64(trials), "trials/op")
			for b.Loop() {
				for _, ch := range chains {
					last := ch.c.LastBlock()
					ev := ch.chain[last].Evidence
					for _, pr := range ch.c.Probes {
						g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: ch.c, Block: last, Evidence: ev, Versions: ch.chain})
						if err != nil {
							b.Fatal(err)
						}
						p.Gate.GateAction(engine.ActionInput{Domain: d, Case: ch.c, Block: last, Probe: pr, Evidence: g.Evidence,
							Outcome: engine.Outcome{Decision: engine.ExecuteRequested}, Versions: ch.chain, Gated: &g})
					}
				}
			}
		})
	}
}
