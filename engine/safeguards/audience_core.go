package safeguards

import (
	"slices"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// The audience-bound admission rule (docs/POLICIES.md "audience_bound"), domain-free: an item
// carries the audience present when what it was made from was said; a derived item gets the
// intersection of its sources' audiences (or is suppressed); an audience widens only by an
// explicit grant on that object in force now; an item enters the context only when every
// viewer belongs to one of its authorized audiences; unresolved viewers fail closed.

// Binding modes, dispositions and identity policies of audience_bound.
const (
	BindingInput        = "input"
	BindingCited        = "cited"
	DispositionInter    = "intersection"
	DispositionSuppress = "suppression"
	IdentityPublicOnly  = "public_only"
	IdentityFailOpen    = "fail_open"
	IdentityQuarantine  = "quarantine"
)

// AudienceParams configure audience_bound; the zero value is the default (input binding,
// intersection, unresolved viewers to public-only). SessionSilo replaces the rule by the
// per-session silo baseline (an item is shown only when all its sources were said in the
// request's channel).
type AudienceParams struct {
	Binding     string
	Disposition string
	Identity    string
	SessionSilo bool
}

func (p AudienceParams) normal() AudienceParams {
	if p.Binding == "" {
		p.Binding = BindingInput
	}
	if p.Disposition == "" {
		p.Disposition = DispositionInter
	}
	if p.Identity == "" {
		p.Identity = IdentityPublicOnly
	}
	return p
}

// AudienceItem is one memory item: an id (a record's authorization id), the turns it is
// derived from, and whether it is free text that could not be read as records.
type AudienceItem struct {
	ID       string
	Sources  []string
	FreeText bool
}

// ItemDecision is the rule's verdict on one item.
type ItemDecision struct {
	ID       string
	Kept     bool
	Reason   string
	Audience engine.Audience
	// Authorized are the audiences the item may reach now: its own and its grants'.
	Authorized []engine.Audience
	Sources    []string
}

// AdmitItems decides every item for a context assembled at block for viewers.
func AdmitItems(rules engine.AudienceRules, c *engine.Case, block int, viewers engine.Viewers, items []AudienceItem, p AudienceParams) []ItemDecision {
	p = p.normal()
	turnBlock := map[string]int{}
	turns := map[string]engine.Turn{}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			turnBlock[t.ID], turns[t.ID] = b.Index, t
		}
	}
	grants := rules.GrantsAt(c, block)
	out := make([]ItemDecision, 0, len(items))
	m := &turnMemo{rules: rules, c: c, turns: turns, aud: map[string]turnFacts{}, derived: map[string]sourceFacts{}}
	for _, it := range items {
		out = append(out, admitItem(m, c, block, viewers, it, p, turnBlock, grants))
	}
	return out
}

// turnMemo reads each turn's audience and channel once per context.
type turnMemo struct {
	rules engine.AudienceRules
	c     *engine.Case
	turns map[string]engine.Turn
	aud   map[string]turnFacts
	// derived memoises source lists.
	derived map[string]sourceFacts
}

type turnFacts struct {
	audience engine.Audience
	known    bool
	channel  string
}

func (m *turnMemo) get(id string) turnFacts {
	if f, ok := m.aud[id]; ok {
		return f
	}
	t := m.turns[id]
	a, known := m.rules.TurnAudience(m.c, t)
	f := turnFacts{audience: a, known: known, channel: m.rules.TurnChannel(m.c, t)}
	m.aud[id] = f
	return f
}

// sourceFacts are what an item's sources say: the intersection of their audiences (with the
// grants on them), whether they were said before different audiences, their channels, or why
// they fail closed.
type sourceFacts struct {
	audience engine.Audience
	mixed    bool
	channels []string
	fail     string
}

