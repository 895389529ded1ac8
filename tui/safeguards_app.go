package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// runSafeguardsKey is the lab key as the chains list describes it (the run's table).
func runSafeguardsKey(open key.Binding) key.Binding {
	return key.NewBinding(key.WithKeys(open.Keys()...), key.WithHelp(open.Help().Key, "safeguards of the run (policy × condition table)"))
}

// The root's side of the safeguard lab: which lab the program uses, and `:safeguards`.

// lab is the safeguard lab, or nil when the program has no workspace to run it over.
func (o Options) lab() SafeguardLab { return o.Lab }

// withLab builds the lab over the workspace once, so every chain screen shares its
// evaluations.
func (o Options) withLab() Options {
	if o.Lab == nil {
		o.Lab = newWorkspaceLab(o.Store, o.Models)
	}
	return o
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
