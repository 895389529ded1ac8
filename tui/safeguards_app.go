package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// The root's side of the safeguard lab: which lab the program uses, and `:safeguards`.

// lab is the safeguard lab, or nil when the program has no workspace to run it over.
func (o Options) lab() SafeguardLab {
	if o.Lab != nil {
		return o.Lab
	}
	return newWorkspaceLab(o.Store, o.Models)
}

// safeguardsCommand answers `:safeguards`: the pane in the chain view, the run's screen in
// the chains list.
func (m Model) safeguardsCommand() (tea.Model, tea.Cmd) {
	switch m.top() {
	case screenChain:
		cmd := m.chain.openSafeguards()
		return m, cmd
	case screenChains:
		runID := m.chains.run.RunID
		return m, func() tea.Msg { return openSafeguardsMsg{runID} }
	}
	m.err = fmt.Errorf(":safeguards works in the chain view (this chain) and the chains list (the run)")
	return m, nil
}