// sources reads a source list once per context (under input binding every item changed at
// the same block has the same list).
func (m *turnMemo) sources(ids []string, block int, turnBlock map[string]int, grants []engine.AudienceGrant) sourceFacts {
	key := strings.Join(ids, "\x00")
	if f, ok := m.derived[key]; ok {
		return f
	}
	var f sourceFacts
	var first engine.Audience
	for i, s := range ids {
		b, ok := turnBlock[s]
		switch {
		case !ok:
			f.fail = "unknown_source:" + s
		case b > block:
			f.fail = "future_source:" + s
		}
		if f.fail != "" {
			break
		}
		tf := m.get(s)
		if !tf.known {
			f.fail = "source_without_audience:" + s
			break
		}
		a := tf.audience
		if i == 0 {
			first = a
		} else if !f.mixed && !a.Equal(first) {
			f.mixed = true
		}
		for _, g := range grants {
			if g.ObjectTurn == s {
				a = a.Union(m.c.Audience.GrantAudience(g))
			}
		}
		if i == 0 {
			f.audience = a
		} else {
			f.audience = f.audience.Intersect(a)
		}
		f.channels = append(f.channels, tf.channel)
	}
	m.derived[key] = f
	return f
}

func admitItem(m *turnMemo, c *engine.Case, block int, viewers engine.Viewers, it AudienceItem, p AudienceParams,
	turnBlock map[string]int, grants []engine.AudienceGrant) ItemDecision {
	d := ItemDecision{ID: it.ID, Sources: it.Sources}
	fail := func(reason string) ItemDecision {
		d.Kept, d.Reason = false, reason
		if it.FreeText {
			d.Reason = "free_text_whole:" + reason
		}
		return d
	}
	if len(it.Sources) == 0 {
		return fail("no_sources")
	}
	sf := m.sources(it.Sources, block, turnBlock, grants)
	if sf.fail != "" {
		return fail(sf.fail)
	}
	d.Audience = sf.audience
	if p.Disposition == DispositionSuppress && sf.mixed {
		// Sources said before different audiences make a derived item; grants do not decide
		// that (else removing one could un-suppress an item).
		return fail("suppressed_derived_from_several_audiences")
	}
	d.Authorized = []engine.Audience{d.Audience}
	for _, g := range grants {
		if g.ObjectRecord != "" && g.ObjectRecord == it.ID {
			d.Authorized = append(d.Authorized, c.Audience.GrantAudience(g))
		}
	}
	if p.SessionSilo {
		for _, ch := range sf.channels {
			if ch != viewers.Channel {
				return fail("silo_source_outside_request_channel:" + ch)
			}
		}
		d.Kept, d.Reason = true, "silo_all_sources_in_request_channel"
		return d
	}
	if viewers.Unresolved != "" {
		return admitUnresolved(d, c, viewers, p, fail)
	}
	if viewers.CoveredBy(d.Authorized...) {
		d.Kept, d.Reason = true, "viewers_covered"
		return d
	}
	for _, v := range viewers.Principals {
		if !(engine.Viewers{Principals: []string{v}}).CoveredBy(d.Authorized...) {
			return fail("viewer_outside_audience:" + v)
		}
	}
	return fail("viewer_outside_audience")
}

// admitUnresolved applies the identity policy to a context whose viewers are unknown.
func admitUnresolved(d ItemDecision, c *engine.Case, viewers engine.Viewers, p AudienceParams, fail func(string) ItemDecision) ItemDecision {
	switch p.Identity {
	case IdentityQuarantine:
		return fail("unresolved_viewer_quarantined:" + viewers.Unresolved)
	case IdentityFailOpen:
		// The requester is ignored: the channel's participants alone are the viewers.
		if ch, ok := c.Audience.Channel(viewers.Channel); ok && (engine.Viewers{Principals: ch.Participants}).CoveredBy(d.Authorized...) {
			d.Kept, d.Reason = true, "unresolved_viewer_fail_open"
			return d
		}
		return fail("unresolved_viewer_fail_open_outside_channel_audience")
	}
	if slices.ContainsFunc(d.Authorized, func(a engine.Audience) bool { return a.Public }) {
		d.Kept, d.Reason = true, "unresolved_viewer_public_item"
		return d
	}
	return fail("unresolved_viewer_public_only:" + viewers.Unresolved)
}
