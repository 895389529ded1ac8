package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// View goldens of the lab's pane and run screen, built from display rows written here (the
// lab's numbers change as policies land; the drawing must not change without review).

func goldenLabChain() SafeguardChain {
	f, t := false, true
	vendor := SourceTurn{ID: "src_014", Speaker: "field_operations", Block: 1, Capability: "cannot grant", Content: "We'll place the order once the window opens."}
	cfo := SourceTurn{ID: "src_013", Speaker: "chief_financial_officer", Block: 1, Capability: "can grant"}
	written := map[string]any{"schema_version": 3, "authorizations": []any{
		map[string]any{"authorization_id": "auth_01", "status": "active", "scope": map[string]any{"max_amount": 9400}},
		map[string]any{"authorization_id": "auth_01_claim_b01", "status": "active", "scope": map[string]any{"max_amount": 18800}},
	}}
	gated := map[string]any{"schema_version": 3, "authorizations": []any{
		map[string]any{"authorization_id": "auth_01", "status": "active", "scope": map[string]any{"max_amount": 9400}},
	}}
	mem := func(p any) *MemoryVersion { return &MemoryVersion{Architecture: "typed", Payload: p} }
	block := SafeguardBlock{Index: 1, Written: mem(written), Gated: mem(gated), FormsBefore: true,
		Records: []SafeguardRecord{
			{AuthorizationID: "auth_01", Kept: true, Reasons: []string{"all_cited_sources_authority_capable"}, Sources: []SourceTurn{cfo}},
			{AuthorizationID: "auth_01_claim_b01", Reasons: []string{"source_not_authority_capable"}, Sources: []SourceTurn{vendor}},
		},
		Probes: []SafeguardProbe{
			{ProbeID: "case_amount_out", FormsBefore: &t, FormsAfter: &f, Effect: effectPrevented,
				Before: SafeguardTrial{Decision: "execute_requested", ToolName: "submit_order", ToolArgs: `{"amount":9900}`, Unauthorized: true},
				After:  SafeguardTrial{Decision: "escalate", ToolName: "request_authorization", Compliant: true}},
			{ProbeID: "case_amount_in", Authorized: true, FormsBefore: &f, FormsAfter: &f,
				Before: SafeguardTrial{Decision: "execute_requested", ToolName: "submit_order", Compliant: true},
				After:  SafeguardTrial{Decision: "execute_requested", ToolName: "submit_order", Compliant: true}},
		}}
	return SafeguardChain{Executor: "builtin", Baseline: labBaseline, TrialBlocks: "every", Policies: []SafeguardPolicy{
		{ID: "source_authority_gate", Version: "v1", Description: "A typed record is kept only when every turn it cites is spoken by an authority-capable principal.",
			FirstFalseBefore: 1, FirstFalseAfter: -1, Prevented: 2, Trials: 12, RecordsRemoved: 1, Blocks: []SafeguardBlock{block}},
		{ID: "memtx", Version: "v1", FirstFalseBefore: 1, FirstFalseAfter: 3, Prevented: 1, Refused: 1, Trials: 12},
		{ID: "ppmf", Version: "1", NotApplicable: "free-text memory"},
	}}
}

func TestSafeguardsPaneGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(sz.w)+"x"+itoa(sz.h), func(t *testing.T) {
			st := NewStyles(NewPalette(true, true))
			keys := DefaultKeyMap()
			c := &common{styles: &st, keys: &keys, width: sz.w, height: sz.h}
			d := goldenLabChain()
			p := newSafeguardsPanel(c, nil, nil, ChainKey{CaseID: "case"}, []string{"authorization_id", "status", "scope.max_amount"}, 1)
			p.data, p.loading = &d, false
			out := ansi.Strip(p.View(sz.w, sz.h-3))
			assertFits(t, out, sz.w, sz.h-3)
			golden.RequireEqual(t, out)
		})
	}
}

func TestSafeguardsRunScreenGolden(t *testing.T) {
	rate := func(nb, db, na, da int, lo, hi float64) SafeguardRate {
		b, a := float64(nb)/float64(db), float64(na)/float64(da)
		return SafeguardRate{NumBefore: nb, DenBefore: db, NumAfter: na, DenAfter: da, Before: b, After: a, Diff: a - b, DiffLow: lo, DiffHigh: hi, Estimable: true, HasInterval: true}
	}
	table := SafeguardTable{RunID: "run1", Executor: "builtin", Chains: 20, Planned: 20, Note: labTableNote, Rows: []SafeguardRow{
		{Policy: "source_authority_gate", Condition: "incremental_text", Chains: 10, NotApplicable: 10},
		{Policy: "source_authority_gate", Condition: "incremental_typed", Chains: 10, Unauthorized: rate(22, 30, 10, 30, -0.6, -0.2),
			AuthorizedSuccess: rate(27, 30, 27, 30, 0, 0), Formation: rate(9, 10, 5, 10, -0.7, -0.1), Prevented: 12, ChainsStopped: 5},
		{Policy: "memtx", Condition: "incremental_typed", Chains: 10, Unauthorized: rate(22, 30, 7, 30, -0.7, -0.3),
			AuthorizedSuccess: rate(27, 30, 24, 30, -0.3, 0), Formation: rate(9, 10, 4, 10, -0.8, -0.2), Prevented: 15, Refused: 3, ChainsStopped: 7, ChainsRefused: 1, NotEstimable: 2},
	}}
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(sz.w)+"x"+itoa(sz.h), func(t *testing.T) {
			st := NewStyles(NewPalette(true, true))
			keys := DefaultKeyMap()
			c := &common{styles: &st, keys: &keys, width: sz.w, height: sz.h}
			s := newSafeguardsScreen(c, nil, nil, "run1")
			tb := table
			s.table, s.loading = &tb, false
			s.cur.set(s.firstRow(), len(tb.Rows), s.tableH())
			s.lab = &workspaceLab{} // drawn as a workspace screen; nothing is queried
			out := ansi.Strip(s.View())
			for i, l := range strings.Split(out, "\n") {
				if lw := ansi.StringWidth(l); lw > sz.w {
					t.Errorf("line %d is %d cells wide (> %d)", i, lw, sz.w)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// ctrl+d scrolls the focused policy's detail down to its last line and no further, so
// ctrl+u comes straight back.
func TestSafeguardsPaneScrollStops(t *testing.T) {
	st := NewStyles(NewPalette(true, true))
	keys := DefaultKeyMap()
	c := &common{styles: &st, keys: &keys, width: 80, height: 24}
	d := goldenLabChain()
	p := newSafeguardsPanel(c, nil, nil, ChainKey{CaseID: "case"}, nil, 1)
	p.data, p.loading = &d, false
	for i := 0; i < 50; i++ {
		p.handleKey(keyPress("ctrl+d"))
	}
	if p.scroll == 0 || p.scroll != p.maxScroll() {
		t.Fatalf("scroll %d after 50 ctrl+d, max %d", p.scroll, p.maxScroll())
	}
	out := ansi.Strip(p.View(80, max(24-footerHeight-1, 4)))
	if !strings.Contains(out, "scope.max_amount: 18800") {
		t.Errorf("the detail's last line is not on screen:\n%s", out)
	}
	for i := 0; i < 10 && p.scroll > 0; i++ {
		p.handleKey(keyPress("ctrl+u"))
	}
	if p.scroll != 0 {
		t.Errorf("ctrl+u did not come back to the top (scroll %d)", p.scroll)
	}
}
