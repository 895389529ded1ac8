package workbench_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
)

// BenchmarkSafeguardsRun is the lab over a built-in run: the benchmark workspace
// (benchWorkspace: N = $EALSCOPE_BENCH_CASES or 1,000 generated procurement cases; not
// timed). Timed: every registered policy on every chain, built-in executor, at the final block, as `ealscope safeguards --run` does it: "store" saves each chain in its
// transaction, "evaluate" only computes. The figures are in docs/BENCHMARKS.md.
//
//	go test ./replay/workbench -run '^$' -bench SafeguardsRun -benchtime 1x -timeout 60m
func BenchmarkSafeguardsRun(b *testing.B) {
	ctx := context.Background()
	store, runID, n := benchWorkspace(b, 1000)
	policies := safeguards.All()
	var ids []string
	for _, p := range policies {
		ids = append(ids, p.ID)
	}
	b.Logf("%d cases, policies %s", n, strings.Join(ids, ", "))
	for _, mode := range []string{"store", "evaluate"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				start := time.Now()
				chains, keys, _, err := workbench.LoadSafeguardRun(ctx, store, runID)
				if err != nil {
					b.Fatal(err)
				}
				loaded := time.Since(start)
				spec := replay.SafeguardRunSpec{Chains: chains, SafeguardArmSettings: builtinArms(policies, engine.Domain(procurement.Domain{}), 20260821),
					Workers: runtime.GOMAXPROCS(0)}
				if mode == "store" {
					spec.Save = workbench.SaveSafeguards(store, keys, replay.TrialsAtFinalBlock)
				}
				res, err := replay.EvaluateRun(ctx, spec)
				if err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				b.ReportMetric(float64(len(res.Chains)), "chains")
				b.ReportMetric(float64(len(res.Chains))/elapsed.Seconds(), "chains/s")
				b.ReportMetric(loaded.Seconds(), "load-s")
				b.ReportMetric(elapsed.Seconds(), "wall-s")
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
		})
	}
}
