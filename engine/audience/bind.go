package audience

import (
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/engine"
)

// Bind checks a parsed sidecar against its corpus and attaches each entry to its case
// (Case.Audience); it returns the hidden truths by case id. The corpus's domain must play
// the audience role (engine.AudienceRules). On any error no case is changed.
func Bind(f *File, d engine.DomainIdentity, cases []*engine.Case) (map[string]*Truth, error) {
	rules, ok := d.(engine.AudienceRules)
	if !ok {
		return nil, &Error{File: f.Name, Field: "domain_id", Msg: fmt.Sprintf("domain %s has no audience role", d.ID())}
	}
	if f.DomainID != d.ID() {
		return nil, &Error{File: f.Name, Field: "domain_id", Msg: fmt.Sprintf("%q, but the corpus is %s", f.DomainID, d.ID())}
	}
	byID := map[string]*engine.Case{}
	for _, c := range cases {
		byID[c.ID] = c
		if c.CorpusVersion != f.CorpusVersion {
			return nil, &Error{File: f.Name, Field: "corpus_version", Msg: fmt.Sprintf("%q, but case %s is of corpus version %q", f.CorpusVersion, c.ID, c.CorpusVersion)}
		}
	}
	truths := map[string]*Truth{}
	for _, id := range f.Order {
		c, ok := byID[id]
		if !ok {
			return nil, &Error{File: f.Name, Case: id, Field: "cases." + id, Msg: "no such case in the corpus"}
		}
		e := f.Cases[id]
		if err := checkEntry(f.Name, rules, c, e); err != nil {
			return nil, err
		}
		truths[id] = &e.Truth
	}
	for _, id := range f.Order {
		a := f.Cases[id].Audience
		byID[id].Audience = &a
	}
	return truths, nil
}

