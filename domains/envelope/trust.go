package envelope

import (
	"slices"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Trust schema helpers shared by the envelope domains (cybersecurity, finance), whose turns
// carry a channel beside the speaker (docs/FORMATS.md 2.2, 2.3). Each domain declares its own
// table; this reads it.

// TurnChannel is the channel of a case turn ("" when the turn is not in the blocks).
func TurnChannel(blocks []Block, t engine.Turn) string {
	if t.BlockIndex >= 0 && t.BlockIndex < len(blocks) {
		for _, bt := range blocks[t.BlockIndex].Turns {
			if bt.TurnID == t.ID {
				return bt.Channel
			}
		}
	}
	for _, b := range blocks {
		for _, bt := range b.Turns {
			if bt.TurnID == t.ID {
				return bt.Channel
			}
		}
	}
	return ""
}

// TrustTable is one domain's mapping of a turn's principal and channel onto the trust
// lattice, tried in the order of TurnTrust.
type TrustTable struct {
	// RelayedChannels contain one of these words: a hand-off channel restates others' words.
	RelayedChannels []string
	// RelayedPrefixes and RelayedMarkers open, or appear in, text pasted from elsewhere.
	RelayedPrefixes []string
	RelayedMarkers  []string
	// SignedChannels open with one of these: the platform signs what is posted there.
	SignedChannels []string
	// SignedChangeMarker in an authority-capable principal's signed post marks a signed
	// change set ("" when the domain has none).
	SignedChangeMarker string
	// RegisterChannels contain one of these: an authority's post there is a register entry.
	RegisterChannels []string
	// SystemSpeakers post signed platform policy (cybersecurity's policy registry).
	SystemSpeakers []string
	// ExternalSpeakers and ExternalChannels speak for vendors, counterparties or the market.
	ExternalSpeakers []string
	ExternalChannels []string
}

// The rules a TrustTable applies, as the lab names them.
const (
	RuleNoPrincipal    = "no_principal"
	RuleRelayedText    = "relayed_text"
	RuleSignedChange   = "signed_change_set"
	RuleSignedRegister = "signed_register"
	RuleSystemPolicy   = "signed_policy_register"
	RuleAuthority      = "authority_capable_principal"
	RuleExternal       = "external_principal"
	RuleMember         = "organisation_member"
)

// TurnTrust places a turn: no speaker is UNKNOWN; relayed text EXTERNAL (whoever pastes
// it); an authority-capable principal's signed change set or register entry SYSTEM, its
// other turns USER_CONFIRMED; the signed policy register SYSTEM; vendors, counterparties and
// market notes EXTERNAL; every other member USER_HISTORY.
func (tt TrustTable) TurnTrust(channel string, t engine.Turn, authorityCapable bool) engine.TrustAssignment {
	at := func(l engine.Trust, rule string) engine.TrustAssignment {
		return engine.TrustAssignment{Level: l, Rule: rule}
	}
	ch := strings.ToLower(channel)
	switch {
	case strings.TrimSpace(t.ActorID) == "":
		return at(engine.TrustUnknown, RuleNoPrincipal)
	case containsAny(ch, tt.RelayedChannels) || engine.OpensWith(t.Content, tt.RelayedPrefixes...) || containsAny(t.Content, tt.RelayedMarkers):
		return at(engine.TrustExternal, RuleRelayedText)
	case authorityCapable && tt.SignedChangeMarker != "" && hasPrefixAny(ch, tt.SignedChannels) && strings.Contains(t.Content, tt.SignedChangeMarker):
		return at(engine.TrustSystem, RuleSignedChange)
	case authorityCapable && containsAny(ch, tt.RegisterChannels):
		return at(engine.TrustSystem, RuleSignedRegister)
	case authorityCapable:
		return at(engine.TrustUserConfirmed, RuleAuthority)
	case slices.Contains(tt.SystemSpeakers, t.ActorID) && hasPrefixAny(ch, tt.SignedChannels):
		return at(engine.TrustSystem, RuleSystemPolicy)
	case slices.Contains(tt.ExternalSpeakers, t.ActorID) || containsAny(ch, tt.ExternalChannels):
		return at(engine.TrustExternal, RuleExternal)
	}
	return at(engine.TrustUserHistory, RuleMember)
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
