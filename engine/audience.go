package engine

import (
	"slices"
	"sort"
)

// Audiences: who was present when something was said, who is looking now, and who was
// explicitly allowed to see more (docs/AUDIENCE.md, docs/POLICIES.md "audience_bound"). The
// values here are pure; a case's audiences come from its audience sidecar (CaseAudience),
// read by engine/audience and attached to the case by whoever loads it.

// Channel visibilities.
const (
	VisibilityPrivate = "private"
	VisibilityShared  = "shared"
	VisibilityPublic  = "public"
)

// Audience is a set of principals, or everyone (Public).
type Audience struct {
	Public     bool
	Principals []string // sorted, unique; empty when Public
}

// PublicAudience is everyone.
func PublicAudience() Audience { return Audience{Public: true} }

// AudienceOf is the audience of exactly these principals.
func AudienceOf(principals ...string) Audience {
	out := slices.Clone(principals)
	sort.Strings(out)
	return Audience{Principals: slices.Compact(out)}
}

// Has says whether a principal belongs to the audience.
func (a Audience) Has(p string) bool {
	if a.Public {
		return true
	}
	_, ok := slices.BinarySearch(a.Principals, p)
	return ok
}

// Intersect is the audience of both (public is the identity).
func (a Audience) Intersect(b Audience) Audience {
	switch {
	case a.Public:
		return b
	case b.Public:
		return a
	}
	var out []string
	for _, p := range a.Principals {
		if b.Has(p) {
			out = append(out, p)
		}
	}
	return Audience{Principals: out}
}

// Union is the audience of either.
func (a Audience) Union(b Audience) Audience {
	if a.Public || b.Public {
		return PublicAudience()
	}
	return AudienceOf(append(slices.Clone(a.Principals), b.Principals...)...)
}

// Within says whether every member of a belongs to b (a is no wider than b).
func (a Audience) Within(b Audience) bool {
	if b.Public {
		return true
	}
	if a.Public {
		return false
	}
	for _, p := range a.Principals {
		if !b.Has(p) {
			return false
		}
	}
	return true
}

// Equal says whether two audiences hold the same principals.
func (a Audience) Equal(b Audience) bool { return a.Within(b) && b.Within(a) }

