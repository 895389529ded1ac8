package tui

// common is what every screen shares: styles, keys and the size of the area it draws in.
// It is passed by pointer from the root so a theme change or resize reaches every screen
// without a broadcast context.
type common struct {
	styles *Styles
	// present are the high-contrast styles of presentation mode.
	present *Styles
	keys    *KeyMap
	width   int
	height  int
}
