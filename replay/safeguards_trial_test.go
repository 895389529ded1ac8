package replay

// The safeguard policies through the one trial path (RunTrial, the built-in executor), with
// the policies' own fixtures (engine/safeguards/safeguardtest).

import (
	"context"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/engine/safeguards/safeguardtest"
)

// trialDomains are the built-in domains the trial-path tests run in.
var trialDomains = []string{"procurement", "cybersecurity", "finance"}

// Through the one trial path (replay.RunTrial, the built-in executor): on faithful chains
// every trial carries MemTX's memory decision and no unauthorized action is taken (the
// executor, shown a dropped record MemTX still holds committed, may act; the gate blocks it).
func TestMemTXThroughRunTrial(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range trialDomains {
		d, cases := domainCases(t, id)
		ex := NewBuiltinExecutor(d, 1)
		tools := engine.ToolsTree(d)
		counts := map[string]int{}
		for _, c := range cases {
			last := c.LastBlock()
			chain := safeguardtest.FaithfulChain(t, d, c, last)
			for _, pr := range c.Probes {
				tr, ok, err := RunTrial(context.Background(), ex, TrialSpec{Domain: d, Case: c, Probe: pr,
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

// TestPPMFThroughRunTrial makes real trials (replay.RunTrial, the built-in executor) under
// the ppmf policy in each domain: the executor is shown the memory unchanged; an action on a
// record bound to its issuer runs; the same action on the record as rewritten at a relayed
// turn's block is blocked and counted as a refused legitimate request.
func TestPPMFThroughRunTrial(t *testing.T) {
	for _, id := range trialDomains {
		t.Run(id, func(t *testing.T) {
			d, cases := domainCases(t, id)
			f := safeguardtest.PPMFFixtureOf(t, d, cases[0])
			c := f.C
			rec := safeguardtest.WithCitations(t, d, f.Record, f.Issuer.ID)
			ev := safeguardtest.TypedEvidence(d, []engine.Record{rec})
			ex := NewBuiltinExecutor(d, 1)
			spec := TrialSpec{Domain: d, Case: c, Probe: f.Probe, Evidence: ev, OracleBlock: f.Last, Tools: engine.ToolsTree(d),
				Seed: 1, CallID: "call_ppmf", Condition: "incremental_typed"}
			plain, ok, err := RunTrial(context.Background(), ex, spec)
			if err != nil || !ok || plain.Outcome.Decision != engine.ExecuteRequested {
				t.Fatalf("no policy: %+v %v %v", plain.Outcome, ok, err)
			}
			policy := safeguards.PPMF()
			spec.Policy = &policy

			spec.Versions = safeguardtest.ChainFrom(d, rec, f.Issued, f.Last)
			kept, _, err := RunTrial(context.Background(), ex, spec)
			if err != nil {
				t.Fatal(err)
			}
			if kept.RequestHash != plain.RequestHash || kept.Gated == nil || len(kept.Gated.Records) != 1 || kept.Gated.Records[0].Trust == "" {
				t.Fatalf("transformation: hash same %v, gated %+v", kept.RequestHash == plain.RequestHash, kept.Gated)
			}
			if kept.Gate == nil || !kept.Gate.Allowed || kept.Outcome.Decision != engine.ExecuteRequested || !kept.Outcome.Compliant {
				t.Fatalf("bound to the issuer: %+v gate %+v", kept.Outcome, kept.Gate)
			}

			spec.Versions = safeguardtest.ChainFrom(d, rec, f.Relayed.BlockIndex, f.Last)
			laundered, _, err := RunTrial(context.Background(), ex, spec)
			if err != nil {
				t.Fatal(err)
			}
			o := laundered.Outcome
			if laundered.Gate == nil || laundered.Gate.Allowed || o.Decision != engine.PolicyBlocked || o.RequestedActionTaken ||
				o.Compliant || !o.RequestAuthorized || laundered.Gated.Records[0].Trust != engine.TrustExternal.String() {
				t.Fatalf("rewritten at a relay: %+v gate %+v gated %+v", o, laundered.Gate, laundered.Gated)
			}
		})
	}
}
