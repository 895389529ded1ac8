package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Memory diffs are pure builders: inputs are payloads and a width, the output is styled lines
// plus which of them carry a change (n/N jump between those). Glyphs mark every change as
// well as colour ([-old-] {+new+} for words; -, +, ~ for fields) so NO_COLOR loses nothing.

// diffLine is one rendered line of a diff pane.
type diffLine struct {
	text   string
	change bool
}

type wordOp struct {
	op   diffmatchpatch.Operation
	text string
}

// wordDiff diffs free text at word granularity: words and runs of whitespace are mapped to
// single runes so go-diff's character diff works on whole words (the same trick as its
// DiffLinesToChars), then cleaned up semantically so a rewritten phrase reads as one change.
func wordDiff(a, b string) []wordOp {
	index := map[string]rune{}
	var vocab []string
	encode := func(s string) []rune {
		toks := tokenize(s)
		out := make([]rune, len(toks))
		for i, t := range toks {
			r, ok := index[t]
			if !ok {
				r = rune(0xE000 + len(vocab)) // private use area: never collides with text
				if r > 0xF8FF {
					r = rune(0xF0000 + len(vocab))
				}
				index[t] = r
				vocab = append(vocab, t)
			}
			out[i] = r
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false))
	decode := map[rune]string{}
	for t, r := range index {
		decode[r] = t
	}
	out := make([]wordOp, 0, len(diffs))
	for _, d := range diffs {
		var sb strings.Builder
		for _, r := range d.Text {
			sb.WriteString(decode[r])
		}
		out = append(out, wordOp{d.Type, sb.String()})
	}
	return out
}

// tokenize splits text into words and whitespace runs, keeping everything (join == input).
func tokenize(s string) []string {
	var toks []string
	start := 0
	rs := []rune(s)
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || unicode.IsSpace(rs[i]) != unicode.IsSpace(rs[i-1]) {
			toks = append(toks, string(rs[start:i]))
			start = i
		}
	}
	return toks
}

// wordDiffs keeps the word diffs a screen has drawn, keyed by the two texts, so a redraw
// reuses them: a block's diff is computed once, not once per frame. It holds a few pairs (a
// block's diffs against each baseline) and starts over when full. A nil *wordDiffs diffs
// every time.
type wordDiffs struct {
	pairs map[[2]string][]wordOp
	// computed counts the diffs computed (not reused).
	computed int
}

// maxWordDiffs bounds the pairs kept: the current block against each baseline, and the
// block stepped from.
const maxWordDiffs = 16

// of is the word diff of a and b, computed once while it is kept.
func (d *wordDiffs) of(a, b string) []wordOp {
	if d == nil {
		return wordDiff(a, b)
	}
	k := [2]string{a, b}
	if ops, ok := d.pairs[k]; ok {
		return ops
	}
	if d.pairs == nil || len(d.pairs) >= maxWordDiffs {
		d.pairs = map[[2]string][]wordOp{}
	}
	ops := wordDiff(a, b)
	d.pairs[k] = ops
	d.computed++
	return ops
}

// textDiffInline renders a word diff as wrapped lines.
func textDiffInline(s *Styles, prev, cur string, w int) []diffLine {
	return textDiffInlineWith(s, nil, prev, cur, w)
}

// textDiffInlineWith is textDiffInline reusing the diffs d keeps.
func textDiffInlineWith(s *Styles, d *wordDiffs, prev, cur string, w int) []diffLine {
	var b strings.Builder
	for _, op := range d.of(sanitize(prev), sanitize(cur)) {
		b.WriteString(markOp(s, op))
	}
	return wrapDiffLines(b.String(), w)
}

// textDiffSide renders previous (deletions marked) and current (insertions marked) in two
// columns.
func textDiffSide(s *Styles, d *wordDiffs, prev, cur string, w int) []diffLine {
	before, after := markSides(s, d.of(sanitize(prev), sanitize(cur)))
	half := max((w-3)/2, 4)
	return zipColumns(wrapDiffLines(before, half), wrapDiffLines(after, half), half)
}

// markOp draws one word-diff op: a deletion marked [-…-], an insertion {+…+}, equal text as
// it is.
func markOp(s *Styles, op wordOp) string {
	switch op.op {
	case diffmatchpatch.DiffDelete:
		return markWords(op.text, "[-", "-]", s.Chain.Removed.Render)
	case diffmatchpatch.DiffInsert:
		return markWords(op.text, "{+", "+}", s.Chain.Added.Render)
	}
	return op.text
}

// markSides splits a word diff into its two texts: before, with the deletions marked, and
// after, with the insertions marked; equal text stands in both.
func markSides(s *Styles, ops []wordOp) (before, after string) {
	var b, a strings.Builder
	for _, op := range ops {
		if op.op != diffmatchpatch.DiffInsert {
			b.WriteString(markOp(s, op))
		}
		if op.op != diffmatchpatch.DiffDelete {
			a.WriteString(markOp(s, op))
		}
	}
	return b.String(), a.String()
}

