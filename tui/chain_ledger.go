package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// The memory against the ledger (the ledger baseline) and against the oracle-exact memory
// (the oracle baseline). The ledger table has a row cursor: a collapsed row cuts its values to
// the column, the focused row expands (enter) to the full ledger and remembered values with
// the difference marked, so no value is ever unreadable, and `y` copies that row.

// ledgerRow is the row cursor's state: which row is focused and which rows are expanded.
// expanded is replaced, never mutated, so an earlier model value never changes under the
// program (screens are values).
type ledgerRow struct {
	row      int
	expanded map[int]bool
	// all expands every row (ealscope render --pane ledger, where no key can expand one).
	all bool
}

func (l ledgerRow) isExpanded(i int) bool { return l.all || l.expanded[i] }

func (l ledgerRow) toggle(i int) ledgerRow {
	next := make(map[int]bool, len(l.expanded)+1)
	for k, v := range l.expanded {
		next[k] = v
	}
	next[i] = !next[i]
	l.expanded = next
	return l
}

// ledgerTable draws the fidelity rows: a header, one line per row (values cut to their
// column), expanded rows followed by their full values, and under a record the memory renamed
// the ledger record it pairs with and the fields that differ. starts[i] is the first line of
// row i and ends[i] one past its last, so the pane can keep the focused row in view. The
// columns are laid out by layoutColumns: they fill the pane, the values taking what the field
// and class columns leave.
func (s chainScreen) ledgerTable(b BlockDetail, w int) (out []diffLine, starts, ends []int) {
	st := s.c.styles
	sc := s.schema()
	cells := make([][]string, len(b.Fidelity))
	for i, r := range b.Fidelity {
		glyph := "! "
		if len(r.Errors) == 0 {
			glyph = "= "
		}
		l, m := ledgerCells(sc, r)
		cells[i] = []string{glyph + sanitizeLine(ledgerFieldName(r.Field)), l, m, sanitizeLine(ledgerClass(r))}
	}
	cols := []column{{title: "  field", min: 14}, {title: "ledger", mid: false, min: 10}, {title: "memory", min: 10}, {title: "error class", min: 10}}
	widths := layoutColumns(cols, naturalWidths(cols, len(cells), func(r, c int) string { return cells[r][c] }), max(w-1, 1))
	row := func(get func(int) string) string { return joinCells(cols, widths, get) }
	// The first cell is the cursor, then "=" (exact) or "!" (an error): glyphs, not colour.
	out = []diffLine{{st.List.Header.Render(" " + row(func(c int) string { return cols[c].title })), false}}
	pairs := pairRenamedRecords(b.Fidelity)
	record := ""
	focused := s.focus == paneMemory || s.only == paneMemory
	for i, r := range b.Fidelity {
		if r.AuthorizationID != record { // one header per record keeps the field column readable
			record = r.AuthorizationID
			out = append(out, diffLine{st.Chain.Speaker.Render(ansi.Truncate(sanitizeLine(record), w, "…")), false})
		}
		starts = append(starts, len(out))
		sel := " "
		if focused && i == s.ledger.row && !s.ledger.all {
			sel = "▸"
		}
		line := ansi.Truncate(sel+row(func(c int) string { return cells[i][c] }), w, "")
		if len(r.Errors) == 0 {
			out = append(out, diffLine{line, false})
		} else {
			out = append(out, diffLine{st.Chain.ErrClass.Render(line), true})
		}
		if p, ok := pairs[i]; ok {
			out = append(out, diffLine{st.App.Subtle.Render(ansi.Truncate("    ≈ the ledger's "+sanitizeLine(p.ledgerID)+" under another id; differs in:", w, "…")), false})
			for _, d := range p.diffs {
				text := fmt.Sprintf("      ~ %s: %s → %s", sanitizeLine(d[0]), sanitizeLine(d[1]), sanitizeLine(d[2]))
				out = append(out, diffLine{st.Chain.Changed.Render(ansi.Truncate(text, w, "…")), true})
			}
		}
		if s.ledger.isExpanded(i) {
			out = append(out, expandedValues(st, sc, r, w)...)
		}
		ends = append(ends, len(out))
	}
	if len(b.Fidelity) > 0 && !s.ledger.all {
		k := s.c.keys
		hint := fmt.Sprintf("  %s/%s row · %s expands the full values · %s copies the row", k.Chain.Down.Help().Key, k.Chain.Up.Help().Key,
			k.List.Open.Help().Key, k.Chain.Copy.Help().Key)
		out = append(out, diffLine{st.App.Subtle.Render(ansi.Truncate(hint, w, "…")), false})
	}
	return out, starts, ends
}

