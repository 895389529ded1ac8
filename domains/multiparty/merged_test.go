package multiparty

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// TestMergedNarrowingKeptByIntersection: in every merged-narrowing case of the three built-in
// corpora, a writer chain that follows the ledger block by block merges the shared grant and
// its private narrowing into one record; the grantee's request in the private room keeps it
// under intersection (input binding) and loses it under suppression, and the outsider in the
// team room never sees it.
func TestMergedNarrowingKeptByIntersection(t *testing.T) {
	merged := 0
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		mp, err := Builtin(id)
		if err != nil {
			t.Fatal(err)
		}
		d := mp.Domain
		for _, c := range mp.Cases {
			if mp.Truths[c.ID].Scenarios[0] != audience.ScenarioMergedNarrowing {
				continue
			}
			patched := map[string]bool{}
			for _, ev := range c.Events {
				if ev.Type == "patch" {
					patched[ev.AuthorizationID] = true
				}
			}
			var versions []engine.MemoryVersion
			for _, b := range c.Blocks {
				recs, err := d.Replay(c, b.Index)
				if err != nil {
					t.Fatal(err)
				}
				versions = append(versions, engine.MemoryVersion{Block: b.Index, Evidence: engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.TypedPayload(recs)}})
			}
			last := versions[len(versions)-1]
			for _, r := range c.Audience.Requests {
				r := r
				in := engine.MemoryInput{Domain: d, Case: c, Block: last.Block, Evidence: last.Evidence, Condition: "incremental_typed", Versions: versions, Request: &r}
				inter, err := safeguards.AudienceBound().Memory.TransformMemory(in)
				if err != nil {
					t.Fatal(err)
				}
				supp, err := safeguards.AudienceBoundWith(safeguards.AudienceParams{Disposition: safeguards.DispositionSuppress}).Memory.TransformMemory(in)
				if err != nil {
					t.Fatal(err)
				}
				for i, rd := range inter.Records {
					if !patched[rd.AuthorizationID] {
						continue
					}
					grantee := r.Channel == audience.PrivateGrantRoom
					if grantee {
						merged++
						if !rd.Kept || supp.Records[i].Kept {
							t.Errorf("%s %s %s: merged record %s kept %v under intersection, %v under suppression (%v / %v)", id, c.ID, r.ID, rd.AuthorizationID, rd.Kept, supp.Records[i].Kept, rd.Reasons, supp.Records[i].Reasons)
						}
					} else if rd.Kept {
						t.Errorf("%s %s %s: the outsider sees the merged record %s: %v", id, c.ID, r.ID, rd.AuthorizationID, rd.Reasons)
					}
				}
			}
		}
	}
	if merged == 0 {
		t.Fatal("no merged record was checked")
	}
	t.Logf("%d grantee contexts holding a merged record", merged)
}
