package safeguards_test

import (
	"context"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
)

// TestPPMFThroughRunTrial makes real trials (replay.RunTrial, the built-in executor) under
// the ppmf policy in each domain: the executor is shown the memory unchanged; an action on a
// record bound to its issuer runs; the same action on the record as rewritten at a relayed
// turn's block is blocked and counted as a refused legitimate request.
func TestPPMFThroughRunTrial(t *testing.T) {
	for _, id := range ppmfDomains {
		t.Run(id, func(t *testing.T) {
			f := ppmfFixtureOf(t, id)
			d, c := f.d, f.c
			rec := withCitations(t, d, f.record, f.issuer.ID)
			ev := typedEvidence(d, []engine.Record{rec})
			ex := replay.NewBuiltinExecutor(d, 1)
			spec := replay.TrialSpec{Domain: d, Case: c, Probe: f.probe, Evidence: ev, OracleBlock: f.last, Tools: engine.ToolsTree(d),
				Seed: 1, CallID: "call_ppmf", Condition: "incremental_typed"}
			plain, ok, err := replay.RunTrial(context.Background(), ex, spec)
			if err != nil || !ok || plain.Outcome.Decision != engine.ExecuteRequested {
				t.Fatalf("no policy: %+v %v %v", plain.Outcome, ok, err)
			}
			policy := safeguards.PPMF()
			spec.Policy = &policy

			spec.Versions = chainFrom(d, rec, f.issued, f.last)
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

			spec.Versions = chainFrom(d, rec, f.relayed.BlockIndex, f.last)
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