func ledgerFieldName(f string) string {
	if f == "__record__" {
		return "(whole record)"
	}
	return f
}

func ledgerClass(r FieldRow) string {
	if len(r.Errors) == 0 {
		return "exact"
	}
	class := strings.Join(r.Errors, ",")
	switch {
	case r.Overgrant:
		class += " +over"
	case r.Undergrant:
		class += " -under"
	}
	return class
}

// expandedValues shows a row's full ledger and remembered values, wrapped, with the words
// the memory lost marked [-…-] on the ledger side and the words it added {+…+} on the memory
// side. Records (JSON objects) are indented so a word diff lines up field by field.
func expandedValues(st *Styles, sc engine.RecordSchema, r FieldRow, w int) []diffLine {
	ledger, mem := expandJSON(r.Ledger), expandJSON(r.Remembered)
	var ledgerText, memText string
	f, set := setField(sc, r.Field)
	li, lok := listItems(f, r.Ledger)
	mi, mok := listItems(f, r.Remembered)
	switch {
	case set && lok && mok:
		// Order-free lists: the items each side lacks, not a word diff of their order.
		l, m, _ := setCells(li, mi)
		ledgerText, memText = markSetItems(st, sanitize(l)), markSetItems(st, sanitize(m))
	case r.Ledger == "—" || r.Remembered == "—":
		// A record one side lacks: marking every word of the other says nothing the "—" does
		// not, and buries the values.
		ledgerText, memText = sanitize(ledger), sanitize(mem)
	default:
		ledgerText, memText = markSides(st, wordDiff(sanitize(ledger), sanitize(mem)))
	}
	var out []diffLine
	block := func(label, text string) {
		out = append(out, diffLine{"    " + st.Chain.Field.Render(label), false})
		for _, dl := range wrapDiffLines(text, max(w-6, 8)) {
			out = append(out, diffLine{"      " + dl.text, dl.change})
		}
	}
	block("ledger:", ledgerText)
	block("memory:", memText)
	return out
}

// expandJSON indents a JSON object or list; anything else (a plain string cell) is as is.
func expandJSON(v string) string {
	t := strings.TrimSpace(v)
	if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		return v
	}
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(t), "", "  ") != nil {
		return v
	}
	return buf.String()
}

// ledgerRowText is the focused row as plain text for `y`: the field, both full values and
// the error class.
func ledgerRowText(r FieldRow) string {
	return sanitize(fmt.Sprintf("%s %s\nledger: %s\nmemory: %s\nerror class: %s",
		r.AuthorizationID, ledgerFieldName(r.Field), r.Ledger, r.Remembered, ledgerClass(r)))
}

// ledgerKey handles the keys of the ledger table (memory pane focused, ledger baseline):
// j/k and g/G move the row cursor, enter expands or collapses the row, y copies it.
func (s chainScreen) ledgerKey(msg tea.KeyPressMsg) (chainScreen, bool, tea.Cmd) {
	b, ok := s.blocks[s.block]
	if !ok || len(b.Fidelity) == 0 {
		return s, false, nil
	}
	k, l := &s.c.keys.Chain, &s.c.keys.List
	last := len(b.Fidelity) - 1
	switch {
	case key.Matches(msg, k.Down):
		s.ledger.row = clamp(s.ledger.row+1, 0, last)
	case key.Matches(msg, k.Up):
		s.ledger.row = clamp(s.ledger.row-1, 0, last)
	case key.Matches(msg, l.Top):
		s.ledger.row = 0
	case key.Matches(msg, l.Bottom):
		s.ledger.row = last
	case key.Matches(msg, l.Open):
		s.ledger = s.ledger.toggle(clamp(s.ledger.row, 0, last))
	case key.Matches(msg, k.Copy):
		r := b.Fidelity[clamp(s.ledger.row, 0, last)]
		s.notice = "copied row " + sanitizeLine(r.AuthorizationID+" "+ledgerFieldName(r.Field))
		return s, true, tea.SetClipboard(ledgerRowText(r))
	default:
		return s, false, nil
	}
	return s, true, nil
}

