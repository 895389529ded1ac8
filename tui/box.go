package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// box draws a bordered pane of exactly w×h cells with its title in the top border. Drawing
// the frame by hand keeps the size arithmetic exact (every line is padded or cut to the inner
// width), so panes tile without off-by-one gaps at any terminal size. The focused pane gets a
// heavy border and a ▶ before its title, so focus is visible without colour.
func box(s *Styles, title string, lines []string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return strings.Repeat(strings.Repeat(" ", max(w, 0))+"\n", max(h-1, 0)) + strings.Repeat(" ", max(w, 0))
	}
	tl, tr, bl, br, hz, vt := "╭", "╮", "╰", "╯", "─", "│"
	border, titleStyle := s.Pane.Border, s.Pane.Title
	if focused {
		tl, tr, bl, br, hz, vt = "┏", "┓", "┗", "┛", "━", "┃"
		border, titleStyle = s.Pane.Focused, s.Pane.FocusedTitle
		title = "▶ " + title
	}
	// Borders are drawn with the border style's colour only; its frame settings are unused.
	paint := func(x string) string { return border.UnsetBorderStyle().Render(x) }
	inner := w - 2
	title = ansi.Truncate(" "+title+" ", max(inner-1, 0), "…")
	top := paint(tl+hz) + titleStyle.Render(title) + paint(strings.Repeat(hz, max(inner-1-ansi.StringWidth(title), 0))+tr)
	out := make([]string, 0, h)
	out = append(out, top)
	for i := 0; i < h-2; i++ {
		var l string
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, paint(vt)+padANSI(l, inner)+paint(vt))
	}
	out = append(out, paint(bl+strings.Repeat(hz, inner)+br))
	return strings.Join(out, "\n")
}

// window returns the h lines of ls starting at off (clamped).
func window(ls []string, off, h int) []string {
	off = clamp(off, 0, max(len(ls)-h, 0))
	end := min(off+h, len(ls))
	if off >= end {
		return nil
	}
	return ls[off:end]
}
