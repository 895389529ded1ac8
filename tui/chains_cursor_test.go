package tui

import (
	"strings"
	"testing"
)

// TestChainsCursorKeptOnReturn: back from a chain, the chains list's cursor is on that chain,
// whether the chain was opened from the list or the program started on it (ealscope demo).
func TestChainsCursorKeptOnReturn(t *testing.T) {
	m, _ := newChainApp(t, 120, 40) // started on the fixture's forming chain
	want := m.chain.key.ID
	m = press(t, m, "esc")
	if got := m.chains.all[m.chains.shown[m.chains.cur.sel]].Key.ID; got != want {
		t.Errorf("started on chain %d, back on the list the cursor is on %d", want, got)
	}
	m = press(t, m, "j", "j", "j", "j", "j")
	sel := m.chains.cur.sel
	picked := m.chains.all[m.chains.shown[sel]].Key.ID
	m = press(t, m, "enter", "esc")
	if got := m.chains.all[m.chains.shown[m.chains.cur.sel]].Key.ID; got != picked {
		t.Errorf("opened chain %d from row %d; back, the cursor is on %d (row %d)", picked, sel, got, m.chains.cur.sel)
	}
}

// TestChainsListConditionsStayDistinct: once a label scored a free-text chain its flags grew
// ("!FA@9 !UNAUTH×3 !MEM×3 ?annotate") and, at 80 columns, incremental_text and
// incremental_typed both rendered as "incremental_t…". The condition is cut in the middle
// now, so the two stay distinct.
func TestChainsListConditionsStayDistinct(t *testing.T) {
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 80, height: 24}
	s := newChainsScreen(c, nil, RunSummary{RunID: "r"})
	row := func(cond string, fa int) ChainSummary {
		return ChainSummary{Key: ChainKey{CaseID: "ealscope_cyber_build_runners", ConditionID: cond}, Memories: 8, Writer: "scripted",
			FirstFalseAuthority: fa, UnauthorizedActions: 3, MemoryInduced: 3, NeedsAnnotation: true}
	}
	s.all, s.ready = []ChainSummary{row("incremental_text", 9), row("incremental_typed", 7)}, true
	s.refresh()
	lines := strings.Split(stripANSI(s.View()), "\n")
	if len(lines) < 4 {
		t.Fatalf("view:\n%s", strings.Join(lines, "\n"))
	}
	text, typed := strings.Fields(lines[2]), strings.Fields(lines[3])
	if text[1] == typed[1] {
		t.Errorf("both conditions render as %q:\n%s", text[1], strings.Join(lines, "\n"))
	}
}