// String is the audience as text: "public" or "{a, b}".
func (a Audience) String() string {
	if a.Public {
		return "public"
	}
	s := "{"
	for i, p := range a.Principals {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s + "}"
}

// Viewers is the set of principals a context is assembled for: the requesting principal and
// the participants of the channel the request is asked in. Unresolved says why the viewers
// cannot be known (a requester missing from the principals, conflicting memberships); the
// policy then fails closed.
type Viewers struct {
	Principals []string
	Unresolved string
	// Channel is the request's channel; Requester the requesting principal as claimed.
	Channel   string
	Requester string
}

// CoveredBy says whether every viewer belongs to at least one of the audiences.
func (v Viewers) CoveredBy(audiences ...Audience) bool {
	for _, p := range v.Principals {
		ok := false
		for _, a := range audiences {
			if a.Has(p) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// AudienceChannel is a sidecar channel.
type AudienceChannel struct {
	ID           string
	Visibility   string
	Participants []string
}

// Audience is who can read the channel.
func (c AudienceChannel) Audience() Audience {
	if c.Visibility == VisibilityPublic {
		return PublicAudience()
	}
	return AudienceOf(c.Participants...)
}

// AudiencePrincipal is a sidecar principal.
type AudiencePrincipal struct {
	ID       string
	CanGrant bool
}

// AudienceRequest is one request of a probe by one principal in one channel: the principal
// dimension of a probe (the same transaction asked by the grantee and by someone else).
type AudienceRequest struct {
	ID        string
	ProbeID   string
	Principal string
	Channel   string
}

// AudienceGrant is an explicit, object-specific widening of an audience: the object (a record
// id or a turn id) is shown to a channel's participants or to named principals from the block
// of AtTurn until the block of RemovedAtTurn (RemovedAtBlock -1: never removed).
type AudienceGrant struct {
	ID             string
	ObjectRecord   string
	ObjectTurn     string
	ToChannel      string
	ToPrincipals   []string
	By             string
	AtTurn         string
	AtBlock        int
	RemovedAtTurn  string
	RemovedAtBlock int
}

// EffectiveAt says whether the grant holds at a block.
func (g AudienceGrant) EffectiveAt(block int) bool {
	return g.AtBlock <= block && (g.RemovedAtBlock < 0 || block < g.RemovedAtBlock)
}

// CaseAudience is one case's entry of an audience sidecar, checked against the case.
type CaseAudience struct {
	Principals []AudiencePrincipal
	Channels   []AudienceChannel
	// TurnChannels is the channel of each turn whose corpus gives none.
	TurnChannels map[string]string
	Requests     []AudienceRequest
	Grants       []AudienceGrant
	// Unresolved maps a requesting principal whose identity cannot be resolved to why.
	Unresolved map[string]string
}

// Channel finds a channel by id.
func (a *CaseAudience) Channel(id string) (AudienceChannel, bool) {
	return findFirst(a.Channels, func(c AudienceChannel) bool { return c.ID == id })
}

// Principal finds a principal by id.
func (a *CaseAudience) Principal(id string) (AudiencePrincipal, bool) {
	return findFirst(a.Principals, func(p AudiencePrincipal) bool { return p.ID == id })
}

// Viewers resolves a request: its principal and its channel's participants. A principal the
// sidecar marks unresolved, or a channel it does not know, makes the viewers unresolved.
func (a *CaseAudience) Viewers(r AudienceRequest) Viewers {
	v := Viewers{Channel: r.Channel, Requester: r.Principal}
	if why, ok := a.Unresolved[r.Principal]; ok {
		v.Unresolved = why
		return v
	}
	ch, ok := a.Channel(r.Channel)
	if !ok {
		v.Unresolved = "unknown_channel"
		return v
	}
	if _, ok := a.Principal(r.Principal); !ok {
		v.Unresolved = "unknown_principal"
		return v
	}
	v.Principals = AudienceOf(append([]string{r.Principal}, ch.Participants...)...).Principals
	return v
}

// GrantAudience is who a grant shows its object to.
func (a *CaseAudience) GrantAudience(g AudienceGrant) Audience {
	if g.ToChannel != "" {
		if ch, ok := a.Channel(g.ToChannel); ok {
			return ch.Audience()
		}
		return Audience{}
	}
	return AudienceOf(g.ToPrincipals...)
}

// GrantsAt are the grants in force at a block, in sidecar order.
func (a *CaseAudience) GrantsAt(block int) []AudienceGrant {
	var out []AudienceGrant
	for _, g := range a.Grants {
		if g.EffectiveAt(block) {
			out = append(out, g)
		}
	}
	return out
}

// AudienceRules is a domain's reading of who saw what (the optional role the audience-bound
// safeguard finds by type assertion): the audience of a turn, the viewers of a request and
// the grants in force at a block, all from the case's audience sidecar (Case.Audience) and,
// where the corpus names a turn's channel, from the corpus. A case without a sidecar has no
// audiences: HasAudience is false and the policy does not apply.
type AudienceRules interface {
	HasAudience(c *Case) bool
	// TurnChannel is the channel a turn was said in ("" when unknown).
	TurnChannel(c *Case, t Turn) string
	// TurnAudience is who was present when the turn was said (false: unknown turn or channel).
	TurnAudience(c *Case, t Turn) (Audience, bool)
	// Requests are the audience requests of a probe (the sidecar's order).
	Requests(c *Case, probeID string) []AudienceRequest
	// RequestViewers resolves one request.
	RequestViewers(c *Case, r AudienceRequest) Viewers
	// GrantsAt are the explicit audience grants in force at a block.
	GrantsAt(c *Case, block int) []AudienceGrant
}

// SidecarAudience implements AudienceRules over Case.Audience for a domain, given how the
// domain's corpus names a turn's channel (nil or "" : the sidecar's turn_channels decide).
type SidecarAudience struct {
	CorpusChannel func(c *Case, t Turn) string
}

// HasAudience implements AudienceRules.
func (s SidecarAudience) HasAudience(c *Case) bool { return c != nil && c.Audience != nil }

// TurnChannel implements AudienceRules: the corpus's channel, else the sidecar's.
func (s SidecarAudience) TurnChannel(c *Case, t Turn) string {
	if s.CorpusChannel != nil {
		if ch := s.CorpusChannel(c, t); ch != "" {
			return ch
		}
	}
	if c.Audience == nil {
		return ""
	}
	return c.Audience.TurnChannels[t.ID]
}

// TurnAudience implements AudienceRules.
func (s SidecarAudience) TurnAudience(c *Case, t Turn) (Audience, bool) {
	if c.Audience == nil {
		return Audience{}, false
	}
	ch, ok := c.Audience.Channel(s.TurnChannel(c, t))
	if !ok {
		return Audience{}, false
	}
	return ch.Audience(), true
}

// Requests implements AudienceRules.
func (s SidecarAudience) Requests(c *Case, probeID string) []AudienceRequest {
	if c.Audience == nil {
		return nil
	}
	var out []AudienceRequest
	for _, r := range c.Audience.Requests {
		if r.ProbeID == probeID {
			out = append(out, r)
		}
	}
	return out
}

// RequestViewers implements AudienceRules.
func (s SidecarAudience) RequestViewers(c *Case, r AudienceRequest) Viewers {
	if c.Audience == nil {
		return Viewers{Unresolved: "no_audience_sidecar", Channel: r.Channel, Requester: r.Principal}
	}
	return c.Audience.Viewers(r)
}

// GrantsAt implements AudienceRules.
func (s SidecarAudience) GrantsAt(c *Case, block int) []AudienceGrant {
	if c.Audience == nil {
		return nil
	}
	return c.Audience.GrantsAt(block)
}
