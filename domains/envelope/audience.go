package envelope

import "github.com/ealscope/ealscope/engine"

// The audience role (engine.AudienceRules) for the envelope domains (cybersecurity, finance):
// every corpus turn names its channel, so a turn's audience is the sidecar channel of that
// name; requests, viewers and grants are the sidecar's (docs/AUDIENCE.md).

func (a Adapter[S]) audience() engine.SidecarAudience {
	return engine.SidecarAudience{CorpusChannel: func(c *engine.Case, t engine.Turn) string {
		if src, ok := c.Source.(HistorySource); ok {
			blocks, _ := src.History()
			return TurnChannel(blocks, t)
		}
		return ""
	}}
}

// HasAudience implements engine.AudienceRules.
func (a Adapter[S]) HasAudience(c *engine.Case) bool { return a.audience().HasAudience(c) }

// TurnChannel implements engine.AudienceRules: the corpus's channel of the turn.
func (a Adapter[S]) TurnChannel(c *engine.Case, t engine.Turn) string {
	return a.audience().TurnChannel(c, t)
}

// TurnAudience implements engine.AudienceRules.
func (a Adapter[S]) TurnAudience(c *engine.Case, t engine.Turn) (engine.Audience, bool) {
	return a.audience().TurnAudience(c, t)
}

// Requests implements engine.AudienceRules.
func (a Adapter[S]) Requests(c *engine.Case, probeID string) []engine.AudienceRequest {
	return a.audience().Requests(c, probeID)
}

// RequestViewers implements engine.AudienceRules.
func (a Adapter[S]) RequestViewers(c *engine.Case, r engine.AudienceRequest) engine.Viewers {
	return a.audience().RequestViewers(c, r)
}

// GrantsAt implements engine.AudienceRules.
func (a Adapter[S]) GrantsAt(c *engine.Case, block int) []engine.AudienceGrant {
	return a.audience().GrantsAt(c, block)
}
