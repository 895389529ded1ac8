package safeguardtests_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// ppmfTrial is one faithful_typed trial of a generated case: the chain, the memory at the
// final block and the built-in executor's scored decision on one probe.
type ppmfTrial struct {
	c       *engine.Case
	probe   engine.Probe
	chain   []engine.MemoryVersion
	outcome engine.Outcome
}

func ppmfBenchTrials(b *testing.B, id string, n int) (engine.Domain, []ppmfTrial) {
	b.Helper()
	d, cases := generatedCases(b, id, n, 1)
	var trials []ppmfTrial
	for _, c := range cases {
		last := c.LastBlock()
		chain := faithfulChain(b, d, c, last)
		for _, p := range c.Probes {
			name, args := d.RequestCall(p)
			trials = append(trials, ppmfTrial{c: c, probe: p, chain: chain, outcome: scored(b, d, c, p, name, args, last)})
		}
	}
	return d, trials
}

// BenchmarkPPMF1000 runs the ppmf policy as replay.RunTrial does (transformation, then the
// gate on an action) over every probe of 1,000 generated cases of each domain, the
// faithful_typed chain of every block as the writer chain, the built-in executor's
// requested action as the decision, read as an incremental writer's chain. Generation,
// replay and scoring are outside the timer. Each iteration also checks the faithful
// path: every authorized request runs and every other one is blocked.
func BenchmarkPPMF1000(b *testing.B) {
	for _, id := range ppmfDomains {
		b.Run(id, func(b *testing.B) {
			d, trials := ppmfBenchTrials(b, id, ppmfBenchCases)
			p := safeguards.PPMF()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for _, tr := range trials {
					last := tr.c.LastBlock()
					ev := tr.chain[last].Evidence
					g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: tr.c, Block: last, Evidence: ev,
						Condition: "incremental_typed", Versions: tr.chain})
					if err != nil {
						b.Fatal(err)
					}
					if !engine.IsAction(tr.outcome.Decision) {
						continue
					}
					v := p.Gate.GateAction(engine.ActionInput{Domain: d, Case: tr.c, Block: last, Probe: tr.probe, Evidence: g.Evidence,
						Outcome: tr.outcome, Condition: "incremental_typed", Versions: tr.chain, Gated: &g})
					if v.Allowed != tr.outcome.RequestAuthorized {
						b.Fatalf("%s %s: allowed %v for an authorized=%v request: %s", tr.c.ID, tr.probe.ID, v.Allowed, tr.outcome.RequestAuthorized, v.Reason)
					}
				}
			}
			b.ReportMetric(float64(len(trials)), "trials/op")
		})
	}
}

// ppmfBenchCases is the number of generated cases per domain.
var ppmfBenchCases = benchCasesFromEnv()

// benchCasesFromEnv reads EALSCOPE_PPMF_BENCH_CASES (default 1,000), for profiling smaller runs.
func benchCasesFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("EALSCOPE_PPMF_BENCH_CASES")); err == nil && n > 0 {
		return n
	}
	return 1000
}
