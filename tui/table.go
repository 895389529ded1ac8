package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// column is one table column. Every TUI table lays its columns out with layoutColumns: each
// column starts at the width of its content (and title), and when the screen is too narrow the
// widest columns that may shrink give way first, never below their minimum; a kept column
// (flags, counts, rates) is never cut. Ids cut in the middle so that ids sharing a prefix stay
// distinct.
type column struct {
	title string
	// min is the narrowest the column may get (default: its title's width, at most 8).
	min int
	// keep: never narrower than its content. grow: takes the room left over. mid: cut in the
	// middle ("block_fin…aster_03") rather than at the end.
	keep, grow, mid bool
	// yield: gives up its room (down to min) before any other column is cut.
	yield bool
}

// layoutColumns fits columns whose content is natural[i] cells wide into w cells (one space
// between columns). When everything fits, the grow column (else the last) takes what is left.
// Otherwise yielding columns give up their room first, down to their minimum and then
// entirely (width 0: not drawn); then the widest shrinkable columns are cut down to a common
// cap, as far as their minimums allow.
func layoutColumns(cols []column, natural []int, w int) []int {
	widths := make([]int, len(cols))
	mins := make([]int, len(cols))
	total := max(len(cols)-1, 0)
	for i, c := range cols {
		widths[i] = max(natural[i], 1)
		mins[i] = c.min
		if mins[i] == 0 {
			mins[i] = min(ansi.StringWidth(c.title), 8)
		}
		if c.keep {
			mins[i] = widths[i]
		}
		mins[i] = min(mins[i], widths[i])
		total += widths[i]
	}
	if total <= w {
		grow := len(cols) - 1
		for i, c := range cols {
			if c.grow {
				grow = i
				break
			}
		}
		if grow >= 0 {
			widths[grow] += w - total
		}
		return widths
	}
	shown := len(cols)
	for pass := 0; pass < 2 && total > w; pass++ {
		for i, c := range cols {
			if !c.yield || total <= w || widths[i] == 0 {
				continue
			}
			if pass == 0 {
				cut := min(widths[i]-mins[i], total-w)
				widths[i] -= cut
				total -= cut
			} else {
				total -= widths[i] + 1
				widths[i], mins[i] = 0, 0
				shown--
			}
		}
	}
	if total <= w {
		return widths
	}
	avail := w - max(shown-1, 0)
	room := make([]int, len(cols)) // what each column would take uncut
	for i := range cols {
		room[i] = widths[i]
		if cols[i].yield {
			continue // what it yielded is not handed back
		}
		room[i] = max(natural[i], 1)
	}
	// The largest cap at which the shrunk columns fit.
	fits := func(cap int) bool {
		sum := 0
		for i := range cols {
			sum += max(mins[i], min(widths[i], cap))
		}
		return sum <= avail
	}
	lo, hi := 0, 0
	for _, x := range widths {
		hi = max(hi, x)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	used := 0
	for i := range cols {
		widths[i] = max(mins[i], min(widths[i], lo))
		used += widths[i]
	}
	// Hand the cells the cap's rounding left to the columns that were cut, left to right.
	for i := range cols {
		if used >= avail {
			break
		}
		if room[i] > widths[i] {
			add := min(room[i]-widths[i], avail-used)
			widths[i] += add
			used += add
		}
	}
	return widths
}

// naturalWidths measures a table's titles and cells.
func naturalWidths(cols []column, rows int, cell func(row, col int) string) []int {
	natural := make([]int, len(cols))
	for i, c := range cols {
		natural[i] = ansi.StringWidth(c.title)
	}
	for r := 0; r < rows; r++ {
		for i := range cols {
			natural[i] = max(natural[i], ansi.StringWidth(cell(r, i)))
		}
	}
	return natural
}

// tableLines lays out a whole small table (panes: probes, ledger rows) as plain lines, the
// header first; cells are plain text.
func tableLines(cols []column, rows [][]string, w int) []string {
	widths := layoutColumns(cols, naturalWidths(cols, len(rows), func(r, c int) string { return rows[r][c] }), w)
	out := []string{joinCells(cols, widths, func(c int) string { return cols[c].title })}
	for _, r := range rows {
		out = append(out, joinCells(cols, widths, func(c int) string { return r[c] }))
	}
	return out
}

func joinCells(cols []column, widths []int, get func(col int) string) string {
	var b strings.Builder
	started := false
	for i := range cols {
		if widths[i] == 0 {
			continue // a column that yielded all its room
		}
		if started {
			b.WriteByte(' ')
		}
		started = true
		if cols[i].mid {
			b.WriteString(fitMiddle(get(i), widths[i]))
		} else {
			b.WriteString(fit(get(i), widths[i]))
		}
	}
	return b.String()
}

// measuredRows is how many rows a list measures for its column widths: all of them up to this
// many (so columns do not jump while scrolling), else the visible window.
const measuredRows = 2000

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
	from, rows := 0, n
	if n > measuredRows {
		from, rows = cur.offset, min(h, n-cur.offset)
	}
	widths := layoutColumns(cols, naturalWidths(cols, rows, func(r, c int) string { return cell(from+r, c) }), w)
	line := func(get func(col int) string) string {
		return ansi.Truncate(joinCells(cols, widths, get), w, "")
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

// fitMiddle pads or cuts plain text to exactly w cells, cutting in the middle so both ends
// stay ("block_fin…aster_03").
func fitMiddle(s string, w int) string {
	return fit(cutMiddle(s, w), w)
}

// cutMiddle shortens s to at most w cells by replacing its middle with an ellipsis; the end
// keeps the larger half, where ids differ most.
func cutMiddle(s string, w int) string {
	if ansi.StringWidth(s) <= w || w < 5 {
		return s
	}
	r := []rune(s)
	tail := (w - 1 + 1) / 2
	head := w - 1 - tail
	for ansi.StringWidth(string(r[:head]))+1+ansi.StringWidth(string(r[len(r)-tail:])) > w && tail > 1 {
		tail--
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
