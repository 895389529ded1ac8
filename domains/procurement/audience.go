package procurement

import "github.com/ealscope/ealscope/engine"

// The audience role (engine.AudienceRules) for procurement: its turns carry an actor but no
// channel, so the sidecar's turn_channels give every turn's channel (docs/AUDIENCE.md);
// requests, viewers and grants are the sidecar's.

var sidecarAudience = engine.SidecarAudience{}

// HasAudience implements engine.AudienceRules.
func (Domain) HasAudience(c *engine.Case) bool { return sidecarAudience.HasAudience(c) }

// TurnChannel implements engine.AudienceRules: the sidecar's channel of the turn.
func (Domain) TurnChannel(c *engine.Case, t engine.Turn) string {
	return sidecarAudience.TurnChannel(c, t)
}

// TurnAudience implements engine.AudienceRules.
func (Domain) TurnAudience(c *engine.Case, t engine.Turn) (engine.Audience, bool) {
	return sidecarAudience.TurnAudience(c, t)
}

// Requests implements engine.AudienceRules.
func (Domain) Requests(c *engine.Case, probeID string) []engine.AudienceRequest {
	return sidecarAudience.Requests(c, probeID)
}

// RequestViewers implements engine.AudienceRules.
func (Domain) RequestViewers(c *engine.Case, r engine.AudienceRequest) engine.Viewers {
	return sidecarAudience.RequestViewers(c, r)
}

// GrantsAt implements engine.AudienceRules.
func (Domain) GrantsAt(c *engine.Case, block int) []engine.AudienceGrant {
	return sidecarAudience.GrantsAt(c, block)
}
