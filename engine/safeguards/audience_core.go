package safeguards

import (
	"slices"

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
	for _, it := range items {
		out = append(out, admitItem(rules, c, block, viewers, it, p, turnBlock, turns, grants))
	}
	return out
}

func admitItem(rules engine.AudienceRules, c *engine.Case, block int, viewers engine.Viewers, it AudienceItem, p AudienceParams,
	turnBlock map[string]int, turns map[string]engine.Turn, grants []engine.AudienceGrant) ItemDecision {
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
	var auds, bases []engine.Audience
	var channels []string
	for _, s := range it.Sources {
		b, ok := turnBlock[s]
		switch {
		case !ok:
			return fail("unknown_source:" + s)
		case b > block:
			return fail("future_source:" + s)
		}
		a, known := rules.TurnAudience(c, turns[s])
		if !known {
			return fail("source_without_audience:" + s)
		}
		bases = append(bases, a)
		for _, g := range grants {
			if g.ObjectTurn == s {
				a = a.Union(c.Audience.GrantAudience(g))
			}
		}
		auds = append(auds, a)
		channels = append(channels, rules.TurnChannel(c, turns[s]))
	}
	d.Audience = auds[0]
	for _, a := range auds[1:] {
		d.Audience = d.Audience.Intersect(a)
	}
	if p.Disposition == DispositionSuppress {
		// Sources said before different audiences make a derived item; grants do not decide
		// that (else removing one could un-suppress an item).
		for _, a := range bases[1:] {
			if !a.Equal(bases[0]) {
				return fail("suppressed_derived_from_several_audiences")
			}
		}
	}
	d.Authorized = []engine.Audience{d.Audience}
	for _, g := range grants {
		if g.ObjectRecord != "" && g.ObjectRecord == it.ID {
			d.Authorized = append(d.Authorized, c.Audience.GrantAudience(g))
		}
	}
	if p.SessionSilo {
		for _, ch := range channels {
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
