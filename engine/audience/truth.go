package audience

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ealscope/ealscope/engine"
)

// groundTruth computes a generated case's hidden truth from its ledger and its channels: a
// record's true audience is who was present at every turn its ledger events cite (a grant,
// then its narrowing, is known only to those present at both); the strings that must not
// leak are the record ids; a request is entitled when its principal belongs to the true
// audience (widened by the grants in force at the final block) of a record that authorizes
// it at the final block.
func groundTruth(d engine.Domain, rules engine.AudienceRules, c *engine.Case, a *engine.CaseAudience, scenario int, decoy string) (Truth, error) {
	names := []string{ScenarioPrivateGrant, ScenarioMergedNarrowing, ScenarioWideningGrant, ScenarioUnresolvedViewer}
	t := Truth{Scenarios: []string{names[scenario]}, Records: RecordAudiences(rules, c, a), Requests: map[string]RequestTruth{}}
	if decoy != "" {
		t.DecoyTurns = []string{decoy}
	}
	for _, id := range slices.Sorted(maps.Keys(t.Records)) {
		t.MustNotLeak = append(t.MustNotLeak, Leak{Text: id, Audience: t.Records[id]})
	}
	last := c.LastBlock()
	records, err := d.Replay(c, last)
	if err != nil {
		return t, fmt.Errorf("ledger: %w", err)
	}
	probes := map[string]engine.Probe{}
	for _, p := range c.Probes {
		probes[p.ID] = p
	}
	for _, r := range a.Requests {
		p := probes[r.ProbeID]
		entitled := false
		for _, rec := range records {
			if d.Deny(c, rec, p.Request) != "" {
				continue
			}
			if TrueAudience(a, t.Records[rec.AuthorizationID()], rec.AuthorizationID(), last).Has(r.Principal) {
				entitled = true
			}
		}
		t.Requests[r.ID] = RequestTruth{TruePrincipal: r.Principal, Entitled: entitled}
	}
	return t, nil
}

// RecordAudiences is, per ledger record, the intersection of the audiences of every turn its
// events cite (an event without citations, or a turn without an audience, leaves nobody).
func RecordAudiences(rules engine.AudienceRules, c *engine.Case, a *engine.CaseAudience) map[string]engine.Audience {
	tmp := *c
	tmp.Audience = a
	out := map[string]engine.Audience{}
	for _, ev := range c.Events {
		id := ev.AuthorizationID
		if ev.NewAuthorizationID != "" {
			id = ev.NewAuthorizationID
		}
		if id == "" {
			continue
		}
		aud, seen := out[id]
		if !seen {
			aud = engine.PublicAudience()
		}
		if len(ev.SourceTurnIDs) == 0 {
			aud = engine.Audience{}
		}
		for _, tid := range ev.SourceTurnIDs {
			turn, ok := c.Turn(tid)
			ta, known := rules.TurnAudience(&tmp, turn)
			if !ok || !known {
				ta = engine.Audience{}
			}
			aud = aud.Intersect(ta)
		}
		out[id] = aud
	}
	return out
}

// TrueAudience is a record's true audience at a block: its base audience widened by the
// grants on it in force then.
func TrueAudience(a *engine.CaseAudience, base engine.Audience, record string, block int) engine.Audience {
	out := base
	for _, g := range a.GrantsAt(block) {
		if g.ObjectRecord == record {
			out = out.Union(a.GrantAudience(g))
		}
	}
	return out
}