// markWords wraps each line of a changed span in markers, so a change spanning a newline
// still shows its markers on every line it touches.
func markWords(text, open, closing string, style func(...string) string) string {
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		core := strings.TrimSpace(p)
		if core == "" {
			continue
		}
		// Whitespace stays outside the markers: "{+and Beta+}", not "{+ and Beta+}".
		lead := p[:strings.Index(p, core)]
		trail := p[len(lead)+len(core):]
		parts[i] = lead + style(open+core+closing) + trail
	}
	return strings.Join(parts, "\n")
}

func wrapDiffLines(text string, w int) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(ansi.Wrap(text, max(w, 1), ""), "\n") {
		plain := ansi.Strip(l)
		out = append(out, diffLine{l, strings.Contains(plain, "[-") || strings.Contains(plain, "{+")})
	}
	return out
}

// sideCell is "name: value" in a column of width w; when it does not fit on one line the
// value goes on the lines below the name (wrapped there), so it is never split at a hyphen
// next to its name.
func sideCell(style func(...string) string, name, value string, w int) []diffLine {
	one := name + " " + value
	if ansi.StringWidth(one) <= w {
		return []diffLine{{style(one), true}}
	}
	return append([]diffLine{{style(name), true}}, wrapDiffLines(style("  "+value), w)...)
}

func zipColumns(left, right []diffLine, half int) []diffLine {
	return zipLonger(left, right, 0, func(l, r diffLine) diffLine {
		return diffLine{padANSI(l.text, half) + " │ " + r.text, l.change || r.change}
	})
}

func padANSI(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return ansi.Truncate(s, w, "")
	}
	return s + strings.Repeat(" ", w-sw)
}

// fieldValue is one leaf of a flattened typed payload.
type fieldValue struct{ path, value string }

// flatten turns a typed memory payload into leaf paths. List items that carry an
// authorization_id are addressed by it (not by position), so reordering records is not a
// change and a field diff lines up the same record across versions.
func flatten(v any) []fieldValue {
	var out []fieldValue
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(joinPath(prefix, k), t[k])
			}
		case []any:
			if len(t) > 0 && allScalars(t) {
				out = append(out, fieldValue{prefix, scalarList(t)})
				return
			}
			if len(t) == 0 {
				out = append(out, fieldValue{prefix, "[]"})
			}
			for i, item := range t {
				seg := fmt.Sprintf("[%d]", i)
				if m, ok := item.(map[string]any); ok {
					if id, ok := m["authorization_id"].(string); ok {
						seg = "[" + id + "]"
					}
				}
				walk(prefix+seg, item)
			}
		default:
			out = append(out, fieldValue{prefix, scalar(t)})
		}
	}
	walk("", v)
	return out
}

func joinPath(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func allScalars(xs []any) bool {
	for _, x := range xs {
		switch x.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

func scalarList(xs []any) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = scalar(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func scalar(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case float64:
		return fmt.Sprint(t)
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Sprint(t)
		}
		return string(b)
	}
}

// splitRecord splits a flattened path into its record ("auth_1" from
// "authorizations[auth_1].scope.vendor") and the field within it; paths outside any record
// list keep an empty record.
func splitRecord(path string) (record, field string) {
	open := strings.IndexByte(path, '[')
	closing := strings.IndexByte(path, ']')
	if open < 0 || closing < open {
		return "", path
	}
	return path[open+1 : closing], strings.TrimPrefix(path[closing+1:], ".")
}

// fieldDiff compares two typed payloads field by field, grouped by record: a record whose
// fields all match collapses to one line; otherwise each field shows as "~ field: old → new",
// "+ field: new" or "- field: old". Records are matched by authorization id.
func fieldDiff(s *Styles, prev, cur any, w int, side bool) []diffLine {
	return fieldDiffInOrder(s, nil, prev, cur, w, side)
}

// fieldDiffInOrder is fieldDiff with each record's fields in the given order (a domain
// schema's field paths, RecordSchema.KeyOrder-like); fields it does not list follow, sorted.
func fieldDiffInOrder(s *Styles, fieldOrder []string, prev, cur any, w int, side bool) []diffLine {
	rank := map[string]int{}
	for i, f := range fieldOrder {
		rank[f] = i + 1
	}
	fields, order := pairFields(prev, cur)
	out := &fieldDiffLines{s: s, w: w, half: max((w-3)/2, 4), side: side}
	for _, rec := range order {
		out.record(rec, fields[rec], rank)
	}
	return out.lines
}

// fieldPair is one field of a record before and after.
type fieldPair struct {
	old, nw       string
	hasOld, hasNw bool
}

// pairFields pairs the fields of two typed payloads by record and field name; the records
// come sorted.
func pairFields(prev, cur any) (map[string]map[string]*fieldPair, []string) {
	fields := map[string]map[string]*fieldPair{}
	var order []string
	get := func(path string) *fieldPair {
		rec, f := splitRecord(path)
		if fields[rec] == nil {
			fields[rec] = map[string]*fieldPair{}
			order = append(order, rec)
		}
		if fields[rec][f] == nil {
			fields[rec][f] = &fieldPair{}
		}
		return fields[rec][f]
	}
	// No previous memory has no fields: flattening nil would yield one unnamed "null" leaf,
	// a stray "- : null" line on the first version's diff.
	var prevFields []fieldValue
	if prev != nil {
		prevFields = flatten(prev)
	}
	for _, f := range prevFields {
		p := get(f.path)
		p.old, p.hasOld = f.value, true
	}
	for _, f := range flatten(cur) {
		p := get(f.path)
		p.nw, p.hasNw = f.value, true
	}
	sort.Strings(order)
	return fields, order
}

// rankedFieldNames are a record's field names, those ranked first in rank order, the rest
// sorted.
func rankedFieldNames(fields map[string]*fieldPair, rank map[string]int) []string {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		switch {
		case ri > 0 && rj > 0:
			return ri < rj
		case ri > 0 || rj > 0:
			return ri > 0
		}
		return names[i] < names[j]
	})
	return names
}

