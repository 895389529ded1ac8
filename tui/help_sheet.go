package tui

// The `?` sheet's columns, fitted to the screen. The help library draws its columns side by
// side at their natural width and drops the ones past the edge; at 80 columns the chain
// view's third column (next pane, command, back, quit) was lost. Here the columns go through
// the shared table layout (layoutColumns) and a description that does not fit wraps under
// itself, so every key stays on the sheet.

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpGap is the space between two columns of the sheet.
const helpGap = "    "

// helpColumn is one group of bindings: its keys and descriptions, and their widest cells.
type helpColumn struct {
	keys, descs  []string
	keyW, descW  int
	layoutColumn column
}

// fullHelpSheet lays groups out side by side in w cells. When they do not fit, the widest
// descriptions wrap (never narrower than minHelpDesc cells); when even that is too wide the
// columns that no longer fit start a new band below.
func fullHelpSheet(sty help.Styles, groups [][]key.Binding, w int) string {
	var cols []helpColumn
	for _, g := range groups {
		var c helpColumn
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			c.keys = append(c.keys, b.Help().Key)
			c.descs = append(c.descs, b.Help().Desc)
			c.keyW = max(c.keyW, ansi.StringWidth(b.Help().Key))
			c.descW = max(c.descW, ansi.StringWidth(b.Help().Desc))
		}
		if len(c.keys) > 0 {
			c.layoutColumn = column{min: c.keyW + 1 + min(c.descW, minHelpDesc)}
			cols = append(cols, c)
		}
	}
	var bands []string
	for len(cols) > 0 {
		n := bandSize(cols, w)
		bands = append(bands, helpBand(sty, cols[:n], w))
		cols = cols[n:]
	}
	return strings.Join(bands, "\n\n")
}

// minHelpDesc is the narrowest a description column wraps to.
const minHelpDesc = 14

// bandSize is how many of cols (at least one) fit side by side in w cells once their
// descriptions wrap down to their minimum.
func bandSize(cols []helpColumn, w int) int {
	used := 0
	for i, c := range cols {
		need := c.layoutColumn.min
		if i > 0 {
			need += len(helpGap)
		}
		if used+need > w && i > 0 {
			return i
		}
		used += need
	}
	return len(cols)
}

// helpBand draws cols side by side in w cells, their widths from layoutColumns.
func helpBand(sty help.Styles, cols []helpColumn, w int) string {
	layout := make([]column, len(cols))
	natural := make([]int, len(cols))
	for i, c := range cols {
		layout[i], natural[i] = c.layoutColumn, c.keyW+1+c.descW
	}
	// layoutColumns puts one space between columns; the sheet's gap is wider.
	widths := layoutColumns(layout, natural, w-(len(helpGap)-1)*(len(cols)-1))
	parts := make([]string, 0, 2*len(cols))
	for i, c := range cols {
		if i > 0 {
			parts = append(parts, sty.FullSeparator.Render(helpGap))
		}
		parts = append(parts, helpColumnText(sty, c, min(widths[i], natural[i])))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, parts...)
}

// helpColumnText is one column in w cells: each key, then its description wrapped under
// itself.
func helpColumnText(sty help.Styles, c helpColumn, w int) string {
	descW := max(w-c.keyW-1, 1)
	var lines []string
	for i, k := range c.keys {
		pad := strings.Repeat(" ", c.keyW-ansi.StringWidth(k))
		for j, part := range strings.Split(ansi.Wrap(c.descs[i], descW, " -/"), "\n") {
			lead := sty.FullKey.Render(k) + pad + " "
			if j > 0 {
				lead = strings.Repeat(" ", c.keyW+1)
			}
			part = strings.TrimRight(part, " ")
			lines = append(lines, lead+sty.FullDesc.Render(part)+strings.Repeat(" ", max(descW-ansi.StringWidth(part), 0)))
		}
	}
	return strings.Join(lines, "\n")
}
