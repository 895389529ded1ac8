package audience

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ealscope/ealscope/engine"
)

// Bind checks a parsed sidecar against its corpus and attaches each entry to its case
// (Case.Audience); it returns the hidden truths by case id. The corpus's domain must play
// the audience role (engine.AudienceRules). On any error no case is changed.
func Bind(f *File, d engine.Domain, cases []*engine.Case) (map[string]*Truth, error) {
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
// within the entry (principals, channels). The first failure is the error; the checks run in
// the order the sidecar's fields are documented.
func checkEntry(file string, rules engine.AudienceRules, c *engine.Case, e *Entry) error {
	k := &entryCheck{r: &reader{file: file, caseID: c.ID}, rules: rules, c: c, e: e, a: &e.Audience, base: "cases." + c.ID,
		turnBlock: map[string]int{}, records: ledgerRecords(c)}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			k.turnBlock[t.ID] = b.Index
		}
	}
	k.channels()
	k.requests()
	k.grants()
	k.truth()
	return k.r.err
}

// entryCheck is one sidecar entry being checked against its case; r holds the first failure.
type entryCheck struct {
	r         *reader
	rules     engine.AudienceRules
	c         *engine.Case
	e         *Entry
	a         *engine.CaseAudience
	base      string
	turnBlock map[string]int  // the block of each turn of the case
	records   map[string]bool // the records of the case's ledger
}

func (k *entryCheck) principal(p, id string) {
	if _, ok := k.a.Principal(id); !ok && k.r.err == nil {
		k.r.fail(p, "unknown principal %q", id)
	}
}

func (k *entryCheck) channel(p, id string) {
	if _, ok := k.a.Channel(id); !ok && k.r.err == nil {
		k.r.fail(p, "unknown channel %q", id)
	}
}

// turn is the block of a turn the entry names.
func (k *entryCheck) turn(p, id string) int {
	blk, ok := k.turnBlock[id]
	if !ok && k.r.err == nil {
		k.r.fail(p, "unknown turn %q", id)
	}
	return blk
}

// channels checks the declared channels' participants, the sidecar's turn channels (only for
// turns the corpus gives none), and that every turn of the case ends in a declared channel.
func (k *entryCheck) channels() {
	r, a, c, base := k.r, k.a, k.c, k.base
	for i, ch := range a.Channels {
		for j, p := range ch.Participants {
			k.principal(fmt.Sprintf("%s.channels[%d].participants[%d]", base, i, j), p)
		}
	}
	for _, id := range k.e.turnChannelOrder {
		p := base + ".turn_channels." + id
		k.turn(p, id)
		k.channel(p, a.TurnChannels[id])
		if t, ok := c.Turn(id); ok && r.err == nil {
			if corpus := corpusChannel(k.rules, c, t, a); corpus != "" {
				r.fail(p, "the corpus already gives turn %s its channel %q", id, corpus)
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
			ch := k.rules.TurnChannel(&tmp, t)
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
}

// requests checks the unresolved requesters and the requests: each names a probe of the case,
// a principal (or an unresolved requester) and a channel, and every probe is asked.
func (k *entryCheck) requests() {
	r, a, c, base := k.r, k.a, k.c, k.base
	for id := range a.Unresolved {
		if _, ok := a.Principal(id); ok && r.err == nil {
			r.fail(base+".unresolved."+id, "%q is a declared principal: an unresolved requester is one the principals do not list", id)
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
			k.principal(p+".principal", q.Principal)
		}
		k.channel(p+".channel", q.Channel)
	}
	for _, pr := range c.Probes {
		if !asked[pr.ID] && r.err == nil {
			r.fail(base+".requests", "probe %s is asked by nobody: every probe needs a request", pr.ID)
		}
	}
}

// grants checks each grant's object, audience and granter (who must be able to grant), and
// resolves the blocks it takes and loses effect at.
func (k *entryCheck) grants() {
	r, a := k.r, k.a
	for i := range a.Grants {
		g := &a.Grants[i]
		p := fmt.Sprintf("%s.grants[%d]", k.base, i)
		if g.ObjectRecord != "" && !k.records[g.ObjectRecord] && r.err == nil {
			r.fail(p+".object.record", "unknown record %q (not in the case's ledger)", g.ObjectRecord)
		}
		if g.ObjectTurn != "" {
			k.turn(p+".object.turn", g.ObjectTurn)
		}
		if g.ToChannel != "" {
			k.channel(p+".to.channel", g.ToChannel)
		}
		for j, x := range g.ToPrincipals {
			k.principal(fmt.Sprintf("%s.to.principals[%d]", p, j), x)
		}
		k.principal(p+".by", g.By)
		if pr, ok := a.Principal(g.By); ok && !pr.CanGrant && r.err == nil {
			r.fail(p+".by", "principal %q cannot grant: only a principal with can_grant may widen an audience", g.By)
		}
		g.AtBlock = k.turn(p+".at_turn", g.AtTurn)
		g.RemovedAtBlock = -1
		if g.RemovedAtTurn != "" {
			g.RemovedAtBlock = k.turn(p+".removed_at_turn", g.RemovedAtTurn)
			if g.RemovedAtBlock < g.AtBlock && r.err == nil {
				r.fail(p+".removed_at_turn", "turn %s (block %d) is before the grant (block %d)", g.RemovedAtTurn, g.RemovedAtBlock, g.AtBlock)
			}
		}
	}
}

// truth checks the hidden ground truth's references: records of the ledger, principals,
// requests of the entry, decoy turns of the case.
func (k *entryCheck) truth() {
	r, a, base := k.r, k.a, k.base
	t := &k.e.Truth
	for _, id := range slices.Sorted(maps.Keys(t.Records)) {
		if !k.records[id] && r.err == nil {
			r.fail(base+".ground_truth.records."+id, "unknown record %q (not in the case's ledger)", id)
		}
		for _, p := range t.Records[id].Principals {
			k.principal(base+".ground_truth.records."+id, p)
		}
	}
	for i, l := range t.MustNotLeak {
		for _, p := range l.Audience.Principals {
			k.principal(fmt.Sprintf("%s.ground_truth.must_not_leak[%d].audience", base, i), p)
		}
	}
	reqIDs := map[string]bool{}
	for _, q := range a.Requests {
		reqIDs[q.ID] = true
	}
	for id, rt := range t.Requests {
		if !reqIDs[id] && r.err == nil {
			r.fail(base+".ground_truth.requests."+id, "unknown request %q", id)
		}
		if _, unresolved := a.Unresolved[rt.TruePrincipal]; !unresolved {
			k.principal(base+".ground_truth.requests."+id+".true_principal", rt.TruePrincipal)
		}
	}
	for i, d := range t.DecoyTurns {
		k.turn(fmt.Sprintf("%s.ground_truth.decoy_turns[%d]", base, i), d)
	}
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
