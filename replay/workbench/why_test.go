package workbench_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// TestScriptedFaultTurnRankedFirstAndAblationStops: on scripted runs of the three built-in
// domains, for every chain that forms false authority and every probe forming at its first
// false-authority block, ealscope's first-ranked turn is the source turn of a fault the
// scripted writer recorded there, and re-running the writer without that turn stops the
// failure.
func TestScriptedFaultTurnRankedFirstAndAblationStops(t *testing.T) {
	ctx := context.Background()
	for _, domain := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(domain, func(t *testing.T) {
			store, runID, _ := scriptedWorkspace(t, replay.ScriptedRun{Domain: domain, Corpus: replay.BuiltinCorpus, Conditions: "all",
				Seed: 7, Version: "test", Concurrency: 2})
			rows, err := store.Chains(ctx, runs.ChainFilter{RunID: runID})
			if err != nil {
				t.Fatal(err)
			}
			var failures, rank1, stopped, joint, masked, chains int
			for _, row := range rows {
				if row.FirstFalseAuthorityBlock == nil {
					continue
				}
				chains++
				h, err := store.Chain(ctx, row.Key)
				if err != nil {
					t.Fatal(err)
				}
				wc, err := workbench.LoadWhyChain(ctx, store, row.Key)
				if err != nil {
					t.Fatal(err)
				}
				block := *row.FirstFalseAuthorityBlock
				faultTurns := map[string]bool{}
				for _, f := range h.Faults {
					if f.BlockIndex <= block {
						for _, id := range f.SourceTurnIDs {
							faultTurns[id] = true
						}
					}
				}
				for _, probe := range wc.FormedAt(block) {
					failures++
					w, err := wc.Explain(workbench.WhyQuery{Key: row.Key, Block: block, Probe: probe, Ablate: true, AblateTop: 1})
					if err != nil {
						t.Fatal(err)
					}
					top := w.Attribution.Top()
					if top == nil {
						t.Errorf("%s/%s block %d %s: no cause", row.CaseID, row.ConditionID, block, probe)
						continue
					}
					if faultTurns[top.TurnID] {
						rank1++
					} else {
						t.Errorf("%s/%s block %d %s: rank 1 is %s (%s), the faults' source turns are %v\n%s", row.CaseID, row.ConditionID, block, probe,
							top.TurnID, top.Role, slices.Sorted(keysOf(faultTurns)), describeCauses(w.Attribution))
					}
					switch {
					case top.Ablation != nil && top.Ablation.Status == cause.AblationStops:
						stopped++
					case w.Attribution.JointStops():
						joint++
					case w.Attribution.Joint != nil && w.Attribution.Joint.Ablation.Masked:
						masked++
						t.Logf("%s/%s block %d %s: %s", row.CaseID, row.ConditionID, block, probe, w.Attribution.Joint.Ablation.Detail)
					default:
						t.Errorf("%s/%s block %d %s: removing rank 1 %s: %+v", row.CaseID, row.ConditionID, block, probe, top.TurnID, top.Ablation)
					}
				}
			}
			t.Logf("%s: %d forming chains, %d failures: fault turn ranked first %d; ablating rank 1 alone stops %d, with the turns behind the other granting records (overdetermined) %d, exposes an error the written memory masked %d",
				domain, chains, failures, rank1, stopped, joint, masked)
			if chains == 0 {
				t.Fatal("no forming chain")
			}
		})
	}
}

func keysOf(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// describeCauses lists the first causes with their evidence, for a failure message.
func describeCauses(a cause.Attribution) string {
	out := a.Class + ": " + a.Explanation + "\n"
	for i, c := range a.Causes {
		if i == 4 {
			break
		}
		out += fmt.Sprintf("  %d. %s %s (block %d, score %d) %s\n", c.Rank, c.Role, c.TurnID, c.Block, c.Score, c.Change)
		for _, e := range c.Evidence {
			out += "       - " + e.Text + "\n"
		}
	}
	return out
}
