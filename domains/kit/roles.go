package kit

import "github.com/ealscope/ealscope/engine"

// The source-authority and audience roles, which every domain fills from a few declarations
// (docs/FORMATS.md 8.1, docs/AUDIENCE.md).

// SourceAuthority is a domain's reading of who stands behind a turn and what a record cites.
type SourceAuthority[R engine.Record] struct {
	// Principals are the case's principals whose turns may grant (nil: the case's
	// authorized issuers, EAL-Bench's fallback when the metadata names no principals).
	Principals func(c *engine.Case) []string
	// Citations are the turn ids a record cites, exactly as EAL-Bench's gate reads them (nil:
	// a record cites nothing, so no source gate lets it through).
	Citations func(r R) []string
}

// TurnPrincipal implements engine.SourceAuthorityRules: the principal a turn speaks for is the
// engine turn's ActorID (procurement's actor_id; the envelope domains' turns carry no actor,
// so their speaker_id is carried there).
func (a Adapter[S, R]) TurnPrincipal(t engine.Turn) string { return t.ActorID }

// AuthorityCapablePrincipals implements engine.SourceAuthorityRules.
func (a Adapter[S, R]) AuthorityCapablePrincipals(c *engine.Case) []string {
	if principals := a.spec().SourceAuthority.Principals; principals != nil {
		return principals(c)
	}
	return append([]string(nil), c.AuthorizedIssuers...)
}

// RecordCitations implements engine.SourceAuthorityRules; a record of another domain cites
// nothing.
func (a Adapter[S, R]) RecordCitations(r engine.Record) []string {
	cites := a.spec().SourceAuthority.Citations
	if own, ok := r.(R); ok && cites != nil {
		return cites(own)
	}
	return nil
}

// HasAudience implements engine.AudienceRules.
func (a Adapter[S, R]) HasAudience(c *engine.Case) bool { return a.spec().Audience.HasAudience(c) }

// TurnChannel implements engine.AudienceRules: the corpus's channel of the turn, else the
// sidecar's.
func (a Adapter[S, R]) TurnChannel(c *engine.Case, t engine.Turn) string {
	return a.spec().Audience.TurnChannel(c, t)
}

// TurnAudience implements engine.AudienceRules.
func (a Adapter[S, R]) TurnAudience(c *engine.Case, t engine.Turn) (engine.Audience, bool) {
	return a.spec().Audience.TurnAudience(c, t)
}

// Requests implements engine.AudienceRules.
func (a Adapter[S, R]) Requests(c *engine.Case, probeID string) []engine.AudienceRequest {
	return a.spec().Audience.Requests(c, probeID)
}

// RequestViewers implements engine.AudienceRules.
func (a Adapter[S, R]) RequestViewers(c *engine.Case, r engine.AudienceRequest) engine.Viewers {
	return a.spec().Audience.RequestViewers(c, r)
}

// GrantsAt implements engine.AudienceRules.
func (a Adapter[S, R]) GrantsAt(c *engine.Case, block int) []engine.AudienceGrant {
	return a.spec().Audience.GrantsAt(c, block)
}
