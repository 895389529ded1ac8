package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// column is one table column; width 0 takes what the others leave.
type column struct {
	title string
	width int
}

// cursor is a selection in a list of n rows seen through a window of h rows. Lists are
// virtualised: only rows offset..offset+h are ever formatted, so a 16,000-row chain list
// costs the same to draw as a 20-row one.
type cursor struct {
	sel, offset int
}

func (c *cursor) move(delta, n, h int) { c.set(c.sel+delta, n, h) }

// navigate applies the list movement keys (up, down, top, bottom, half pages) to a list of n
// rows shown h at a time; it reports whether msg was one of them.
func (c *cursor) navigate(msg tea.KeyPressMsg, k listKeys, n, h int) bool {
	switch {
	case key.Matches(msg, k.Up):
		c.move(-1, n, h)
	case key.Matches(msg, k.Down):
		c.move(1, n, h)
	case key.Matches(msg, k.Top):
		c.set(0, n, h)
	case key.Matches(msg, k.Bottom):
		c.set(n-1, n, h)
	case key.Matches(msg, k.HalfDown):
		c.move(h/2, n, h)
	case key.Matches(msg, k.HalfUp):
		c.move(-h/2, n, h)
	default:
		return false
	}
	return true
}

func (c *cursor) set(i, n, h int) {
	c.sel = clamp(i, 0, max(n-1, 0))
	h = max(h, 1)
	if c.sel < c.offset {
		c.offset = c.sel
	}
	if c.sel >= c.offset+h {
		c.offset = c.sel - h + 1
	}
	c.offset = clamp(c.offset, 0, max(n-h, 0))
}

// renderTable draws the header and the visible window of rows. cell returns plain,
// already-sanitised text; styling is applied per row so a selected row reads as one bar.
func renderTable(s *Styles, cols []column, n int, cell func(row, col int) string,
	cur cursor, w, h int, rowStyle func(row int) lipgloss.Style) string {
	widths := make([]int, len(cols))
	used := 0
	for i, c := range cols {
		widths[i] = c.width
		used += c.width + 1
	}
	for i, c := range cols {
		if c.width == 0 {
			widths[i] = max(w-used, 4)
		}
	}
	line := func(get func(col int) string) string {
		var b strings.Builder
		for i := range cols {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(fit(get(i), widths[i]))
		}
		return ansi.Truncate(b.String(), w, "")
	}
	out := make([]string, 0, h)
	out = append(out, s.List.Header.Render(line(func(c int) string { return cols[c].title })))
	for r := cur.offset; r < n && len(out) < h; r++ {
		text := line(func(c int) string { return cell(r, c) })
		st := rowStyle(r)
		if r == cur.sel {
			st = s.List.Selected
			text = fit(text, w)
		}
		out = append(out, st.Render(text))
	}
	if n == 0 {
		out = append(out, s.List.Dim.Render("  (nothing to show)"))
	}
	return strings.Join(out, "\n")
}

// fit pads or truncates plain text to exactly w cells, marking a cut with an ellipsis.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}