// fieldDiffLines collects a field diff's lines at width w (half: a side-by-side column).
type fieldDiffLines struct {
	s       *Styles
	w, half int
	side    bool
	lines   []diffLine
}

// emit adds a header line, cut to the width.
func (o *fieldDiffLines) emit(text string, change bool) {
	o.lines = append(o.lines, diffLine{ansi.Truncate(text, o.w, "…"), change})
}

// wrapped keeps a field line whole: continuation lines are indented under the field.
func (o *fieldDiffLines) wrapped(text string, change bool) {
	if ansi.StringWidth(text) <= o.w {
		o.lines = append(o.lines, diffLine{text, change})
		return
	}
	for i, l := range strings.Split(ansi.Wrap(text, max(o.w-6, 8), ""), "\n") {
		if i > 0 {
			l = "      " + l
		}
		o.lines = append(o.lines, diffLine{l, change})
	}
}

// record adds one record: a line saying what happened to it, then (unless it is unchanged)
// its fields.
func (o *fieldDiffLines) record(rec string, fields map[string]*fieldPair, rank map[string]int) {
	s := o.s
	names := rankedFieldNames(fields, rank)
	changed, added, removed := 0, 0, 0
	for _, p := range fields {
		switch {
		case p.hasOld && p.hasNw && p.old != p.nw:
			changed++
		case p.hasNw && !p.hasOld:
			added++
		case p.hasOld && !p.hasNw:
			removed++
		}
	}
	label := sanitizeLine(rec)
	if label == "" {
		label = "(payload)"
	}
	switch {
	case changed+added+removed == 0:
		o.emit(s.Chain.Field.Render(fmt.Sprintf("  %s: unchanged (%d fields)", label, len(names))), false)
		return
	case added == len(names):
		o.emit(s.Chain.Added.Render("+ "+label+" (new record)"), true)
	case removed == len(names):
		o.emit(s.Chain.Removed.Render("- "+label+" (record dropped)"), true)
	default:
		o.emit(s.Chain.Changed.Render(fmt.Sprintf("~ %s (%d changed)", label, changed+added+removed)), true)
	}
	for _, n := range names {
		o.field(n, fields[n], added == len(names), removed == len(names))
	}
}

// field adds one field of a changed record; a new or dropped record shows only the fields
// it added or dropped, and those do not count as changes of their own.
func (o *fieldDiffLines) field(n string, p *fieldPair, newRecord, droppedRecord bool) {
	s := o.s
	name := sanitizeLine(n)
	old, nw := sanitizeLine(p.old), sanitizeLine(p.nw)
	switch {
	case p.hasOld && p.hasNw && old == nw:
		if newRecord || droppedRecord {
			return
		}
		o.wrapped("    "+s.Chain.Field.Render(name+":")+" "+nw, false)
	case p.hasOld && p.hasNw:
		if o.side {
			// Both columns wrap at their width: a long value continues on the next
			// line of its own column instead of being cut.
			left := sideCell(s.Chain.Removed.Render, "  ~ "+name+":", old, o.half)
			right := wrapDiffLines(s.Chain.Added.Render(nw), o.half)
			if len(left) > 1 { // the old value moved under its name: so does the new one
				right = append([]diffLine{{"", true}}, wrapDiffLines(s.Chain.Added.Render("  "+nw), o.half)...)
			}
			for _, l := range zipColumns(left, right, o.half) {
				o.lines = append(o.lines, diffLine{l.text, true})
			}
		} else {
			o.wrapped("  "+s.Chain.Removed.Render("~ "+name+": "+old)+" → "+s.Chain.Added.Render(nw), true)
		}
	case p.hasNw:
		o.wrapped("  "+s.Chain.Added.Render("+ "+name+": "+nw), !newRecord)
	default:
		o.wrapped("  "+s.Chain.Removed.Render("- "+name+": "+old), !droppedRecord)
	}
}

// rawPayload renders a memory payload as it was stored: free text as is, typed memory as
// indented JSON with sorted keys.
func rawPayload(m *MemoryVersion) string {
	if m.Architecture != engine.ArchTyped {
		return sanitize(m.Text)
	}
	b, err := json.MarshalIndent(m.Payload, "", "  ")
	if err != nil {
		return sanitize(fmt.Sprint(m.Payload))
	}
	return sanitize(string(b))
}
