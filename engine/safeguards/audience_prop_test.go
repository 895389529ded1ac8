package safeguards

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// randomHistory is a small random multi-party history: blocks of turns in random channels
// over six principals, random grants on turns and records, and random items.
func randomHistory(rng *rand.Rand) (*engine.Case, []AudienceItem) {
	principals := []string{"a", "b", "c", "d", "e", "f"}
	a := &engine.CaseAudience{TurnChannels: map[string]string{}, Unresolved: map[string]string{"ghost": "missing_from_principals"}}
	for _, p := range principals {
		a.Principals = append(a.Principals, engine.AudiencePrincipal{ID: p, CanGrant: p == "a"})
	}
	for k := 0; k < 4; k++ {
		var parts []string
		for _, p := range principals {
			if rng.IntN(2) == 0 {
				parts = append(parts, p)
			}
		}
		vis := engine.VisibilityPrivate
		if k == 3 && rng.IntN(3) == 0 {
			vis = engine.VisibilityPublic
		} else if len(parts) == 0 {
			parts = []string{"a"}
		}
		a.Channels = append(a.Channels, engine.AudienceChannel{ID: fmt.Sprintf("ch%d", k), Visibility: vis, Participants: parts})
	}
	c := &engine.Case{ID: "h", Audience: a}
	var turnIDs []string
	for b := 0; b < 1+rng.IntN(4); b++ {
		blk := engine.Block{Index: b}
		for t := 0; t < 1+rng.IntN(3); t++ {
			id := fmt.Sprintf("t%d_%d", b, t)
			blk.Turns = append(blk.Turns, engine.Turn{ID: id, BlockIndex: b})
			a.TurnChannels[id] = fmt.Sprintf("ch%d", rng.IntN(4))
			turnIDs = append(turnIDs, id)
		}
		c.Blocks = append(c.Blocks, blk)
	}
	var items []AudienceItem
	for i := 0; i < 1+rng.IntN(4); i++ {
		it := AudienceItem{ID: fmt.Sprintf("r%d", i)}
		for j := 0; j < 1+rng.IntN(3); j++ {
			it.Sources = append(it.Sources, turnIDs[rng.IntN(len(turnIDs))])
		}
		if rng.IntN(10) == 0 {
			it.Sources = append(it.Sources, "nowhere")
		}
		items = append(items, it)
	}
	for g := 0; g < rng.IntN(3); g++ {
		gr := engine.AudienceGrant{ID: fmt.Sprintf("g%d", g), By: "a", AtBlock: rng.IntN(len(c.Blocks)), RemovedAtBlock: -1}
		if rng.IntN(2) == 0 {
			gr.ObjectRecord = items[rng.IntN(len(items))].ID
		} else {
			gr.ObjectTurn = turnIDs[rng.IntN(len(turnIDs))]
		}
		if rng.IntN(2) == 0 {
			gr.ToChannel = fmt.Sprintf("ch%d", rng.IntN(4))
		} else {
			gr.ToPrincipals = []string{principals[rng.IntN(6)]}
		}
		if rng.IntN(2) == 0 {
			gr.RemovedAtBlock = gr.AtBlock + 1 + rng.IntN(2)
		}
		a.Grants = append(a.Grants, gr)
	}
	return c, items
}

// trueTurnAudience recomputes a turn's audience at a block with its grants, independently of
// the policy's code.
func trueTurnAudience(c *engine.Case, turn string, block int) engine.Audience {
	ch, _ := c.Audience.Channel(c.Audience.TurnChannels[turn])
	out := ch.Audience()
	for _, g := range c.Audience.Grants {
		if g.ObjectTurn == turn && g.AtBlock <= block && (g.RemovedAtBlock < 0 || block < g.RemovedAtBlock) {
			out = out.Union(c.Audience.GrantAudience(g))
		}
	}
	return out
}

