package tui

// link is the chain view's :link line for the model's workspace, as tests read it.
func (m Model) link() string {
	if c, ok := m.topScreen().(chainScreen); ok {
		return c.link(m.opts.DBPath)
	}
	return ""
}
