package tui

import (
	"encoding/json"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
)

// Presentation of the lab's answer for one chain: pure functions from replay's evaluation to
// the pane's display rows (safeguards_view.go).

// labBaseline says what each gated trial is compared with (replay's lab design).
const labBaseline = "each gated trial is paired with a fresh un-gated trial by the same executor and seed at the same block: only the memory differs"

// presentSafeguards turns one chain's evaluation into the pane's rows.
func presentSafeguards(ch replay.SafeguardChain, ev *replay.ChainEvaluation, executor string) SafeguardChain {
	if executor == "" {
		executor = "builtin"
	}
	out := SafeguardChain{Executor: executor, Baseline: labBaseline}
	payloads := map[int]replay.SafeguardVersion{}
	for _, v := range ch.Versions {
		payloads[v.Block] = v
	}
	for _, pe := range ev.Policies {
		p := SafeguardPolicy{ID: pe.PolicyID, Version: pe.PolicyVersion, Description: pe.Description, NotApplicable: pe.NotApplicable,
			FirstFalseBefore: blockOrNone(pe.FirstFalseAuthorityBefore), FirstFalseAfter: blockOrNone(pe.FirstFalseAuthorityAfter),
			Prevented: pe.Counts.Prevented, Refused: pe.Counts.Refused, NotEstimable: pe.Counts.NotEstimable, Trials: pe.Counts.Pairs,
			RecordsRemoved: len(pe.Removed)}
		for _, b := range pe.Blocks {
			sb := SafeguardBlock{Index: b.BlockIndex, NotApplicable: b.NotApplicable,
				FormsBefore: b.Written.Estimable && b.Written.Formed, FormsAfter: b.GatedFormation.Estimable && b.GatedFormation.Formed}
			v := payloads[b.BlockIndex]
			sb.Written = labMemory(v.MemoryID, b.BlockIndex, ch.Architecture, v.Payload, b.WrittenHash)
			if b.NotApplicable == "" {
				gp := b.GatedPayload
				if gp == nil && b.Gated == nil {
					gp = v.Payload // a gate-only policy shows the executor the written memory
				}
				sb.Gated = labMemory("gated:"+pe.PolicyID, b.BlockIndex, ch.Architecture, gp, b.GatedHash)
			}
			for _, r := range b.Records {
				sb.Records = append(sb.Records, SafeguardRecord{AuthorizationID: r.AuthorizationID, Kept: r.Kept, Reasons: r.Reasons,
					Sources: sourceTurns(ch.Domain, ch.Case, r.Sources), State: r.State, Trust: r.Trust,
					BoundSources: sourceTurns(ch.Domain, ch.Case, r.BoundSources)})
			}
			for _, pair := range pe.Pairs {
				if pair.BlockIndex != b.BlockIndex {
					continue
				}
				sp := SafeguardProbe{ProbeID: pair.ProbeID, Authorized: pair.RequestAuthorized, Effect: presentEffect(pair.Effect),
					Before: labTrial(pair.Written), After: labTrial(pair.Gated)}
				sp.FormsBefore, sp.FormsAfter = armFormed(pair.Written), armFormed(pair.Gated)
				if pair.Effect == replay.EffectNotApplicable {
					sp.After = SafeguardTrial{Missing: true}
				}
				sb.Probes = append(sb.Probes, sp)
			}
			p.Blocks = append(p.Blocks, sb)
		}
		out.Policies = append(out.Policies, p)
	}
	return out
}

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
			st.Block, st.Speaker = t.BlockIndex, firstNonEmpty(t.ActorID, t.Speaker)
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

func armFormed(a *replay.SafeguardArm) *bool {
	if a == nil || !a.FormationEstimable {
		return nil
	}
	f := a.MemoryFormed
	return &f
}

// labTrial is one arm as the pane shows it.
func labTrial(a *replay.SafeguardArm) SafeguardTrial {
	if a == nil {
		return SafeguardTrial{Missing: true}
	}
	o := a.Outcome
	t := SafeguardTrial{Decision: o.Decision, Compliant: o.Compliant, Unauthorized: o.UnauthorizedActionTaken}
	if o.ProviderError != nil {
		t.ProviderError = *o.ProviderError
	}
	if o.RawToolName != nil {
		t.ToolName = *o.RawToolName
		if o.RawToolArguments != nil {
			if b, err := json.Marshal(o.RawToolArguments); err == nil {
				t.ToolArgs = jsonCell(b)
			}
		}
	}
	if a.Gate != nil && !a.Gate.Allowed {
		t.GateReason = a.Gate.Reason
	}
	return t
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
