package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ealscope/ealscope/runs"
)

// Adjudication: the annotators' readings of one memory side by side, record by record, so the
// adjudicator sees where they differ before picking one (t) or editing the form.

// comparisonLines renders every record id any reading holds, one row per field and one
// column per annotator (the adjudicator's form first). A row where the readings differ is
// marked "!" (meaning never rides on colour alone); "—" is a record that reading lacks.
func comparisonLines(st *Styles, fs formSchema, form annotationForm, others []runs.Annotation, candidate, w int) []string {
	cols := []string{"form"}
	readings := []map[string]formRecord{byID(form)}
	for i, o := range others {
		name := o.Annotator
		if i == candidate {
			name = "›" + name
		}
		cols = append(cols, name)
		readings = append(readings, byID(fs.fromState(o.State)))
	}
	ids := map[string]bool{}
	for _, r := range readings {
		for id := range r {
			ids[id] = true
		}
	}
	order := make([]string, 0, len(ids))
	for id := range ids {
		order = append(order, id)
	}
	sort.Strings(order)
	labelW := 15
	colW := max((w-labelW-2)/max(len(cols), 1), 4)
	cell := func(s string) string { return padANSI(ansi.Truncate(s, colW-1, "…"), colW) }
	head := "  " + padANSI("", labelW)
	for _, c := range cols {
		head += cell(sanitizeLine(c))
	}
	lines := []string{st.List.Header.Render(ansi.Truncate(head, w, "…"))}
	if len(order) == 0 {
		return append(lines, st.App.Subtle.Render("no reading holds a record"))
	}
	for _, id := range order {
		lines = append(lines, st.List.Header.Render(ansi.Truncate("record "+sanitizeLine(id), w, "…")))
		for _, f := range fs.fields[1:] {
			vals := make([]string, len(readings))
			differ := false
			for i, r := range readings {
				rec, ok := r[id]
				switch {
				case !ok:
					vals[i] = "—"
				case rec[f.key] == "":
					vals[i] = "∅"
				default:
					vals[i] = rec[f.key]
				}
				if i > 0 && vals[i] != vals[1] {
					differ = true // among the annotators; the form is the adjudicator's draft
				}
			}
			mark := "  "
			style := st.List.Row
			if differ {
				mark, style = "! ", st.List.Flag
			}
			line := mark + padANSI(ansi.Truncate(f.label, labelW-1, "…"), labelW)
			for _, v := range vals {
				line += cell(sanitizeLine(v))
			}
			lines = append(lines, style.Render(ansi.Truncate(line, w, "…")))
		}
	}
	return lines
}

func byID(f annotationForm) map[string]formRecord {
	out := map[string]formRecord{}
	for i, r := range f.records {
		id := r["authorization_id"]
		if id == "" {
			id = fmt.Sprintf("(record %d, no id)", i+1)
		}
		out[id] = r
	}
	return out
}

// leftPane is the memory text, or while adjudicating the text above the readings side by side.
func (s annotateScreen) leftPane(w, h int) string {
	st := s.c.styles
	title := "memory " + shortMemID(s.task.Item.MemoryID)
	if !s.adjudicating() || s.blind {
		return box(st, title, s.textLines(w-2, h-2), w, h, false)
	}
	top := max(h/3, 4)
	text := box(st, title, s.textLines(w-2, top-2), w, top, false)
	cmp := box(st, "readings side by side · c next · t take", comparisonLines(st, s.schema, s.form, s.others(), s.candidate%max(len(s.others()), 1), w-2), w, h-top, false)
	return strings.Join([]string{text, cmp}, "\n")
}
