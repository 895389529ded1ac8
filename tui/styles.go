package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Palette is the set of semantic colour tokens every style is built from. Screens never pick
// colours themselves; a theme is one Palette.
type Palette struct {
	Fg, FgSubtle, Accent, Added, Removed, Warn, Err, Ok, Border, SelectedBg color.Color
}

// NewPalette picks the light or dark variant of each token. With noColor every token is
// lipgloss.NoColor, so styles keep only bold/underline/reverse: meaning never rides on colour
// alone (glyphs and bold carry it), so a no-colour frame loses nothing.
func NewPalette(isDark, noColor bool) Palette {
	if noColor {
		n := lipgloss.NoColor{}
		return Palette{n, n, n, n, n, n, n, n, n, n}
	}
	ld := lipgloss.LightDark(isDark)
	return Palette{
		Fg:         ld(lipgloss.Color("#1f2328"), lipgloss.Color("#e6edf3")),
		FgSubtle:   ld(lipgloss.Color("#656d76"), lipgloss.Color("#8b949e")),
		Accent:     ld(lipgloss.Color("#0550ae"), lipgloss.Color("#79c0ff")),
		Added:      ld(lipgloss.Color("#116329"), lipgloss.Color("#56d364")),
		Removed:    ld(lipgloss.Color("#a40e26"), lipgloss.Color("#ff7b72")),
		Warn:       ld(lipgloss.Color("#7d4e00"), lipgloss.Color("#e3b341")),
		Err:        ld(lipgloss.Color("#cf222e"), lipgloss.Color("#ff5f56")),
		Ok:         ld(lipgloss.Color("#1a7f37"), lipgloss.Color("#3fb950")),
		Border:     ld(lipgloss.Color("#d0d7de"), lipgloss.Color("#30363d")),
		SelectedBg: ld(lipgloss.Color("#ddf4ff"), lipgloss.Color("#1f3a5f")),
	}
}

// NewHighContrastPalette is presentation mode's theme: full black or white text on the
// opposite background and saturated tokens, for projectors and screen recordings.
func NewHighContrastPalette(isDark, noColor bool) Palette {
	if noColor {
		return NewPalette(isDark, true)
	}
	ld := lipgloss.LightDark(isDark)
	return Palette{
		Fg:         ld(lipgloss.Color("#000000"), lipgloss.Color("#ffffff")),
		FgSubtle:   ld(lipgloss.Color("#303030"), lipgloss.Color("#c8c8c8")),
		Accent:     ld(lipgloss.Color("#0000b0"), lipgloss.Color("#5fd7ff")),
		Added:      ld(lipgloss.Color("#005f00"), lipgloss.Color("#5fff5f")),
		Removed:    ld(lipgloss.Color("#af0000"), lipgloss.Color("#ff5f5f")),
		Warn:       ld(lipgloss.Color("#5f3f00"), lipgloss.Color("#ffd75f")),
		Err:        ld(lipgloss.Color("#c00000"), lipgloss.Color("#ff3f3f")),
		Ok:         ld(lipgloss.Color("#005f00"), lipgloss.Color("#5fff5f")),
		Border:     ld(lipgloss.Color("#000000"), lipgloss.Color("#ffffff")),
		SelectedBg: ld(lipgloss.Color("#ffff00"), lipgloss.Color("#00005f")),
	}
}

// Styles are all the styles of the program, grouped by screen, built once per palette.
type Styles struct {
	App struct {
		Title, Subtle, Error, Status, Badge lipgloss.Style
	}
	Pane struct {
		Border, Focused, Title, FocusedTitle lipgloss.Style
	}
	List struct {
		Header, Row, Selected, Flag, Dim lipgloss.Style
	}
	Chain struct {
		Block, BlockSelected, FirstFalse, Exact, Overgrant, Undergrant, Event, Status lipgloss.Style
		Speaker, TurnID, CitedLedger, CitedMemory, Content                            lipgloss.Style
		Added, Removed, Changed, Same, Field, ErrClass, Granted, Denied, Forms        lipgloss.Style
	}
	Help struct {
		Key, Desc, Sep lipgloss.Style
	}
}

// NewStyles builds every style from the palette; this is the only place colours are applied.
func NewStyles(p Palette) Styles {
	var s Styles
	base := lipgloss.NewStyle().Foreground(p.Fg)
	subtle := lipgloss.NewStyle().Foreground(p.FgSubtle)

	s.App.Title = lipgloss.NewStyle().Bold(true).Foreground(p.Accent)
	s.App.Subtle = subtle
	s.App.Error = lipgloss.NewStyle().Bold(true).Foreground(p.Err)
	s.App.Status = subtle
	s.App.Badge = lipgloss.NewStyle().Bold(true).Reverse(true)

	s.Pane.Border = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(p.Border)
	s.Pane.Focused = lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(p.Accent)
	s.Pane.Title = subtle.Bold(true)
	s.Pane.FocusedTitle = lipgloss.NewStyle().Bold(true).Foreground(p.Accent)

	s.List.Header = subtle.Bold(true)
	s.List.Row = base
	s.List.Selected = lipgloss.NewStyle().Bold(true).Background(p.SelectedBg).Foreground(p.Fg)
	s.List.Flag = lipgloss.NewStyle().Bold(true).Foreground(p.Warn)
	s.List.Dim = subtle

	s.Chain.Block = base
	s.Chain.BlockSelected = lipgloss.NewStyle().Bold(true).Reverse(true)
	s.Chain.FirstFalse = lipgloss.NewStyle().Bold(true).Foreground(p.Err)
	s.Chain.Exact = lipgloss.NewStyle().Foreground(p.Ok)
	s.Chain.Overgrant = lipgloss.NewStyle().Bold(true).Foreground(p.Err)
	s.Chain.Undergrant = lipgloss.NewStyle().Foreground(p.Warn)
	s.Chain.Event = lipgloss.NewStyle().Foreground(p.Accent)
	s.Chain.Status = subtle
	s.Chain.Speaker = lipgloss.NewStyle().Bold(true).Foreground(p.Fg)
	s.Chain.TurnID = subtle
	s.Chain.CitedLedger = lipgloss.NewStyle().Bold(true).Foreground(p.Accent)
	s.Chain.CitedMemory = lipgloss.NewStyle().Bold(true).Foreground(p.Warn)
	s.Chain.Content = base
	s.Chain.Added = lipgloss.NewStyle().Bold(true).Foreground(p.Added)
	s.Chain.Removed = lipgloss.NewStyle().Foreground(p.Removed)
	s.Chain.Changed = lipgloss.NewStyle().Bold(true).Foreground(p.Warn)
	s.Chain.Same = base
	s.Chain.Field = subtle
	s.Chain.ErrClass = lipgloss.NewStyle().Bold(true).Foreground(p.Err)
	s.Chain.Granted = lipgloss.NewStyle().Foreground(p.Ok)
	s.Chain.Denied = lipgloss.NewStyle().Foreground(p.Removed)
	s.Chain.Forms = lipgloss.NewStyle().Bold(true).Foreground(p.Err)

	s.Help.Key = lipgloss.NewStyle().Bold(true).Foreground(p.Accent)
	s.Help.Desc = subtle
	s.Help.Sep = subtle
	return s
}
