package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestStatusLinesBelongToTheirState: a search's "match i/n" goes when :block moves elsewhere,
// and the re-run form's error about the edited variant goes when another variant is chosen.
func TestStatusLinesBelongToTheirState(t *testing.T) {
	m, runID := newChainApp(t, 120, 40)
	m.chain.notice = "match 2/14: a snippet"
	m = press(t, m, ":")
	for _, r := range "block 0" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	if out := frame(m, runID); strings.Contains(out, "match 2/14") {
		t.Errorf("the search's status stayed after :block 0:\n%s", out)
	}

	s, _ := testStore(t)
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 120, height: 40}
	p := newRerunPanel(c, s, nil, formingChain(t), 0)
	p.Update(p.Init()())
	p.err = errors.New("edited memory needs $EDITOR")
	p.handleKey(tea.KeyPressMsg{Code: tea.KeyRight})
	if p.err != nil || strings.Contains(p.View(120, 30), "$EDITOR") {
		t.Errorf("the edited variant's error stayed after choosing %s: %v", rerunVariants[p.variant], p.err)
	}
}
