package engine

import (
	"fmt"
	"strings"
)

// The trust lattice and tool risk classes of a provenance-preserving memory firewall (PPMF,
// docs/POLICIES.md): the platform, never a memory's own text, says how far each source of a
// remembered record is trusted, and each tool says how much trust its arguments need.

// Trust is a level of the lattice UNKNOWN < EXTERNAL < TRUSTED_TOOL < USER_HISTORY <
// USER_CONFIRMED < SYSTEM. The zero value is UNKNOWN, so a missing level fails closed.
type Trust int

const (
	// TrustUnknown is a source the platform cannot place (no binding, unknown principal).
	TrustUnknown Trust = iota
	// TrustExternal is text from outside the organisation or relayed from elsewhere: vendors,
	// counterparties, market notes, forwarded or quoted text.
	TrustExternal
	// TrustTrustedTool is the output of a platform tool that read no external data.
	TrustTrustedTool
	// TrustUserHistory is what a member of the organisation said in the history.
	TrustUserHistory
	// TrustUserConfirmed is a principal able to grant speaking for itself.
	TrustUserConfirmed
	// TrustSystem is a platform-signed register or change set.
	TrustSystem
)

var trustNames = [...]string{"UNKNOWN", "EXTERNAL", "TRUSTED_TOOL", "USER_HISTORY", "USER_CONFIRMED", "SYSTEM"}

// TrustLevels lists the lattice from least to most trusted.
func TrustLevels() []Trust {
	out := make([]Trust, len(trustNames))
	for i := range trustNames {
		out[i] = Trust(i)
	}
	return out
}

// String is the level's name as the paper writes it ("USER_CONFIRMED").
func (t Trust) String() string {
	if t < 0 || int(t) >= len(trustNames) {
		return fmt.Sprintf("Trust(%d)", int(t))
	}
	return trustNames[t]
}

// ParseTrust reads a level's name.
func ParseTrust(s string) (Trust, error) {
	for i, n := range trustNames {
		if n == s {
			return Trust(i), nil
		}
	}
	return TrustUnknown, fmt.Errorf("unknown trust level %q (known: %s)", s, strings.Join(trustNames[:], ", "))
}

// Meets reports whether t is at least need.
func (t Trust) Meets(need Trust) bool { return t >= need }

// LeastTrust is the meet of the levels: the least trusted one governs (ambiguous bindings,
// records merged from several sources). No level at all is UNKNOWN: nothing vouches for it.
func LeastTrust(levels ...Trust) Trust {
	if len(levels) == 0 {
		return TrustUnknown
	}
	least := levels[0]
	for _, l := range levels[1:] {
		if l < least {
			least = l
		}
	}
	return least
}

// RiskClass is how much a tool call can do, and so how much trust its memory support needs.
type RiskClass int

const (
	// RiskNone is an undeclared tool; it has no class and the firewall refuses it.
	RiskNone RiskClass = iota
	// RiskRead reads; it needs EXTERNAL support.
	RiskRead
	// RiskNav routes or navigates (a hold sent to an approver); it needs USER_HISTORY.
	RiskNav
	// RiskEffect changes a system (a response action); it needs USER_CONFIRMED.
	RiskEffect
	// RiskPurchase commits money (an order); it needs USER_CONFIRMED.
	RiskPurchase
	// RiskCredential touches credentials (rotating a key, disabling a token); USER_CONFIRMED.
	RiskCredential
)

var riskNames = [...]string{"NONE", "READ", "NAV", "EFFECT", "PURCHASE", "CREDENTIAL"}

// String is the class's name ("PURCHASE").
func (r RiskClass) String() string {
	if r < 0 || int(r) >= len(riskNames) {
		return fmt.Sprintf("RiskClass(%d)", int(r))
	}
	return riskNames[r]
}

// RequiredTrust is the least trust a call of the class needs from the record that supports
// it. RiskNone needs more than any level, so an undeclared tool never runs.
func (r RiskClass) RequiredTrust() Trust {
	switch r {
	case RiskRead:
		return TrustExternal
	case RiskNav:
		return TrustUserHistory
	case RiskEffect, RiskPurchase, RiskCredential:
		return TrustUserConfirmed
	}
	return TrustSystem + 1
}

// TrustAssignment is a turn's level with the rule of the domain's table that set it, so the
// lab can say why a source is trusted as it is.
type TrustAssignment struct {
	Level Trust
	Rule  string
}

// TrustRules is a domain's schema of trust: how a turn's principal and channel map onto the
// lattice, each terminal tool's risk class, and the request an action call carries out.
// Safeguards that judge provenance (PPMF) read them here; the principal a turn speaks for
// and whether it may grant come from SourceAuthorityRules.
type TrustRules interface {
	// TurnTrust places one turn of the case; authorityCapable says whether its principal is
	// one of the case's authority-capable principals.
	TurnTrust(c *Case, t Turn, authorityCapable bool) TrustAssignment
	// ToolRiskClasses declares every terminal tool's base class, in the domain's tool order.
	ToolRiskClasses() []ToolClass
	// ToolRisk is the class of one call: the base class, raised where the request it carries
	// out needs more (a response action that rotates a key is CREDENTIAL). RiskNone: unknown.
	ToolRisk(name string, request any) RiskClass
	// CandidateRequest is the request an action tool call carries out (the submitted one,
	// the operational alternative, or the order its arguments spell out).
	CandidateRequest(p Probe, name string, args map[string]any) (any, error)
}

// ToolClass is one tool's declared risk class.
type ToolClass struct {
	Tool  string
	Class RiskClass
}

// DeclaredRisk is the class classes declare for the named tool, RiskNone for a tool they do
// not name: the base class a domain's ToolRisk starts from.
func DeclaredRisk(classes []ToolClass, name string) RiskClass {
	for _, tc := range classes {
		if tc.Tool == name {
			return tc.Class
		}
	}
	return RiskNone
}

// OpensWith reports whether text, leading space trimmed, begins with one of the prefixes,
// ignoring case: how a domain's trust table recognises relayed text ("Handoff from my
// notes: ...", "OMS handoff: ...") by the platform's own framing of a turn.
func OpensWith(text string, prefixes ...string) bool {
	t := strings.ToLower(strings.TrimLeft(text, " \t\r\n"))
	for _, p := range prefixes {
		if strings.HasPrefix(t, strings.ToLower(p)) {
			return true
		}
	}
	return false
}
