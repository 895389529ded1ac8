package tui

import "testing"

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
