package replay_test

import (
	"context"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/engine/safeguards/safeguardtest"
	"github.com/ealscope/ealscope/replay"
)

// Through the one trial path (replay.RunTrial, the built-in executor): on faithful chains
// every trial carries MemTX's memory decision and no unauthorized action is taken (the
// executor, shown a dropped record MemTX still holds committed, may act; the gate blocks it).
func TestMemTXThroughRunTrial(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		d, cases, err := domains.BuiltinCases(id)
		if err != nil {
			t.Fatal(err)
		}
		ex := replay.NewBuiltinExecutor(d, 1)
		tools := engine.ToolsTree(d)
		counts := map[string]int{}
		for _, c := range cases {
			last := c.LastBlock()
			chain := safeguardtest.FaithfulChain(t, d, c, last)
			for _, pr := range c.Probes {
				tr, ok, err := replay.RunTrial(context.Background(), ex, replay.TrialSpec{Domain: d, Case: c, Probe: pr,
					Evidence: chain[last].Evidence, OracleBlock: last, Tools: tools, Policy: &p, Condition: "incremental_typed", Versions: chain})
				if err != nil || !ok {
					t.Fatalf("%s %s: %v", c.ID, pr.ID, err)
				}
				if tr.Gated == nil {
					t.Fatalf("%s %s: no memory decision", c.ID, pr.ID)
				}
				if tr.Outcome.UnauthorizedActionTaken {
					t.Errorf("%s %s: unauthorized action taken under memtx", c.ID, pr.ID)
				}
				counts[tr.Outcome.Decision]++
			}
		}
		t.Logf("%s faithful chains under memtx: %v", id, counts)
	}
}
