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

// TestPPMFThroughRunTrial makes real trials (replay.RunTrial, the built-in executor) under
// the ppmf policy in each domain: the executor is shown the memory unchanged; an action on a
// record bound to its issuer runs; the same action on the record as rewritten at a relayed
// turn's block is blocked and counted as a refused legitimate request.
func TestPPMFThroughRunTrial(t *testing.T) {
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(id, func(t *testing.T) {
			d, cases, err := domains.BuiltinCases(id)
			if err != nil {
				t.Fatal(err)
			}
			f := safeguardtest.PPMFFixtureOf(t, d, cases[0])
			c := f.C
			rec := safeguardtest.WithCitations(t, d, f.Record, f.Issuer.ID)
			ev := safeguardtest.TypedEvidence(d, []engine.Record{rec})
			ex := replay.NewBuiltinExecutor(d, 1)
			spec := replay.TrialSpec{Domain: d, Case: c, Probe: f.Probe, Evidence: ev, OracleBlock: f.Last, Tools: engine.ToolsTree(d),
				Seed: 1, CallID: "call_ppmf", Condition: "incremental_typed"}
			plain, ok, err := replay.RunTrial(context.Background(), ex, spec)
			if err != nil || !ok || plain.Outcome.Decision != engine.ExecuteRequested {
				t.Fatalf("no policy: %+v %v %v", plain.Outcome, ok, err)
			}
			policy := safeguards.PPMF()
			spec.Policy = &policy

			spec.Versions = safeguardtest.ChainFrom(d, rec, f.Issued, f.Last)
			kept, _, err := replay.RunTrial(context.Background(), ex, spec)
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
			laundered, _, err := replay.RunTrial(context.Background(), ex, spec)
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
