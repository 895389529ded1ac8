package multiparty

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// withoutTurn is a copy of the case with one turn never said.
func withoutTurn(c *engine.Case, id string) *engine.Case {
	out := *c
	out.Blocks = nil
	for _, b := range c.Blocks {
		nb := b
		nb.Turns = nil
		for _, t := range b.Turns {
			if t.ID != id {
				nb.Turns = append(nb.Turns, t)
			}
		}
		out.Blocks = append(out.Blocks, nb)
	}
	return &out
}

// TestWideningGrantAndDecoy: in every widening-grant case of the three built-in multi-party
// corpora, with the ledger's own memory at every block, the outsider's request sees the
// granted record only while the grant is in force (before, between, after), and the decoy
// relay ("everyone can use this", said in public by a principal who cannot grant) never
// widens anything: what is admitted with it said is admitted without it.
func TestWideningGrantAndDecoy(t *testing.T) {
	checked, decoys := 0, 0
	phase := map[bool]int{}
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		mp, err := Builtin(id)
		if err != nil {
			t.Fatal(err)
		}
		rules := mp.Domain.(engine.AudienceRules)
		for _, c := range mp.Cases {
			truth := mp.Truths[c.ID]
			if truth.Scenarios[0] != audience.ScenarioWideningGrant || len(c.Audience.Grants) == 0 {
				continue
			}
			g := c.Audience.Grants[0]
			var outsider engine.AudienceRequest
			for _, r := range c.Audience.Requests {
				if r.Principal == audience.Outsider {
					outsider = r
					break
				}
			}
			for _, b := range c.Blocks {
				recs, err := mp.Domain.Replay(c, b.Index)
				if err != nil {
					t.Fatal(err)
				}
				in := engine.MemoryInput{Domain: mp.Domain, Case: c, Block: b.Index, Request: &outsider,
					Evidence: engine.Evidence{Kind: engine.MemoryEvidence, Payload: mp.Domain.TypedPayload(recs)}}
				items, err := safeguards.MemoryItems(in, safeguards.BindingCited)
				if err != nil {
					t.Fatal(err)
				}
				viewers := rules.RequestViewers(c, outsider)
				ds := safeguards.AdmitItems(rules, c, b.Index, viewers, items, safeguards.AudienceParams{Binding: safeguards.BindingCited})
				for _, d := range ds {
					if d.ID != g.ObjectRecord {
						continue
					}
					if truth.Records[d.ID].Has(audience.Outsider) {
						continue // the record was never private
					}
					checked++
					phase[g.EffectiveAt(b.Index)]++
					if d.Kept != g.EffectiveAt(b.Index) {
						t.Errorf("%s %s block %d: record %s kept=%v for the outsider, grant in force %d..%d: %+v", id, c.ID, b.Index, d.ID, d.Kept, g.AtBlock, g.RemovedAtBlock, d)
					}
				}
				for _, decoy := range truth.DecoyTurns {
					decoys++
					bare := withoutTurn(c, decoy)
					for _, binding := range []string{safeguards.BindingInput, safeguards.BindingCited} {
						p := safeguards.AudienceParams{Binding: binding}
						with := safeguards.AdmitItems(rules, c, b.Index, viewers, items, p)
						inBare := in
						inBare.Case = bare
						bareItems, err := safeguards.MemoryItems(inBare, binding)
						if err != nil {
							t.Fatal(err)
						}
						without := safeguards.AdmitItems(rules, bare, b.Index, viewers, bareItems, p)
						for i := range with {
							if with[i].Kept && !without[i].Kept {
								t.Errorf("%s %s block %d: the decoy %s widened %s (%s binding)", id, c.ID, b.Index, decoy, with[i].ID, binding)
							}
						}
					}
				}
			}
		}
	}
	if checked == 0 || decoys == 0 || phase[true] == 0 || phase[false] == 0 {
		t.Fatalf("checked %d granted records and %d decoys: nothing was tested", checked, decoys)
	}
	t.Logf("%d granted-record contexts (%d under the grant, %d outside it), %d decoy comparisons", checked, phase[true], phase[false], decoys)
}