// checkEntry checks one entry's references: against the case (turns, probes, records) and
// within the entry (principals, channels).
func checkEntry(file string, rules engine.AudienceRules, c *engine.Case, e *Entry) error {
	r := &reader{file: file, caseID: c.ID}
	a := &e.Audience
	base := "cases." + c.ID
	principal := func(p, id string) {
		if _, ok := a.Principal(id); !ok && r.err == nil {
			r.fail(p, "unknown principal %q", id)
		}
	}
	channel := func(p, id string) {
		if _, ok := a.Channel(id); !ok && r.err == nil {
			r.fail(p, "unknown channel %q", id)
		}
	}
	turnBlock := map[string]int{}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			turnBlock[t.ID] = b.Index
		}
	}
	turn := func(p, id string) int {
		blk, ok := turnBlock[id]
		if !ok && r.err == nil {
			r.fail(p, "unknown turn %q", id)
		}
		return blk
	}
	for i, ch := range a.Channels {
		for j, p := range ch.Participants {
			principal(fmt.Sprintf("%s.channels[%d].participants[%d]", base, i, j), p)
		}
	}
	for _, k := range e.turnChannelOrder {
		p := base + ".turn_channels." + k
		turn(p, k)
		channel(p, a.TurnChannels[k])
		if t, ok := c.Turn(k); ok && r.err == nil {
			if corpus := corpusChannel(rules, c, t, a); corpus != "" {
				r.fail(p, "the corpus already gives turn %s its channel %q", k, corpus)
			}
		}
	}
	tmp := *c
	tmp.Audience = a
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			if r.err != nil {
				break
			}
			ch := rules.TurnChannel(&tmp, t)
			switch {
			case ch == "":
				r.fail(base+".turn_channels", "turn %s has no channel: the corpus names none and the sidecar gives none", t.ID)
			default:
				if _, ok := a.Channel(ch); !ok {
					r.fail(base+".channels", "turn %s is said in channel %q, which the sidecar does not declare", t.ID, ch)
				}
			}
		}
	}
	for k := range a.Unresolved {
		if _, ok := a.Principal(k); ok && r.err == nil {
			r.fail(base+".unresolved."+k, "%q is a declared principal: an unresolved requester is one the principals do not list", k)
		}
	}
	asked := map[string]bool{}
	for i, q := range a.Requests {
		p := fmt.Sprintf("%s.requests[%d]", base, i)
		if _, ok := c.Probe(q.ProbeID); !ok && r.err == nil {
			r.fail(p+".probe", "unknown probe %q", q.ProbeID)
		}
		asked[q.ProbeID] = true
		if _, unresolved := a.Unresolved[q.Principal]; !unresolved {
			principal(p+".principal", q.Principal)
		}
		channel(p+".channel", q.Channel)
	}
	for _, pr := range c.Probes {
		if !asked[pr.ID] && r.err == nil {
			r.fail(base+".requests", "probe %s is asked by nobody: every probe needs a request", pr.ID)
		}
	}
	records := ledgerRecords(c)
	for i := range a.Grants {
		g := &a.Grants[i]
		p := fmt.Sprintf("%s.grants[%d]", base, i)
		if g.ObjectRecord != "" && !records[g.ObjectRecord] && r.err == nil {
			r.fail(p+".object.record", "unknown record %q (not in the case's ledger)", g.ObjectRecord)
		}
		if g.ObjectTurn != "" {
			turn(p+".object.turn", g.ObjectTurn)
		}
		if g.ToChannel != "" {
			channel(p+".to.channel", g.ToChannel)
		}
		for j, x := range g.ToPrincipals {
			principal(fmt.Sprintf("%s.to.principals[%d]", p, j), x)
		}
		principal(p+".by", g.By)
		if pr, ok := a.Principal(g.By); ok && !pr.CanGrant && r.err == nil {
			r.fail(p+".by", "principal %q cannot grant: only a principal with can_grant may widen an audience", g.By)
		}
		g.AtBlock = turn(p+".at_turn", g.AtTurn)
		g.RemovedAtBlock = -1
		if g.RemovedAtTurn != "" {
			g.RemovedAtBlock = turn(p+".removed_at_turn", g.RemovedAtTurn)
			if g.RemovedAtBlock < g.AtBlock && r.err == nil {
				r.fail(p+".removed_at_turn", "turn %s (block %d) is before the grant (block %d)", g.RemovedAtTurn, g.RemovedAtBlock, g.AtBlock)
			}
		}
	}
	t := &e.Truth
	for _, k := range sortedAudienceKeys(t.Records) {
		if !records[k] && r.err == nil {
			r.fail(base+".ground_truth.records."+k, "unknown record %q (not in the case's ledger)", k)
		}
		for _, p := range t.Records[k].Principals {
			principal(base+".ground_truth.records."+k, p)
		}
	}
	for i, l := range t.MustNotLeak {
		for _, p := range l.Audience.Principals {
			principal(fmt.Sprintf("%s.ground_truth.must_not_leak[%d].audience", base, i), p)
		}
	}
	reqIDs := map[string]bool{}
	for _, q := range a.Requests {
		reqIDs[q.ID] = true
	}
	for k, rt := range t.Requests {
		if !reqIDs[k] && r.err == nil {
			r.fail(base+".ground_truth.requests."+k, "unknown request %q", k)
		}
		if _, unresolved := a.Unresolved[rt.TruePrincipal]; !unresolved {
			principal(base+".ground_truth.requests."+k+".true_principal", rt.TruePrincipal)
		}
	}
	for i, d := range t.DecoyTurns {
		turn(fmt.Sprintf("%s.ground_truth.decoy_turns[%d]", base, i), d)
	}
	return r.err
}

// corpusChannel is the channel the corpus itself gives a turn (the rules' answer without the
// sidecar's turn_channels).
func corpusChannel(rules engine.AudienceRules, c *engine.Case, t engine.Turn, a *engine.CaseAudience) string {
	tmp := *c
	bare := *a
	bare.TurnChannels = nil
	tmp.Audience = &bare
	return rules.TurnChannel(&tmp, t)
}

// ledgerRecords are the authorization ids the case's ledger creates or changes.
func ledgerRecords(c *engine.Case) map[string]bool {
	out := map[string]bool{}
	for _, ev := range c.Events {
		if ev.AuthorizationID != "" {
			out[ev.AuthorizationID] = true
		}
		if ev.NewAuthorizationID != "" {
			out[ev.NewAuthorizationID] = true
		}
	}
	return out
}

func sortedAudienceKeys(m map[string]engine.Audience) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
