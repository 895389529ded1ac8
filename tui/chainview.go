package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Rendering of the chain view. Every function here is a pure function of the screen's state
// and the cached block; nothing queries the store.

func (s chainScreen) frames() chainFrames {
	return chainLayout(s.c.width, s.c.height, layoutState{focus: s.content, only: s.only})
}

// View draws the header and the panes; the root adds the footer.
func (s chainScreen) View() string {
	st := s.c.styles
	f := s.frames()
	header := s.header(f.header.w)
	if s.detail == nil {
		return header + "\n" + st.App.Subtle.Render("loading chain…")
	}
	if s.rerun != nil {
		return header + "\n" + s.rerun.View(s.c.width, max(s.c.height-footerHeight-1, 4))
	}
	if s.safeguards != nil {
		return header + "\n" + s.safeguards.View(s.c.width, max(s.c.height-footerHeight-1, 4))
	}
	b, ok := s.blocks[s.block]
	var bp *BlockDetail
	if ok {
		bp = &b
	}
	var parts []string
	add := func(p pane, sz size, title string, lines func(w, h int) []string) string {
		if sz.w == 0 || sz.h == 0 {
			return ""
		}
		var ls []string
		if bp == nil && p != paneTimeline {
			ls = []string{st.App.Subtle.Render(fmt.Sprintf("loading block %d…", s.block))}
		} else {
			ls = lines(sz.w-2, sz.h-2)
		}
		return box(st, title, ls, sz.w, sz.h, s.focus == p && s.only == paneNone)
	}
	tl := add(paneTimeline, f.timeline, "timeline", s.timelineLines)
	hist := add(paneHistory, f.history, s.historyTitle(bp), func(w, h int) []string { return s.historyLines(*bp, w, h) })
	mem := add(paneMemory, f.memory, s.memoryTitle(), func(w, h int) []string {
		if s.base == baseLedger {
			return s.ledgerWindow(*bp, w, h)
		}
		ls := s.memoryLines(*bp, w)
		out := make([]string, 0, len(ls))
		for _, l := range window(diffTexts(ls), s.scroll[paneMemory], h) {
			out = append(out, l)
		}
		return out
	})
	probes := add(paneProbes, f.probes, "probes", func(w, h int) []string { return s.probeLines(*bp, w, h) })
	switch {
	case f.wide:
		bottom := lipgloss.JoinHorizontal(lipgloss.Top, mem, probes)
		right := lipgloss.JoinVertical(lipgloss.Left, hist, bottom)
		parts = append(parts, lipgloss.JoinHorizontal(lipgloss.Top, tl, right))
	default:
		var row []string
		for _, p := range []string{tl, hist, mem, probes} {
			if p != "" {
				row = append(row, p)
			}
		}
		parts = append(parts, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return header + "\n" + strings.Join(parts, "\n")
}

func (s chainScreen) header(w int) string {
	st := s.c.styles
	k := s.key
	// The block position is what a reader steps by, so it stays whole. Then the condition: it
	// says which memory architecture the chain is about. The case gives way first (cut in the
	// middle so both ends of the id remain, down to minCase cells), then the verdict shortens
	// (the pointer to the first false authority to FA@N, then away; "not scored" to its flag,
	// the footer spelling it out), then the run number goes, and only then is the condition cut.
	status, verdicts, corpus := "", []string{""}, ""
	if s.detail != nil {
		status = st.App.Subtle.Render(fmt.Sprintf(" · block %d/%d", s.block, s.lastBlock()))
		fa := s.firstFalse()
		switch {
		case fa >= 0 && s.block == fa:
			verdicts = []string{" " + st.Chain.FirstFalse.Render("!! FIRST FALSE AUTHORITY")}
		case fa >= 0:
			fKey := s.c.keys.Chain.FirstFalse.Help().Key
			verdicts = []string{
				st.App.Subtle.Render(fmt.Sprintf(" · first false authority: block %d (%s)", fa, fKey)),
				st.App.Subtle.Render(fmt.Sprintf(" · FA@%d (%s)", fa, fKey)),
				"",
			}
		case formationUnscored(s.detail.Summary):
			verdicts = []string{st.App.Subtle.Render(" · false authority " + notScoredText), st.App.Subtle.Render(" · " + unscoredFlag)}
		default:
			verdicts = []string{st.App.Subtle.Render(" · no false authority")}
		}
		if s.detail.MissingCorpus != "" {
			corpus = " " + st.App.Error.Render("! corpus missing: "+sanitizeLine(s.detail.MissingCorpus))
		}
	}
	fixed := ansi.StringWidth(status) + ansi.StringWidth(corpus)
	caseID, cond := sanitizeLine(k.CaseID), sanitizeLine(k.ConditionID)
	const minCase = 14
	need := min(ansi.StringWidth(caseID), minCase) + len(" · ") + ansi.StringWidth(cond)
	runPart := fmt.Sprintf(" · run %d", k.WriterRunID)
	verdict := verdicts[len(verdicts)-1]
	fits := false
	for _, rp := range []string{runPart, ""} {
		for _, v := range verdicts {
			if need+ansi.StringWidth(rp)+ansi.StringWidth(v)+fixed <= w {
				runPart, verdict, fits = rp, v, true
				break
			}
		}
		if fits {
			break
		}
	}
	if !fits {
		runPart = ""
	}
	room := w - fixed - ansi.StringWidth(verdict) - ansi.StringWidth(runPart) - len(" · ")
	if ansi.StringWidth(caseID)+ansi.StringWidth(cond) > room && room > 0 {
		if caseRoom := room - ansi.StringWidth(cond); caseRoom >= minCase {
			caseID = cutMiddle(caseID, caseRoom)
		} else {
			caseID = cutMiddle(caseID, minCase)
			cond = cutMiddle(cond, max(room-ansi.StringWidth(caseID), 5))
		}
	}
	text := st.App.Title.Render(caseID) + st.App.Subtle.Render(" · "+cond+runPart) + status + verdict + corpus
	return ansi.Truncate(text, w, "…")
}

var updateGlyphs = map[string]string{
	"accepted":                     "✓ accepted",
	"no_change":                    "= no change",
	"retained_after_failed_update": "↺ retained after failed update",
}

func (s chainScreen) badge(fidelity string) string {
	st := s.c.styles.Chain
	switch fidelity {
	case "exact":
		return st.Exact.Render("[= exact]")
	case "overgrant":
		return st.Overgrant.Render("[+ OVERGRANT]")
	case "undergrant":
		return st.Undergrant.Render("[- undergrant]")
	case "overgrant+undergrant":
		return st.Overgrant.Render("[± OVER+under]")
	case "inexact":
		return st.Undergrant.Render("[~ inexact]")
	case "unscored":
		return st.Status.Render("[? unscored]")
	}
	return ""
}

// timelineLines draws two lines per block, windowed around the selected block, and a legend.
func (s chainScreen) timelineLines(w, h int) []string {
	st := s.c.styles.Chain
	fa := s.firstFalse()
	var lines []string
	titles := make([]string, len(s.detail.Blocks))
	for i, b := range s.detail.Blocks {
		titles[i] = b.Title
	}
	titles = distinctIDs(s.key.CaseID, titles)
	for i, b := range s.detail.Blocks {
		mark := " "
		switch {
		case b.Index == fa:
			mark = "!"
		case b.Forms:
			mark = "*"
		}
		sel := "  "
		if b.Index == s.block {
			sel = "▸ "
		}
		prefix := fmt.Sprintf("%s%2d %s ", sel, b.Index, mark)
		title := prefix + fitMiddle(sanitizeLine(titles[i]), max(w-ansi.StringWidth(prefix), 1))
		style := st.Block
		switch {
		case b.Index == s.block && b.Index == fa:
			style = st.BlockSelected.Inherit(st.FirstFalse)
		case b.Index == s.block:
			style = st.BlockSelected
		case b.Index == fa:
			style = st.FirstFalse
		}
		lines = append(lines, style.Render(title))
		status := updateGlyphs[b.UpdateStatus]
		if status == "" {
			status = "· no memory yet"
		}
		var evs []string
		for _, e := range b.Events {
			evs = append(evs, sanitizeLine(e.Type+":"+e.AuthorizationID))
		}
		detail := "     " + st.Status.Render(status)
		if bd := s.badge(b.Fidelity); bd != "" {
			detail += " " + bd
		}
		if len(evs) > 0 {
			detail += " " + st.Event.Render(strings.Join(evs, " "))
		}
		for _, f := range b.Faults {
			detail += " " + st.Status.Render("⚡"+sanitizeLine(f))
		}
		lines = append(lines, ansi.Truncate(detail, w, "…"))
	}
	body := max(h-1, 1)
	off := clamp(s.block*2-body/2+1, 0, max(len(lines)-body, 0))
	out := window(lines, off, body)
	for len(out) < body {
		out = append(out, "")
	}
	legend := "! first false authority  * forms"
	return append(out, s.c.styles.App.Subtle.Render(ansi.Truncate(legend, w, "…")))
}

func (s chainScreen) historyTitle(b *BlockDetail) string {
	if b == nil {
		return "history"
	}
	// The case's prefix goes, as in the timeline: a pane title cut at the end showed every
	// finance block as "block_fin_ealscope_builtin_port…".
	return fmt.Sprintf("history · block %d · %s", b.Index, sanitizeLine(caseLocalID(s.key.CaseID, b.Title)))
}

// historyLines lists the block's turns. A turn a ledger event cites gets [L type:auth]; a
// turn the memory cites gets [M]; both are bold glyph tags, so they differ without colour.
func (s chainScreen) historyLines(b BlockDetail, w, h int) []string {
	st := s.c.styles.Chain
	ledger := map[string][]string{}
	for _, e := range b.Events {
		for _, id := range e.SourceTurnIDs {
			ledger[id] = append(ledger[id], e.Type+":"+e.AuthorizationID)
		}
	}
	var lines []string
	starts := make([]int, len(b.Turns))
	for i, t := range b.Turns {
		starts[i] = len(lines)
		sel := "  "
		if i == s.turn && s.focus == paneHistory {
			sel = "▸ "
		}
		var tags []string
		if evs, ok := ledger[t.ID]; ok {
			tags = append(tags, st.CitedLedger.Render("[L "+sanitizeLine(strings.Join(evs, ","))+"]"))
		} else if t.CitedByLedger {
			tags = append(tags, st.CitedLedger.Render("[L]"))
		}
		if t.CitedByMemory {
			tags = append(tags, st.CitedMemory.Render("[M]"))
		}
		// Tags go first; a narrow pane wraps the speaker, turn id and time under them rather
		// than cutting them ("Ravi, Security Duty Officer…" named no time at 80 columns).
		head := ""
		if len(tags) > 0 {
			head += strings.Join(tags, " ") + " "
		}
		head += st.Speaker.Render(sanitizeLine(t.Speaker))
		lines = append(lines, packSegments([]string{head, st.TurnID.Render("· " + sanitizeLine(t.ID)),
			st.TurnID.Render("· " + sanitizeLine(t.OccurredAt))}, sel, "    ", w)...)
		for _, l := range strings.Split(ansi.Wrap(sanitize(t.Content), max(w-4, 8), ""), "\n") {
			lines = append(lines, "    "+l)
		}
	}
	if len(b.Turns) == 0 {
		lines = append(lines, s.c.styles.App.Subtle.Render("(no turns in this block)"))
	}
	legend := s.c.styles.App.Subtle.Render("[L] cited by a ledger event  [M] cited by the memory")
	off := s.scroll[paneHistory]
	if s.turn > 0 && s.turn < len(starts) {
		off = max(starts[s.turn]-1, 0) // one line of the turn before, for context
	}
	body := max(h-1, 1)
	out := window(lines, off, body)
	for len(out) < body {
		out = append(out, "")
	}
	return append(out, ansi.Truncate(legend, w, "…"))
}

func (s chainScreen) memoryTitle() string {
	mode := "inline"
	if s.side {
		mode = "side by side"
	}
	if s.base != basePrevious {
		return "memory · vs " + baselineNames[s.base]
	}
	return "memory · vs " + baselineNames[s.base] + " · " + mode
}

func diffTexts(ls []diffLine) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

// memoryLines is the memory pane's full content for the current baseline (before windowing),
// with change flags for n/N.
func (s chainScreen) memoryLines(b BlockDetail, w int) []diffLine {
	st := s.c.styles
	m := b.Memory
	if m == nil {
		return []diffLine{{st.App.Subtle.Render("(no memory yet: the writer has not produced a version)"), false}}
	}
	state := updateGlyphs[b.UpdateStatus]
	score := "not scored"
	if b.Exact != nil {
		score = "= exact"
		if !*b.Exact {
			score = "! differs from ledger"
		}
	}
	head := st.App.Subtle.Render(ansi.Truncate(fmt.Sprintf("%s v@%d · %s · %s · %s", sanitizeLine(shortID(m.MemoryID)), m.BlockIndex, m.Architecture, state, score), w, "…"))
	out := []diffLine{{head, false}}
	switch s.base {
	case basePrevious:
		if m.BlockIndex != b.Index && m.BlockIndex >= 0 {
			// The writer changed nothing here: the version shown was written at an earlier
			// block, and its own change is that block's, not this one's.
			out = append(out, diffLine{st.Chain.Exact.Render(fmt.Sprintf("= no change at block %d: still the version written at block %d", b.Index, m.BlockIndex)), false})
			b.Previous = m
		}
		if b.Previous != nil && b.Previous.ContentHash == m.ContentHash && m.ContentHash != "" {
			out = append(out, diffLine{st.App.Subtle.Render("(same as the previous version)"), false})
		}
		if b.Previous == nil {
			out = append(out, diffLine{st.App.Subtle.Render("(first version: everything is new)"), false})
		}
		if m.Architecture == engine.ArchTyped {
			var prev any
			if b.Previous != nil {
				prev = b.Previous.Payload
			}
			// Scaled limits (prices in micros) read in major units beside the stored figure.
			sc := s.schema()
			if s.side {
				return append(out, typedSideBySide(st, schemaPaths(sc), "previous", "current",
					sc.ReadablePayload(prev), sc.ReadablePayload(m.Payload), w)...)
			}
			return append(out, fieldDiffInOrder(st, schemaPaths(sc), sc.ReadablePayload(prev), sc.ReadablePayload(m.Payload), w, false)...)
		}
		prev := ""
		if b.Previous != nil {
			prev = b.Previous.Text
		}
		if s.side {
			return append(out, textDiffSide(st, s.words, prev, m.Text, w)...)
		}
		return append(out, textDiffInlineWith(st, s.words, prev, m.Text, w)...)
	case baseLedger:
		return append(out, s.fidelityLines(b, w)...)
	case baseOracle:
		return append(out, s.oracleLines(b, w)...)
	default:
		for _, l := range strings.Split(ansi.Wrap(rawPayload(m), max(w, 1), ""), "\n") {
			out = append(out, diffLine{l, false})
		}
		return out
	}
}

// fidelityLines is the memory against the ledger at this block: one row per field with both
// values and the error class; rows with an error start with "!" and count as changes.
func (s chainScreen) fidelityLines(b BlockDetail, w int) []diffLine {
	st := s.c.styles
	if b.Exact == nil && len(b.Fidelity) == 0 {
		why := "free-text memory needs an annotation"
		if b.Unscored != "" {
			why = sanitizeLine(b.Unscored)
		}
		out := []diffLine{{st.App.Subtle.Render("(not scored: " + why + ")"), false}}
		if b.Ledger != "" {
			out = append(out, diffLine{st.List.Header.Render("ledger state at this block"), false})
			if tree, err := pyjson.DecodeTree([]byte(b.Ledger)); err == nil {
				for _, f := range flatten(tree) {
					out = append(out, diffLine{ansi.Truncate("  "+s.c.styles.Chain.Field.Render(sanitizeLine(f.path)+":")+" "+sanitizeLine(f.value), w, "…"), false})
				}
			}
		}
		return out
	}
	lines, _, _ := s.ledgerTable(b, w)
	return lines
}

func shortID(id string) string {
	if len(id) > 16 {
		return id[:16] + "…"
	}
	return id
}

// probeLines shows each probe's oracle verdicts, whether this memory version forms false
// authority for it, and the executor's trials on the final memory; the selected probe also
// shows its request's fields (what the executor was asked to do, e.g. its action_time), so a
// reader sees why it is in or out of scope. Probe ids show the part that differs within the
// case (ids.go); trial lines wrap rather than cut.
func (s chainScreen) probeLines(b BlockDetail, w, h int) []string {
	st := s.c.styles.Chain
	verdict := func(ok bool) string {
		if ok {
			return "✓grant"
		}
		return "✗deny"
	}
	ids := make([]string, len(b.Probes))
	for i, p := range b.Probes {
		ids[i] = p.ProbeID
	}
	ids = distinctIDs(s.key.CaseID, ids)
	// The probe id comes first and is cut last; its scope and dimension are in the selected
	// probe's request line.
	cols := []column{{title: "probe", mid: true, min: 10, grow: true}, {title: "now", keep: true}, {title: "final", keep: true},
		{title: "forms", keep: true}, {title: "scope", min: 8, yield: true}}
	rows := make([][]string, len(b.Probes))
	for i, p := range b.Probes {
		forms := "?"
		if p.Forms != nil {
			forms = "-"
			if *p.Forms {
				forms = "! FORMS"
			}
		}
		rows[i] = []string{sanitizeLine(ids[i]), verdict(p.AuthorizedNow), verdict(p.AuthorizedFinal), forms, sanitizeLine(p.Scope + " " + p.Dimension)}
	}
	table := tableLines(cols, rows, max(w-2, 1))
	lines := []string{s.c.styles.List.Header.Render(fit("  "+table[0], w))}
	var starts []int
	for i, p := range b.Probes {
		starts = append(starts, len(lines))
		sel := "  "
		if i == s.probe && s.focus == paneProbes {
			sel = "▸ "
		}
		row := ansi.Truncate(sel+table[i+1], w, "…")
		if p.Forms != nil && *p.Forms {
			row = st.Forms.Render(row)
		}
		lines = append(lines, row)
		for _, t := range p.Trials {
			mark := trialMark(s.c.styles, t.Compliant, t.Unauthorized, t.ProviderError != "")
			if t.Attributed != nil && *t.Attributed {
				mark += st.Forms.Render(" MEMORY-INDUCED")
			}
			call := sanitizeLine(t.ToolName)
			if t.ToolArgs != "" {
				call += "(" + sanitizeLine(t.ToolArgs) + ")"
			}
			lines = append(lines, wrapIndented(fmt.Sprintf("#%d %s %s %s", t.ExecutorRunID, sanitizeLine(t.Decision), mark, call), "    ", "      ", w)...)
		}
		if i == s.probe {
			req := sanitizeLine(p.Scope + " " + p.Dimension)
			if len(p.Request) > 0 {
				req += " · request: " + requestText(p.Request)
			}
			lines = append(lines, wrapIndented(s.c.styles.App.Subtle.Render(req), "    ", "      ", w)...)
		}
	}
	if len(b.Probes) == 0 {
		why := "(no probes)"
		if b.ProbesErr != "" {
			why = "(" + sanitizeLine(b.ProbesErr) + ")"
		}
		lines = append(lines, s.c.styles.App.Subtle.Render(ansi.Truncate(why, w, "…")))
	}
	causeStart := len(lines)
	lines = append(lines, s.causeLines(b, w)...)
	off := 0
	switch {
	case s.probe > 0 && s.probe < len(starts):
		off = starts[s.probe] - 1
	case s.probe >= len(b.Probes) && len(b.Probes) > 0:
		// The cursor is on a ranked cause: show the causes from their heading, scrolled on
		// only as far as the focused one needs (the probes above can be many lines long).
		off = causeStart + max(0, s.probe-len(b.Probes)+2-h)
	}
	return window(lines, off, h)
}

// wrapIndented wraps text to w cells, the first line after first and the others after rest.
func wrapIndented(text, first, rest string, w int) []string {
	body := max(w-ansi.StringWidth(rest), 8)
	// ansi.Wrap lets a line end one cell past its limit on a breakpoint (", " after
	// "OrderType=limit"), which the cut below then ate: wrap one cell short, and hard-wrap
	// whatever still overflows.
	var parts []string
	for _, p := range strings.Split(ansi.Wrap(text, max(body-1, 1), ",( "), "\n") {
		if ansi.StringWidth(p) > body {
			parts = append(parts, strings.Split(ansi.Hardwrap(p, body, true), "\n")...)
			continue
		}
		parts = append(parts, p)
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		if i == 0 {
			out[i] = ansi.Truncate(first+p, w, "…")
		} else {
			out[i] = ansi.Truncate(rest+p, w, "…")
		}
	}
	return out
}

// packSegments lays segments out one after another, a space apart, starting a new line
// (indented by rest) where the next segment would not fit, so an id or a timestamp moves
// whole rather than breaking at its hyphens; a first segment wider than the line wraps.
func packSegments(segs []string, first, rest string, w int) []string {
	var out []string
	line := ""
	for i, seg := range segs {
		switch {
		case i == 0:
			out = append(out, wrapIndented(seg, first, rest, w)...)
			line = out[len(out)-1]
			out = out[:len(out)-1]
		case ansi.StringWidth(line)+1+ansi.StringWidth(seg) <= w:
			line += " " + seg
		default:
			out = append(out, line)
			line = ansi.Truncate(rest+seg, w, "…")
		}
	}
	return append(out, line)
}

// schema is the chain's domain record schema (empty when the domain is not registered).
func (s chainScreen) schema() engine.RecordSchema {
	if s.detail == nil {
		return engine.RecordSchema{}
	}
	d, err := domains.Get(s.detail.DomainID)
	if err != nil {
		return engine.RecordSchema{}
	}
	return d.Schema()
}

// schemaPaths are a schema's field paths in its order: the memory pane's field rows follow it.
func schemaPaths(sc engine.RecordSchema) []string {
	out := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		out[i] = f.Path
	}
	return out
}
