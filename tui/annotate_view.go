package tui

// The annotation screen's drawing: help, status, the memory text beside the form.

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

func (s annotateScreen) ShortHelp() []key.Binding {
	k, g := s.c.keys.Annotate, s.c.keys.Global
	return []key.Binding{k.NextField, k.Edit, k.Save, k.Undo, k.AddRecord, k.Guidelines, k.NextMemory, g.Help, g.Back}
}

func (s annotateScreen) FullHelp() [][]key.Binding {
	k, g := s.c.keys.Annotate, s.c.keys.Global
	return [][]key.Binding{
		{k.NextField, k.PrevField, k.Edit, k.Save, k.Accept, k.Undo},
		{k.AddRecord, k.RemoveRecord, k.Prefill, k.Blind, k.NextCandidate, k.TakeCandidate},
		{k.NextMemory, k.PrevMemory, k.ScrollText, k.Guidelines, g.Help, g.Back, g.Quit, g.ForceQuit},
	}
}

// status is the footer line: the field being typed, else the last notice.
func (s annotateScreen) status() string {
	if s.edit.active {
		return s.edit.view()
	}
	return s.notice
}

// progress is "12 / 80": the open memory's place in the queue.
func (s annotateScreen) progress() string {
	if len(s.queue) == 0 {
		return "0 / 0"
	}
	return fmt.Sprintf("%d / %d", s.pos+1, len(s.queue))
}

func (s annotateScreen) View() string {
	st := s.c.styles
	w, h := s.c.width, s.c.height
	bodyH := max(h-headerHeight-footerHeight, 0)
	mode := "annotate"
	if s.adjudicating() {
		mode = "adjudicate"
	}
	queue := s.start.Queue
	if s.start.MemoryID != "" {
		queue = "memory"
	}
	head := fmt.Sprintf("%s · %s · %s · %s", mode, queue, s.progress(), sanitizeLine(s.start.Annotator))
	if s.blind {
		head += " · BLIND"
	}
	if s.task != nil {
		it := s.task.Item
		head += fmt.Sprintf(" · %s · %s block %d", sanitizeLine(it.CaseID), sanitizeLine(it.ConditionID), it.BlockIndex)
	}
	header := st.App.Title.Render(ansi.Truncate(head, w, "…"))
	if s.showGuide {
		return header + "\n" + strings.Join(window(strings.Split(s.schema.guidelines(), "\n"), 0, bodyH), "\n")
	}
	switch {
	case !s.loaded:
		return header + "\nloading the queue…"
	case len(s.queue) == 0:
		return header + "\n" + st.App.Subtle.Render("nothing to annotate in this queue")
	case s.task == nil:
		return header + "\nloading the memory…"
	}
	lw := clamp(w*45/100, 20, w)
	if s.adjudicating() {
		lw = clamp(w*55/100, 20, w) // room for the readings side by side
	}
	rw := max(w-lw, 0)
	left := s.leftPane(lw, bodyH)
	right := box(st, "typed state", s.formLines(rw-2, bodyH-2), rw, bodyH, true)
	return header + "\n" + joinColumns(left, right)
}

func shortMemID(id string) string {
	if len(id) > 24 {
		return id[:24] + "…"
	}
	return id
}

// joinColumns puts two equally tall blocks side by side.
func joinColumns(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	out := make([]string, len(la))
	for i := range la {
		r := ""
		if i < len(lb) {
			r = lb[i]
		}
		out[i] = la[i] + r
	}
	return strings.Join(out, "\n")
}

// textLines is the memory text, sanitised and wrapped, cited source ids in bold with a ›
// mark so they stand out without colour.
func (s annotateScreen) textLines(w, h int) []string {
	st := s.c.styles
	text := sanitize(s.task.Item.Text)
	var lines []string
	for _, l := range strings.Split(ansi.Wrap(text, max(w, 1), ""), "\n") {
		lines = append(lines, srcIDPattern.ReplaceAllStringFunc(l, func(id string) string { return st.Chain.CitedMemory.Render(id) }))
	}
	if cited := citedIDs(text); len(cited) > 0 {
		lines = append(lines, "", st.App.Subtle.Render("cites: ")+st.Chain.CitedMemory.Render(strings.Join(cited, ", ")))
	}
	return window(lines, s.textScroll, h)
}

