package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// launderedChain is a typed chain of the fixture whose false authority first forms at the
// block where the scripted writer invented a record from a non-authoritative turn
// (extra_record_wrong_issuer, replay/faults.go): the record the source-authority gate exists
// to remove. It returns the chain and the invented record's id.
func launderedChain(t testing.TB) (ChainKey, string) {
	t.Helper()
	s, runID := labStore(t)
	ctx := context.Background()
	rows, err := s.Chains(ctx, runs.ChainFilter{RunID: runID, Forming: true, Sort: runs.SortByFirstFalseAuthority})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Architecture != "typed" || r.FirstFalseAuthorityBlock == nil {
			continue
		}
		h, err := s.Chain(ctx, r.Key)
		if err != nil {
			t.Fatal(err)
		}
		// Only chains whose formation comes from the invented record alone: the chain's one
		// fault is that record, at its first false-authority block.
		if len(h.Faults) != 1 {
			continue
		}
		if f := h.Faults[0]; f.Family == replay.FaultExtraRecord && f.BlockIndex == *r.FirstFalseAuthorityBlock {
			return presentChain(r).Key, f.AuthorizationID
		}
	}
	t.Fatal("the fixture has no chain forming false authority from an invented record alone")
	return ChainKey{}, ""
}

// Flow: open a forming chain at its first false-authority block, open the safeguards pane,
// see the gate remove the record that formed false authority (and why, with the turn it
// cites), and the executor escalate behind the gated memory where it acted behind the
// written one.
func TestFlowSafeguardsGateRemovesLaunderedRecord(t *testing.T) {
	s, runID := labStore(t)
	k, invented := launderedChain(t)
	tm := startProgram(t, Options{Store: s, Start: Start{Chain: &k, Block: -1}})
	waitOutput(t, tm, "FIRST FALSE AUTHORITY")
	tm.Send(tea.KeyPressMsg{Code: 'S', Text: "S"})
	// One frame carries both: the formation the gate removed and a prevented action.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("FORMATION REMOVED")) && bytes.Contains(b, []byte("PREVENTED"))
	}, teatest.WithDuration(teaWait), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Type(":q")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(teaWait)).(Model)
	out := frame(m, runID)
	wantAll(t, "final frame", out,
		"source_authority_gate",
		"first false authority block",
		"FORMATION REMOVED",
		"✗ REMOVED "+invented,
		"why: source_not_authority_capable",
		"cannot grant",
		"! PREVENTED",
		"written: execute_requested ✗ UNAUTHORIZED ACTION",
		"gated:   escalate ✓ compliant",
	)
	p := m.chain.safeguards
	if p == nil || p.data == nil {
		t.Fatal("the safeguards pane has no evaluation")
	}
	gate := p.data.Policies[p.sel]
	if gate.ID != "source_authority_gate" || gate.FirstFalseBefore != m.chain.firstFalse() || gate.FirstFalseAfter != -1 || gate.Prevented == 0 {
		t.Errorf("focused policy %s: first false authority %d → %d, %d prevented; want the gate removing formation at block %d",
			gate.ID, gate.FirstFalseBefore, gate.FirstFalseAfter, gate.Prevented, m.chain.firstFalse())
	}
}

// The flow's output must never carry a raw escape from the corpus into the terminal: the
// pane's text is sanitised (tui/sanitize.go).
func TestSafeguardsPaneSanitises(t *testing.T) {
	st := NewStyles(NewPalette(true, true))
	recs := []SafeguardRecord{{AuthorizationID: "auth\x1b]52;c;ZXZpbA==\x07_x", Reasons: []string{"why\x1b[2J"},
		Sources: []SourceTurn{{ID: "t\x1b[31m1", Speaker: "ev\u009bil", Block: 2, Content: "claim\x1b]8;;http://x\x07"}}, State: "quar\x1bantined"}}
	probes := []SafeguardProbe{{ProbeID: "p\x1b[1m", Before: SafeguardTrial{Decision: "execute\x1b[0m", ToolName: "submit\x07", ToolArgs: "{\x1b}"},
		After: SafeguardTrial{Decision: "escalate", GateReason: "gate\x1b[5m"}, Effect: effectPrevented}}
	var lines []string
	lines = append(lines, recordLines(&st, recs, 80)...)
	lines = append(lines, probeOutcomeLines(&st, "c", probes, "", 80)...)
	p := SafeguardPolicy{ID: "pol\x1b[31m", Version: "v\x1b", Description: "desc\x1b[2J", FirstFalseBefore: 1, FirstFalseAfter: -1,
		Blocks: []SafeguardBlock{{Index: 1, Records: recs, Probes: probes}}}
	lines = append(lines, policyDetailLines(&st, "c", nil, p, 1, 80)...)
	lines = append(lines, policyListLines(&st, []SafeguardPolicy{p}, 0, 40)...)
	for _, l := range lines {
		// The pane's own styles (bold, reverse) are the only escapes allowed.
		for _, own := range []string{"\x1b[1m", "\x1b[7m", "\x1b[m", "\x1b[0m", "\x1b[1;7m"} {
			l = strings.ReplaceAll(l, own, "")
		}
		if strings.ContainsAny(l, "\x1b\x07\u009b") {
			t.Errorf("unsanitised control in %q", l)
		}
	}
}

// Under MemTX a record shows its lifecycle state and reason; under PPMF its trust level and
// the turns its provenance was bound to; a gate's reason for a blocked request shows under
// the gated arm.
func TestSafeguardsRecordStateTrustAndGateReason(t *testing.T) {
	st := NewStyles(NewPalette(true, true))
	vendor := SourceTurn{ID: "t-9", Speaker: "vendor_rep", Block: 3, Capability: "cannot grant"}
	cfo := SourceTurn{ID: "t-2", Speaker: "cfo", Block: 1, Capability: "can grant"}
	recs := []SafeguardRecord{
		{AuthorizationID: "auth_a", Kept: false, State: "quarantined", Reasons: []string{"evidence_source_not_authority_capable:t-9"}, Sources: []SourceTurn{vendor}},
		{AuthorizationID: "auth_b", Kept: true, Trust: "USER_CONFIRMED", Reasons: []string{"pointer_bound"}, Sources: []SourceTurn{cfo}, BoundSources: []SourceTurn{cfo, {ID: "t-77", Block: -1}}},
	}
	probes := []SafeguardProbe{{ProbeID: "case_amount_out", Before: SafeguardTrial{Decision: "execute_requested", Unauthorized: true},
		After: SafeguardTrial{Decision: "policy_blocked", Compliant: true, GateReason: "ppmf_insufficient_trust: PURCHASE needs USER_CONFIRMED"}, Effect: effectPrevented}}
	text := ansi.Strip(strings.Join(append(recordLines(&st, recs, 100), probeOutcomeLines(&st, "case", probes, "", 100)...), "\n"))
	wantAll(t, "the record lines", text,
		"records (1 kept, 1 removed)",
		"✗ REMOVED auth_a · state quarantined",
		"why: evidence_source_not_authority_capable:t-9",
		"cites t-9 (vendor_rep, block 3, cannot grant)",
		"✓ kept auth_b · trust USER_CONFIRMED",
		"bound to t-2 (cfo, block 1, can grant), t-77 (not in the case)",
		"amount_out ✗deny · forms ?→? · ! PREVENTED",
		"gated:   policy_blocked ✓ compliant",
		"blocked by the gate: ppmf_insufficient_trust: PURCHASE needs USER_CONFIRMED",
	)
	if strings.Index(text, "auth_a") > strings.Index(text, "auth_b") {
		t.Errorf("removed records must come first:\n%s", text)
	}
}
