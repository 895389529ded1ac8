package tui

// The memory pane's side-by-side view of typed memory (`s`): the previous version's records
// and the current one's in two columns, one row per field, the columns fitted to the pane by
// the shared table layout (layoutColumns). Values too long for their column wrap inside it;
// nothing is cut.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// typedSide is one field of one record in both versions.
type typedSide struct {
	field         string
	old, nw       string
	hasOld, hasNw bool
}

func (f typedSide) changed() bool { return f.hasOld != f.hasNw || f.old != f.nw }

// typedSideBySide lays prev and cur (typed payloads, nil for none) out in three columns in w
// cells: the field, its previous value and its current one, record by record. Records are
// matched by authorization id (flatten); fields follow fieldOrder, then the rest sorted. An
// unchanged record collapses to one line, as in the inline diff.
func typedSideBySide(st *Styles, fieldOrder []string, prevTitle, curTitle string, prev, cur any, w int) []diffLine {
	records, order := typedSideRecords(fieldOrder, prev, cur)
	cols := []column{{title: "field", min: 8}, {title: prevTitle, min: 8}, {title: curTitle, min: 8}}
	var cells [][3]string
	for _, rec := range order {
		if sideUnchanged(records[rec]) {
			continue // collapsed to one line: its values take no room
		}
		for _, f := range records[rec] {
			cells = append(cells, [3]string{"  ~ " + f.field, f.old, f.nw})
		}
	}
	natural := make([]int, len(cols))
	for i, c := range cols {
		natural[i] = min(ansi.StringWidth(c.title), 8)
		for _, row := range cells {
			natural[i] = max(natural[i], ansi.StringWidth(row[i]))
		}
	}
	// Field names stay whole up to a point: they say what the two values are.
	cols[0].min = min(natural[0], 16)
	// A row is field, space, previous, " │ ", current: two cells more than layoutColumns'
	// one space between columns. What is left over stays unused: the columns keep together.
	widths := layoutColumns(cols, natural, max(w-2, 3*8))
	widths[1] = min(widths[1], natural[1])
	var out []diffLine
	if len(cells) > 0 { // the column heading only over field rows: unchanged records are one line
		out = append(out, diffLine{ansi.Truncate(st.List.Header.Render(sideRow(widths, cols[0].title, cols[1].title, cols[2].title)), w, ""), false})
	}
	for _, rec := range order {
		fields := records[rec]
		out = append(out, typedSideHeading(st, rec, fields, w))
		if sideUnchanged(fields) {
			continue
		}
		// A record new or dropped as a whole still shows its fields: the column it is
		// missing from stays empty.
		for _, f := range fields {
			out = append(out, typedSideField(st, f, widths, w)...)
		}
	}
	if len(order) == 0 {
		out = append(out, diffLine{st.App.Subtle.Render("  (no records in either version)"), false})
	}
	return out
}

// typedSideRecords groups the flattened fields of both payloads by record, each record's
// fields in schema order.
func typedSideRecords(fieldOrder []string, prev, cur any) (map[string][]typedSide, []string) {
	rank := map[string]int{}
	for i, f := range fieldOrder {
		rank[f] = i + 1
	}
	byRec := map[string]map[string]*typedSide{}
	get := func(path string) *typedSide {
		rec, f := splitRecord(path)
		if byRec[rec] == nil {
			byRec[rec] = map[string]*typedSide{}
		}
		if byRec[rec][f] == nil {
			byRec[rec][f] = &typedSide{field: f}
		}
		return byRec[rec][f]
	}
	if prev != nil {
		for _, f := range flatten(prev) {
			p := get(f.path)
			p.old, p.hasOld = sanitizeLine(f.value), true
		}
	}
	if cur != nil {
		for _, f := range flatten(cur) {
			p := get(f.path)
			p.nw, p.hasNw = sanitizeLine(f.value), true
		}
	}
	out := map[string][]typedSide{}
	var order []string
	for rec, fields := range byRec {
		order = append(order, rec)
		for _, f := range fields {
			out[rec] = append(out[rec], *f)
		}
		sort.Slice(out[rec], func(i, j int) bool {
			a, b := out[rec][i].field, out[rec][j].field
			ra, rb := rank[a], rank[b]
			switch {
			case ra > 0 && rb > 0:
				return ra < rb
			case ra > 0 || rb > 0:
				return ra > 0
			}
			return a < b
		})
	}
	sort.Strings(order)
	return out, order
}

func sideAll(fields []typedSide, pred func(typedSide) bool) bool {
	for _, f := range fields {
		if !pred(f) {
			return false
		}
	}
	return true
}

func sideUnchanged(fields []typedSide) bool {
	return sideAll(fields, func(f typedSide) bool { return !f.changed() })
}

// typedSideHeading is a record's line: unchanged, new, dropped or how many fields changed.
func typedSideHeading(st *Styles, rec string, fields []typedSide, w int) diffLine {
	label := sanitizeLine(rec)
	if label == "" {
		label = "(payload)"
	}
	var text string
	change := true
	switch {
	case sideUnchanged(fields):
		text, change = st.Chain.Field.Render(fmt.Sprintf("  %s: unchanged (%d fields)", label, len(fields))), false
	case sideAll(fields, func(f typedSide) bool { return !f.hasOld }):
		text = st.Chain.Added.Render("+ " + label + " (new record)")
	case sideAll(fields, func(f typedSide) bool { return !f.hasNw }):
		text = st.Chain.Removed.Render("- " + label + " (record dropped)")
	default:
		n := 0
		for _, f := range fields {
			if f.changed() {
				n++
			}
		}
		text = st.Chain.Changed.Render(fmt.Sprintf("~ %s (%d changed)", label, n))
	}
	return diffLine{ansi.Truncate(text, w, "…"), change}
}

// typedSideField is one field's row: its name with a change mark, then the two values, each
// wrapped inside its column.
func typedSideField(st *Styles, f typedSide, widths []int, w int) []diffLine {
	mark := "  "
	switch {
	case !f.hasOld:
		mark = "+ "
	case !f.hasNw:
		mark = "- "
	case f.changed():
		mark = "~ "
	}
	// The name stays on one line, cut in the middle: a schema path keeps both its ends.
	name := []string{"  " + mark + cutMiddle(f.field, max(widths[0]-4, 5))}
	old, nw := wrapCell(f.old, widths[1]), wrapCell(f.nw, widths[2])
	if !f.hasOld {
		old = []string{""}
	}
	if !f.hasNw {
		nw = []string{""}
	}
	n := max(len(name), len(old), len(nw))
	out := make([]diffLine, 0, n)
	for i := range n {
		cell := func(lines []string, i int) string {
			if i < len(lines) {
				return lines[i]
			}
			return ""
		}
		l, r := cell(old, i), cell(nw, i)
		if f.changed() {
			l, r = st.Chain.Removed.Render(l), st.Chain.Added.Render(r)
		}
		text := padANSI(cell(name, i), widths[0]) + " " + padANSI(l, widths[1]) + " │ " + r
		out = append(out, diffLine{ansi.Truncate(text, w, ""), f.changed()})
	}
	return out
}

// wrapCell wraps plain text to w cells (breaking long words too), at least one line.
func wrapCell(s string, w int) []string {
	if w <= 0 {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, w, " ,-/"), "\n")
}

// sideRow is the heading row in the field rows' geometry.
func sideRow(widths []int, field, prev, cur string) string {
	return padANSI(field, widths[0]) + " " + padANSI(prev, widths[1]) + " │ " + cur
}