// formLines is the form (one block per record, the selected field marked ▶ and its enum
// options numbered), then this annotator's label status and, unless blind, the others'.
func (s annotateScreen) formLines(w, h int) []string {
	st := s.c.styles
	var lines []string
	if len(s.form.records) == 0 {
		lines = append(lines, st.App.Subtle.Render("no records (an empty state) · "+s.c.keys.Annotate.AddRecord.Help().Key+" adds one"))
	}
	selLine := 0
	for ri, r := range s.form.records {
		lines = append(lines, st.List.Header.Render(fmt.Sprintf("record %d/%d", ri+1, len(s.form.records))))
		for fi, f := range s.schema.fields {
			v := r[f.key]
			if v == "" {
				v = "∅"
			}
			mark := "  "
			style := st.List.Row
			if ri == s.rec && fi == s.field {
				mark, style = "▶ ", st.List.Selected
				selLine = len(lines)
			}
			line := mark + fmt.Sprintf("%-15s %s", f.label, sanitizeLine(v))
			lines = append(lines, style.Render(ansi.Truncate(line, w, "…")))
			if ri == s.rec && fi == s.field && f.kind == kindEnum {
				var opts []string
				for i, o := range f.options {
					if o == "" {
						o = "∅"
					}
					opts = append(opts, fmt.Sprintf("[%d] %s", i+1, o))
				}
				lines = append(lines, st.App.Subtle.Render(ansi.Truncate("    "+strings.Join(opts, " "), w, "…")))
			}
		}
	}
	var foot []string
	if l := s.myLabel(); l != nil {
		state := l.Status
		if l.Stale {
			state += " · STALE (read other text; not used)"
		}
		foot = append(foot, "your label: "+state)
	} else {
		foot = append(foot, "your label: none yet")
	}
	if hint := s.countsHint(); hint != "" {
		// What makes a label count wraps: cut, it lost the key that does it.
		for _, l := range wrapIndented(hint, "", "  ", w) {
			foot = append(foot, st.App.Subtle.Render(l))
		}
	}
	if !s.blind {
		if s.task.Prefill == nil && s.task.PrefillError != "" {
			foot = append(foot, st.App.Subtle.Render("no automatic reading: "+sanitizeLine(s.task.PrefillError)))
		}
		for i, l := range s.others() {
			mark := "  "
			if i == s.candidate%max(len(s.others()), 1) {
				mark = "› "
			}
			stale := ""
			if l.Stale {
				stale = " STALE"
			}
			foot = append(foot, mark+sanitizeLine(fmt.Sprintf("%s (%s%s): %s", l.Annotator, l.Status, stale, stateSummary(l.State))))
		}
	}
	if r := s.task.Item.Resolution; r != "" {
		foot = append(foot, st.List.Flag.Render("! unscored: "+r))
	} else {
		foot = append(foot, "scored from the accepted annotation")
	}
	// Keep the selected field in view above the footer.
	room := max(h-len(foot)-1, 1)
	off := max(selLine-room+2, 0)
	out := window(lines, off, room)
	for len(out) < room {
		out = append(out, "")
	}
	out = append(out, strings.Repeat("─", max(w, 0)))
	for _, f := range foot {
		out = append(out, ansi.Truncate(f, w, "…"))
	}
	return out
}

// countsHint says what makes a label count while the memory is still unscored: a memory is
// scored from its one accepted annotation, which the annotator gives with the accept key or
// an adjudicator settles on the disagreements queue.
func (s annotateScreen) countsHint() string {
	if s.task == nil || s.task.Item.Resolution == "" {
		return ""
	}
	k := s.c.keys.Annotate
	if s.adjudicating() {
		return "a label counts once accepted: " + k.Save.Help().Key + " makes this form the accepted annotation"
	}
	return "a label counts once accepted: " + k.Accept.Help().Key + " saves yours as accepted, or an adjudicator settles a disagreement (ealscope annotate --queue disagreements)"
}
