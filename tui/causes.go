package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Candidate causes of false authority at a chain's first false-authority block. What the
// memory cites is not why it went wrong, so the probes pane lists, beside the forming probes:
//   - "ignored": ledger events of the block on a record the memory gets wrong — the memory
//     failed to apply them — with the turns the ledger took them from;
//   - "misleading": turns of the block the ledger took no authority from (so their speakers
//     did not grant) that speak of a wrongly remembered record or of a wrong remembered value.
// They are candidates, not a verdict: the judges' diagnosis, when imported, is the verdict.
// For a scripted run the cause is known: the writer's faults still in the memory at the block
// are listed too ("scripted fault"), with the turns they came from, next to the heuristics.

// cause is one candidate.
type cause struct {
	kind   string // "ignored", "misleading" or "scripted fault"
	what   string // the event, or the turn's speaker
	turns  []string
	reason string
}

// candidateCauses computes the candidates from the block's events, turns and fidelity rows.
func candidateCauses(b BlockDetail) []cause {
	wrong := map[string]bool{}
	var values []string
	for _, r := range b.Fidelity {
		if len(r.Errors) == 0 {
			continue
		}
		wrong[r.AuthorizationID] = true
		values = append(values, valueClues(r.Remembered)...)
	}
	if len(wrong) == 0 {
		return nil
	}
	var out []cause
	for _, e := range b.Events {
		if wrong[e.AuthorizationID] {
			out = append(out, cause{kind: "ignored", what: e.Type + ":" + e.AuthorizationID, turns: e.SourceTurnIDs,
				reason: "the memory gets this record wrong after the event"})
		}
	}
	ids := make([]string, 0, len(wrong))
	for id := range wrong {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, t := range b.Turns {
		if t.CitedByLedger {
			continue // the ledger took authority from it: not a principal without the power
		}
		text := strings.ToLower(t.Content)
		var hits []string
		for _, id := range ids {
			if strings.Contains(text, strings.ToLower(id)) {
				hits = append(hits, id)
			}
		}
		for _, v := range values {
			if strings.Contains(text, strings.ToLower(v)) {
				hits = append(hits, v)
			}
		}
		if len(hits) > 0 {
			out = append(out, cause{kind: "misleading", what: t.Speaker, turns: []string{t.ID},
				reason: "speaks of " + strings.Join(dedupe(hits), ", ")})
		}
	}
	for _, f := range b.ActiveFaults {
		out = append(out, cause{kind: kindScripted, what: f.Family + " " + f.AuthorizationID, turns: f.SourceTurnIDs,
			reason: f.Description})
	}
	return out
}

const kindScripted = "scripted fault"

// activeFaults are the chain's scripted faults still in the memory at block b: injected at
// or before it, on a record the memory gets wrong there. The writer keeps a fault until the
// ledger changes its field again (replay's fault engine), and that clearing is not stored,
// so a fault whose record is remembered right at b counts as cleared.
func activeFaults(faults []ScriptedFault, b BlockDetail) []ScriptedFault {
	wrong := map[string]bool{}
	for _, r := range b.Fidelity {
		if len(r.Errors) > 0 {
			wrong[r.AuthorizationID] = true
		}
	}
	var out []ScriptedFault
	for _, f := range faults {
		if f.Block <= b.Index && wrong[f.AuthorizationID] {
			out = append(out, f)
		}
	}
	return out
}

// valueClues are the ways a turn may speak of a remembered value: the value itself, a
// number with thousands separators, a date and its month name.
func valueClues(v string) []string {
	v = strings.Trim(v, `"`)
	if v == "" || v == "—" || len(v) < 3 {
		return nil
	}
	if strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{") {
		var out []string
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(`[]{}",:`, r) }) {
			if len(part) >= 4 {
				out = append(out, part)
			}
		}
		return out
	}
	out := []string{v}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		out = []string{t.Format("2006-01-02"), t.Format("January")}
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err == nil && fmt.Sprint(n) == v && n >= 1000 {
		out = append(out, thousands(n))
	}
	return out
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dedupe is xs without repeats, in first-occurrence order.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// causeLines renders the candidates for the probes pane (only at the first false-authority
// block, where some probe forms).
// The judges' diagnoses, when imported for this block, follow as their own lines.
func (s chainScreen) causeLines(b BlockDetail, w int) []string {
	st := s.c.styles
	if b.Index != s.firstFalse() {
		if len(b.Judges) == 0 {
			return nil
		}
		return append([]string{st.List.Header.Render(ansi.Truncate("judges' diagnosis", w, "…"))}, judgesLines(b, w)...)
	}
	causes := candidateCauses(b)
	out := []string{st.List.Header.Render(ansi.Truncate("candidate causes (not a verdict)", w, "…"))}
	if len(causes) == 0 {
		out = append(out, st.App.Subtle.Render(ansi.Truncate("  none found among this block's events and turns", w, "…")))
		return append(out, judgesLines(b, w)...)
	}
	for _, c := range causes {
		if c.kind == kindScripted {
			from := "an unknown turn"
			if len(c.turns) > 0 {
				from = strings.Join(c.turns, ",")
			}
			line := fmt.Sprintf("  scripted fault: %s from %s · %s", sanitizeLine(c.what), sanitizeLine(from), sanitizeLine(c.reason))
			out = append(out, ansi.Truncate(line, w, "…"))
			continue
		}
		line := fmt.Sprintf("  %s %s %s · %s", c.kind, sanitizeLine(c.what), sanitizeLine(strings.Join(c.turns, ",")), sanitizeLine(c.reason))
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	return append(out, judgesLines(b, w)...)
}

func judgesLines(b BlockDetail, w int) []string {
	var out []string
	for _, l := range b.Judges {
		out = append(out, ansi.Truncate(l.text(), w, "…"))
	}
	return out
}
