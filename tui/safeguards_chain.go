package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The chain screen's side of the safeguards pane: opening it, routing its messages and keys.
// Block keys keep working inside the pane and move the chain view with it, so esc returns to
// the block the pane showed.

// withLab gives the screen the lab (nil: `S` says the workspace cannot run it).
func (s chainScreen) withLab(lab SafeguardLab) chainScreen {
	s.lab = lab
	return s
}

// openSafeguards opens the pane on the block shown (`S` and `:safeguards`).
func (s *chainScreen) openSafeguards() tea.Cmd {
	if s.lab == nil || s.detail == nil {
		s.notice = "the safeguard lab needs a workspace"
		return nil
	}
	s.safeguards = newSafeguardsPanel(s.c, s.lab, s.models, s.key, schemaPaths(s.schema()), s.block)
	return s.safeguards.Init()
}

// updateLab hands the lab's messages to the pane; handled is false for other messages.
func (s chainScreen) updateLab(msg tea.Msg) (chainScreen, tea.Cmd, bool) {
	switch msg.(type) {
	case safeguardsLoadedMsg, labProgressMsg, labDoneMsg:
	default:
		return s, nil, false
	}
	if s.safeguards == nil {
		return s, nil, true
	}
	// The pane is shared by copies of the screen: copy it before mutating (as the re-run
	// panel), so an earlier model value never changes under the program.
	p := *s.safeguards
	s.safeguards = &p
	return s, p.Update(msg), true
}

// safeguardsKey routes a key while the pane is open: block steps move the chain view and the
// pane together; everything else is the pane's.
func (s chainScreen) safeguardsKey(msg tea.KeyPressMsg) (chainScreen, tea.Cmd) {
	k := &s.c.keys.Chain
	p := *s.safeguards
	s.safeguards = &p
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.PrevBlock):
		cmd = s.setBlock(s.block - 1)
	case key.Matches(msg, k.NextBlock):
		cmd = s.setBlock(s.block + 1)
	case key.Matches(msg, k.FirstFalse):
		fa := s.firstFalse()
		if fa < 0 {
			p.note = "this chain never forms false authority"
			return s, nil
		}
		cmd = s.setBlock(fa)
	default:
		return s, p.handleKey(msg)
	}
	p.block, p.scroll = s.block, 0
	return s, cmd
}

// closeSafeguards handles esc while the pane is open; it reports whether the pane took it.
func (s *chainScreen) closeSafeguards() bool { return panelBack(&s.safeguards) }
