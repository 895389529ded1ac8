package tui

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
)

// Presentation of the lab's stored answers: pure functions to the pane's and the run screen's
// display rows (safeguards_view.go).

// labBaseline says what each gated trial is compared with (replay's lab design).
const labBaseline = "each gated trial is paired with a fresh un-gated trial by the same executor and seed at the same block: only the memory differs"

func blockOrNone(b *int) int {
	if b == nil {
		return -1
	}
	return *b
}

// labMemory is a memory payload (a tree for typed memory, a string for free text) ready to
// diff; nil when there is none.
func labMemory(id string, block int, arch string, payload any, hash string) *MemoryVersion {
	if payload == nil {
		return nil
	}
	if text, ok := payload.(string); ok {
		return &MemoryVersion{MemoryID: id, BlockIndex: block, Architecture: arch, Text: text, ContentHash: hash}
	}
	return &MemoryVersion{MemoryID: id, BlockIndex: block, Architecture: engine.ArchTyped, Payload: payload, ContentHash: hash}
}

// sourceTurns looks up cited turn ids in the case: the principal each speaks for (by the
// domain's source-authority rules when it has them) and whether that principal may grant.
func sourceTurns(d engine.Domain, c *engine.Case, ids []string) []SourceTurn {
	if len(ids) == 0 || c == nil {
		return nil
	}
	rules, _ := d.(engine.SourceAuthorityRules)
	capable := map[string]bool{}
	if rules != nil {
		for _, p := range rules.AuthorityCapablePrincipals(c) {
			capable[p] = true
		}
	}
	out := make([]SourceTurn, 0, len(ids))
	for _, id := range ids {
		st := SourceTurn{ID: id, Block: -1}
		if t, ok := c.Turn(id); ok {
			st.Block, st.Speaker, st.Content = t.BlockIndex, firstNonEmpty(t.ActorID, t.Speaker), t.Content
			if rules != nil {
				st.Speaker = rules.TurnPrincipal(t)
				st.Capability = "cannot grant"
				if capable[st.Speaker] {
					st.Capability = "can grant"
				}
			}
		}
		out = append(out, st)
	}
	return out
}

func presentEffect(e string) string {
	switch e {
	case replay.EffectPrevented:
		return effectPrevented
	case replay.EffectRefused:
		return effectRefused
	case replay.EffectNotEstimable:
		return effectNotEstimable
	case replay.EffectEnabled:
		return effectEnabled
	}
	return ""
}

// presentSafeguardTable turns the lab's run table into the screen's rows.
func presentSafeguardTable(rows []engine.SafeguardRow) SafeguardTable {
	var t SafeguardTable
	for _, r := range rows {
		t.Rows = append(t.Rows, SafeguardRow{Policy: r.PolicyID, Condition: r.Condition, Chains: r.Chains,
			Unauthorized: presentRate(r.UnauthorizedAction), AuthorizedSuccess: presentRate(r.AuthorizedSuccess), Formation: presentRate(r.Formation),
			Prevented: r.Prevented, Refused: r.Refused, NotEstimable: r.NotEstimable, NotApplicable: r.NotApplicable,
			ChainsStopped: r.ChainsStopped, ChainsRefused: r.ChainsRefused})
	}
	return t
}

func presentRate(m engine.SafeguardMetric) SafeguardRate {
	r := SafeguardRate{NumBefore: m.Written.Numerator, DenBefore: m.Written.Denominator, NumAfter: m.Gated.Numerator, DenAfter: m.Gated.Denominator}
	if m.Written.Rate != nil && m.Gated.Rate != nil && m.Difference != nil {
		r.Estimable, r.Before, r.After, r.Diff = true, *m.Written.Rate, *m.Gated.Rate, *m.Difference
	}
	if m.Interval != nil {
		r.HasInterval, r.DiffLow, r.DiffHigh = true, m.Interval.Low, m.Interval.High
	}
	return r
}