// ledgerWindow is the memory pane's visible lines on the ledger baseline: the window starts
// at the top and moves only as far as needed to keep the focused row (expanded or not) in
// view.
func (s chainScreen) ledgerWindow(b BlockDetail, w, h int) []string {
	head := s.memoryLines(b, w)
	if len(b.Fidelity) == 0 || s.ledger.all {
		return window(diffTexts(head), s.scroll[paneMemory], h)
	}
	// memoryLines puts one header line before the table.
	_, starts, ends := s.ledgerTable(b, w)
	row := clamp(s.ledger.row, 0, len(starts)-1)
	start, end := starts[row]+1, ends[row]+1
	off := 0
	if end > h {
		off = min(start-1, end-h) // one line above the row for context, when the row fits
		off = max(off, 0)
		if end-start > h {
			off = start + s.scroll[paneMemory] // a row taller than the pane scrolls with ctrl+d
		}
	}
	return window(diffTexts(head), off, h)
}

// exactSource loads what the oracle-exact memory is built from (runs.ReplayStore has it).
type exactSource interface {
	RerunSource(ctx context.Context, key runs.ChainKey, block int) (runs.RerunSource, error)
}

type exactLoadedMsg struct {
	key   runs.ChainKey
	block int
	mem   *MemoryVersion
	err   error
}

// loadExactCmd builds the oracle-exact memory at a block in the chain's architecture: the
// ledger records replayed through the block, as the faithful memory of that architecture.
func loadExactCmd(ctx context.Context, src exactSource, key runs.ChainKey, block int) tea.Cmd {
	return func() tea.Msg {
		rs, err := src.RerunSource(ctx, key, block)
		if err != nil {
			return exactLoadedMsg{key: key, block: block, err: err}
		}
		m, err := replay.ExactMemory(rs.Domain, rs.Case, rs.Block, rs.Architecture)
		if err != nil {
			return exactLoadedMsg{key: key, block: block, err: err}
		}
		return exactLoadedMsg{key: key, block: block, mem: presentMemory(m.Source, block, m.Architecture, m.Text(), m.ContentHash)}
	}
}

// wantExact starts loading the oracle-exact memory of the current block when the oracle
// baseline shows and it is not cached yet.
func (s *chainScreen) wantExact() tea.Cmd {
	if s.base != baseOracle || s.detail == nil {
		return nil
	}
	if _, ok := s.exact[s.block]; ok {
		return nil
	}
	src, ok := s.store.(exactSource)
	if !ok {
		s.exact = withExact(s.exact, s.block, exactEntry{err: "the workspace cannot build oracle-exact memory"})
		return nil
	}
	s.exact = withExact(s.exact, s.block, exactEntry{loading: true})
	return loadExactCmd(s.c.lifetime(), src, s.key.ID, s.block)
}

// exactEntry is one block's oracle-exact memory (or why there is none).
type exactEntry struct {
	mem     *MemoryVersion
	err     string
	loading bool
}

func withExact(m map[int]exactEntry, block int, e exactEntry) map[int]exactEntry {
	next := make(map[int]exactEntry, len(m)+1)
	for k, v := range m {
		next[k] = v
	}
	next[block] = e
	return next
}

// oracleLines diffs the memory against the oracle-exact memory of its block: what the
// writer should have written (the baseline, marked -) against what it wrote (+).
func (s chainScreen) oracleLines(b BlockDetail, w int) []diffLine {
	st := s.c.styles
	m := b.Memory
	e, ok := s.exact[b.Index]
	switch {
	case !ok || e.loading:
		return []diffLine{{st.App.Subtle.Render("building the oracle-exact memory…"), false}}
	case e.err != "":
		return []diffLine{{st.App.Error.Render(ansi.Truncate("(no oracle-exact memory: "+sanitizeLine(e.err)+")", w, "…")), false}}
	}
	x := e.mem
	out := []diffLine{{st.App.Subtle.Render(ansi.Truncate("- oracle-exact ("+sanitizeLine(x.MemoryID)+")  + written memory", w, "…")), false}}
	if x.ContentHash != "" && x.ContentHash == m.ContentHash {
		out = append(out, diffLine{st.Chain.Exact.Render("(identical to the oracle-exact memory)"), false})
	}
	if m.Architecture == "typed" && x.Architecture == "typed" {
		sc := s.schema()
		return append(out, fieldDiffInOrder(st, schemaPaths(sc), sc.ReadablePayload(x.Payload), sc.ReadablePayload(m.Payload), w, s.side)...)
	}
	if s.side {
		return append(out, textDiffSide(st, s.words, x.Text, m.Text, w)...)
	}
	return append(out, textDiffInlineWith(st, s.words, x.Text, m.Text, w)...)
}

// ledgerExpandKey is enter described for the ledger table's help sheet.
func ledgerExpandKey(open key.Binding) key.Binding {
	return key.NewBinding(key.WithKeys(open.Keys()...), key.WithHelp(open.Help().Key, "expand/collapse the row (full values)"))
}
