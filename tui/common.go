package tui

import "context"

// common is what every screen shares: styles, keys and the size of the area it draws in.
// It is passed by pointer from the root so a theme change or resize reaches every screen
// without a broadcast context.
type common struct {
	// ctx is the program's lifetime: every command's queries and model calls run under it, so
	// quitting cancels what is still in flight (tui.Run cancels it when the program ends;
	// RenderFrame uses its caller's).
	ctx    context.Context
	styles *Styles
	// present are the high-contrast styles of presentation mode.
	present *Styles
	keys    *KeyMap
	width   int
	height  int
}

// lifetime is the context commands run under: the program's, or, for a common built without
// a program (tests that build screens directly), one that never ends.
func (c *common) lifetime() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}
