package tui

import "charm.land/bubbles/v2/key"

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