// TestAudienceAdmissionProperties checks, over 100,000 random histories and memories: an
// admitted item's authorized audiences cover every viewer (each viewer is in every source's
// audience, or a grant in force on the item shows it to them); a derived item's audience is
// never wider than any source's; removing a grant never widens an audience nor admits more.
func TestAudienceAdmissionProperties(t *testing.T) {
	rules := engine.SidecarAudience{}
	rng := rand.New(rand.NewPCG(20260826, 1))
	const histories = 100000
	admitted := 0
	for h := 0; h < histories; h++ {
		c, items := randomHistory(rng)
		block := rng.IntN(len(c.Blocks))
		var req engine.AudienceRequest
		switch rng.IntN(6) {
		case 0:
			req = engine.AudienceRequest{Principal: "ghost", Channel: "ch0"}
		default:
			req = engine.AudienceRequest{Principal: []string{"a", "b", "c", "d", "e", "f"}[rng.IntN(6)], Channel: fmt.Sprintf("ch%d", rng.IntN(4))}
		}
		viewers := c.Audience.Viewers(req)
		for _, p := range []AudienceParams{{}, {Disposition: DispositionSuppress}, {Identity: IdentityQuarantine}} {
			ds := AdmitItems(rules, c, block, viewers, items, p)
			for i, d := range ds {
				for _, src := range items[i].Sources {
					// Unknown and future sources fail closed.
					if turn, ok := c.Turn(src); d.Kept && (!ok || turn.BlockIndex > block) {
						t.Fatalf("history %d: item %s admitted with source %s unknown or after block %d", h, d.ID, src, block)
					}
				}
				if !d.Kept {
					continue
				}
				admitted++
				if viewers.Unresolved != "" && !d.Audience.Public && len(d.Authorized) > 0 {
					pub := false
					for _, a := range d.Authorized {
						pub = pub || a.Public
					}
					if !pub {
						t.Fatalf("history %d: unresolved viewer admitted a non-public item %+v", h, d)
					}
				}
				for _, v := range viewers.Principals {
					inAll := true
					for _, s := range items[i].Sources {
						inAll = inAll && trueTurnAudience(c, s, block).Has(v)
					}
					granted := false
					for _, g := range c.Audience.Grants {
						if g.ObjectRecord == d.ID && g.AtBlock <= block && (g.RemovedAtBlock < 0 || block < g.RemovedAtBlock) {
							granted = granted || c.Audience.GrantAudience(g).Has(v)
						}
					}
					if !inAll && !granted {
						t.Fatalf("history %d: item %s admitted for viewer %s outside its audiences (%+v)", h, d.ID, v, d)
					}
				}
				for _, s := range items[i].Sources {
					if !d.Audience.Within(trueTurnAudience(c, s, block)) {
						t.Fatalf("history %d: item %s's audience %s is wider than source %s's", h, d.ID, d.Audience, s)
					}
				}
			}
			// Removing any one grant never widens an audience nor admits an item.
			if len(c.Audience.Grants) > 0 {
				k := rng.IntN(len(c.Audience.Grants))
				less := *c
				la := *c.Audience
				la.Grants = append(append([]engine.AudienceGrant{}, c.Audience.Grants[:k]...), c.Audience.Grants[k+1:]...)
				less.Audience = &la
				dl := AdmitItems(rules, &less, block, less.Audience.Viewers(req), items, p)
				for i := range dl {
					if dl[i].Kept && !ds[i].Kept {
						t.Fatalf("history %d: removing grant %s admitted item %s", h, c.Audience.Grants[k].ID, dl[i].ID)
					}
					if ds[i].Reason != "" && dl[i].Kept && !dl[i].Audience.Within(ds[i].Audience) {
						t.Fatalf("history %d: removing grant %s widened item %s", h, c.Audience.Grants[k].ID, dl[i].ID)
					}
				}
			}
		}
	}
	if admitted == 0 {
		t.Fatal("no item was ever admitted: the properties were checked on nothing")
	}
	t.Logf("%d histories, %d admissions checked", histories, admitted)
}
