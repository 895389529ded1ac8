package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestSideBySideShowsTypedRecords: `s` on typed memory did nothing (the pane said "side by
// side" over the inline diff). Now the memory pane lays the previous and the current version
// out in two columns: a changed field has its old value left of the divider and its new one
// right of it on the same row, a long value wraps inside its column, and no line is wider
// than the pane.
func TestSideBySideShowsTypedRecords(t *testing.T) {
	m, _ := newChainApp(t, 160, 45)
	m = press(t, m, "right", "tab", "tab") // a block whose memory adds a record; the memory pane
	b := m.chain.blocks[m.chain.block]
	const w = 60
	inline := stripANSI(strings.Join(diffTexts(m.chain.memoryLines(b, w)), "\n"))
	m = press(t, m, "s")
	side := stripANSI(strings.Join(diffTexts(m.chain.memoryLines(b, w)), "\n"))
	if side == inline || !strings.Contains(side, "previous │ current") {
		t.Fatalf("s left the typed memory inline:\n%s", side)
	}

	st := m.chain.c.styles
	long := "a vendor name long enough that it has to wrap inside its column END"
	prev := map[string]any{"authorizations": []any{map[string]any{"authorization_id": "auth_1", "status": "active",
		"scope": map[string]any{"max_amount": 18000, "vendor": "Acme"}}}}
	cur := map[string]any{"authorizations": []any{map[string]any{"authorization_id": "auth_1", "status": "active",
		"scope": map[string]any{"max_amount": 36000, "vendor": long}}}}
	lines := typedSideBySide(st, nil, "previous", "current", prev, cur, w)
	text := stripANSI(strings.Join(diffTexts(lines), "\n"))
	var amount string
	for _, l := range strings.Split(text, "\n") {
		if ansi.StringWidth(l) > w {
			t.Errorf("line of %d cells in a %d-cell pane: %q", ansi.StringWidth(l), w, l)
		}
		if strings.Contains(l, "max_amount") {
			amount = l
		}
	}
	left, right, ok := strings.Cut(amount, "│")
	if !ok || !strings.Contains(left, "18000") || !strings.Contains(right, "36000") {
		t.Errorf("the changed amount is not old │ new on one row: %q\n%s", amount, text)
	}
	if !strings.Contains(text, "END") || !strings.Contains(text, "~ auth_1 (2 changed)") {
		t.Errorf("a long value is cut, or the record's heading is missing:\n%s", text)
	}
	changes := 0
	for _, l := range lines {
		if l.change {
			changes++
		}
	}
	if changes < 3 { // the heading and both changed fields: n/N stop on them
		t.Errorf("%d lines marked as changes:\n%s", changes, text)
	}
	same := stripANSI(strings.Join(diffTexts(typedSideBySide(st, nil, "previous", "current", prev, prev, w)), "\n"))
	if strings.Contains(same, "│") || !strings.Contains(same, "auth_1: unchanged") {
		t.Errorf("an unchanged version still draws the columns:\n%s", same)
	}
}
