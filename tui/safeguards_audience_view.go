package tui

// The run screen's audience_bound view (`v` on the run's safeguards screen; docs/SAFEGUARDS.md
// "Audience-bound admission"): one row per arm and writer condition with the paper's
// measures (contexts exposed, forbidden items admitted of those present, entitled records
// kept of those present) and the lab's rates against the unscoped arm; the selected row's
// counts and the paired bootstrap intervals below; then the identity policies on the
// unresolved-viewer requests. `r` evaluates the run's audience lab (and stores it).

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// audienceView is the view's state inside the run's safeguards screen.
type audienceView struct {
	on, loading bool
	table       *AudienceTable
	cur         cursor
}

// toggleAudience switches between the policy table and the audience view, reading the stored
// audience lab the first time.
func (s *safeguardsScreen) toggleAudience() tea.Cmd {
	s.aud.on = !s.aud.on
	s.note = ""
	if !s.aud.on || s.aud.table != nil || s.aud.loading || s.lab == nil {
		return nil
	}
	s.aud.loading = true
	return loadStoredCmd(s.c.lifetime(), s.owner(), s.runID, s.lab.StoredAudience)
}

// setAudience takes a table read back or evaluated.
func (s *safeguardsScreen) setAudience(t AudienceTable) {
	s.aud.table, s.aud.loading = &t, false
	s.aud.cur.set(s.aud.cur.sel, len(t.Rows), s.audienceTableH())
}

func (s *safeguardsScreen) evaluateAudience() tea.Cmd {
	if s.running || s.lab == nil {
		return nil
	}
	lab, runID, exec := s.lab, s.runID, labExecutors(s.models)[s.exec]
	return s.start(s.c.lifetime(), s.owner(), func(ctx context.Context, progress LabProgress) (any, error) {
		return lab.EvaluateAudience(ctx, runID, exec, progress)
	})
}

// audienceTableH is the rows the arm table gets once the detail, the identity table and the
// legend have theirs.
func (s safeguardsScreen) audienceTableH() int {
	w := s.c.width
	// The screen's body is listLayout+1 lines (the root's footer is below it); the head, the
	// table's header and the legend take a line each.
	return max(listLayout(w, s.c.height)+1-3-len(s.statusLines(w))-len(s.audienceDetail(w))-len(s.identityLines(w)), 3)
}

// audienceCells are a row's measures; a row whose contexts all hit provider errors measures
// nothing ("n/e"), never zero.
func audienceCells(r AudienceArmRow, narrow bool) []string {
	if !r.Estimable && r.NotEstimable > 0 {
		return []string{"0", "n/e", "n/e", "n/e", "n/e", "n/e"}
	}
	return []string{fmt.Sprint(r.Contexts), fmt.Sprintf("%d/%d", r.Exposed, r.Contexts), fmt.Sprintf("%d/%d", r.ForbiddenAdmitted, r.ForbiddenPresent),
		fmt.Sprintf("%d/%d", r.EntitledKept, r.EntitledPresent), fmt.Sprint(r.Substitutions), fmt.Sprint(r.FailedClosed)}
}

func (s safeguardsScreen) audienceTable(w, h int) string {
	st := s.c.styles
	rows := s.aud.table.Rows
	narrow := w < 110
	cols := []column{{title: "arm", mid: true, min: 12}, {title: "condition", mid: true, min: 9}, {title: "contexts", keep: true},
		{title: "exposed", keep: true}, {title: "forbidden", keep: true}, {title: "entitled kept", keep: true}, {title: "subst.", keep: true},
		{title: "failed closed", keep: true}, {title: "unauthorized", keep: true}, {title: "authorized success", keep: true}, {title: "not est.", keep: true, grow: true}}
	index := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if narrow { // contexts, substitutions, failed closed and n/e are in the row's detail
		cols = []column{{title: "arm", mid: true, min: 10}, {title: "condition", mid: true, min: 8}, {title: "exposed", keep: true},
			{title: "forbid.", keep: true}, {title: "kept", keep: true}, {title: "unauth.", keep: true}, {title: "auth. ok", keep: true, grow: true}}
		index = []int{0, 1, 3, 4, 5, 8, 9}
	}
	cell := func(r, c int) string {
		x := rows[r]
		switch c = index[c]; {
		case c == 0:
			return sanitizeLine(x.Arm)
		case c == 1:
			return sanitizeLine(x.Condition)
		case c <= 7:
			return audienceCells(x, narrow)[c-2]
		case c == 8:
			return rateCell(x.Unauthorized, narrow)
		case c == 9:
			return rateCell(x.AuthorizedSuccess, narrow)
		}
		return fmt.Sprint(x.NotEstimable)
	}
	rowStyle := func(r int) lipgloss.Style {
		if rows[r].Exposed > 0 {
			return st.List.Flag
		}
		return st.List.Row
	}
	return renderTable(st, cols, len(rows), cell, s.aud.cur, w, h, rowStyle)
}

// rateLines are a rate's full reading under its label; the difference goes below when the
// line would not fit.
func rateLines(st *Styles, label string, r SafeguardRate, w int) []string {
	rates, diff := rateDetail(r)
	return factLines(st, label, 27, rates, diff, w)
}

// factLines are one or two facts under a label (labelW cells wide): on one line when they
// fit, else the second below the first.
func factLines(st *Styles, label string, labelW int, first, second string, w int) []string {
	head := "  " + st.Chain.Field.Render(fit(label, labelW)) + " "
	if second == "" {
		return []string{ansi.Truncate(head+first, w, "…")}
	}
	if ansi.StringWidth(head+first+" · "+second) > w {
		return []string{ansi.Truncate(head+first, w, "…"), ansi.Truncate(strings.Repeat(" ", labelW+3)+second, w, "…")}
	}
	return []string{ansi.Truncate(head+first+" · "+second, w, "…")}
}

func pct(n, d int) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.1f%%)", 100*float64(n)/float64(d))
}

// audienceLabelW is the width of the detail's labels ("unauthorized action").
const audienceLabelW = 19

func (s safeguardsScreen) audienceDetail(w int) []string {
	st := s.c.styles
	if s.aud.table == nil || len(s.aud.table.Rows) == 0 {
		return nil
	}
	r := s.aud.table.Rows[clamp(s.aud.cur.sel, 0, len(s.aud.table.Rows)-1)]
	out := []string{"", st.List.Header.Render(ansi.Truncate(fmt.Sprintf("%s × %s · %s assembled", sanitizeLine(r.Arm), sanitizeLine(r.Condition),
		plural(r.Contexts+r.NotEstimable, "context")), w, "…"))}
	if !r.Estimable && r.NotEstimable > 0 {
		out = append(out, factLines(st, "exposure, recall", audienceLabelW, "not estimable", "every context's executor call failed", w)...)
	} else {
		out = append(out, factLines(st, "exposure", audienceLabelW, fmt.Sprintf("%d/%d contexts exposed", r.Exposed, r.Contexts),
			fmt.Sprintf("%d/%d forbidden admitted", r.ForbiddenAdmitted, r.ForbiddenPresent), w)...)
		out = append(out, factLines(st, "entitled recall", audienceLabelW, fmt.Sprintf("%d/%d entitled kept%s", r.EntitledKept, r.EntitledPresent, pct(r.EntitledKept, r.EntitledPresent)),
			plural(r.Substitutions, "substitution"), w)...)
	}
	for _, m := range []struct {
		label string
		rate  SafeguardRate
	}{{"unauthorized action", r.Unauthorized}, {"authorized success", r.AuthorizedSuccess}} {
		rates, diff := rateDetail(m.rate)
		out = append(out, factLines(st, m.label, audienceLabelW, rates, diff, w)...)
	}
	return append(out, ansi.Truncate(fmt.Sprintf("  %s failed closed · %s not estimable (provider errors)", plural(r.FailedClosed, "context"), plural(r.NotEstimable, "context")), w, "…"))
}

// identityLines are the identity policies on the unresolved-viewer requests.
func (s safeguardsScreen) identityLines(w int) []string {
	st := s.c.styles
	if s.aud.table == nil || len(s.aud.table.Identity) == 0 {
		return nil
	}
	cols := []column{{title: "unresolved viewers", min: 12}, {title: "forbidden exposed", keep: true}, {title: "entitled lost", keep: true}, {title: "not est.", keep: true, grow: true}}
	var rows [][]string
	for _, r := range s.aud.table.Identity {
		exposed, lost := fmt.Sprintf("%d/%d", r.Exposed, r.ForbiddenPresent), fmt.Sprintf("%d/%d", r.Lost, r.EntitledPresent)
		if r.ForbiddenPresent+r.EntitledPresent == 0 && r.NotEstimable > 0 {
			exposed, lost = "n/e", "n/e"
		}
		rows = append(rows, []string{sanitizeLine(r.Policy), exposed, lost, fmt.Sprint(r.NotEstimable)})
	}
	lines := tableLines(cols, rows, w)
	out := []string{"", st.List.Header.Render(ansi.Truncate(lines[0], w, ""))}
	for _, l := range lines[1:] {
		out = append(out, ansi.Truncate(l, w, ""))
	}
	return out
}

// audienceBody is the view below the screen's head and status lines.
func (s safeguardsScreen) audienceBody(w int) []string {
	st := s.c.styles
	t := s.aud.table
	switch {
	case s.lab == nil:
		return []string{st.App.Subtle.Render("the safeguard lab needs a workspace")}
	case s.aud.loading:
		return []string{st.App.Subtle.Render("loading the stored audience lab…")}
	case t == nil || (t.NotApplicable == "" && len(t.Rows) == 0):
		if s.running {
			return nil
		}
		return []string{"", st.App.Subtle.Render(ansi.Truncate(fmt.Sprintf("The audience lab has not been run on this run. r runs it with the %s executor (x changes it).",
			sanitizeLine(labExecutors(s.models)[s.exec])), w, "…"))}
	case t.NotApplicable != "":
		return append([]string{"", "audience_bound: not applicable"}, subtleWrapped(st, t.NotApplicable, "  ", max(w-2, 8), w)...)
	}
	out := []string{s.audienceTable(w, s.audienceTableH()+1)}
	out = append(out, s.audienceDetail(w)...)
	out = append(out, s.identityLines(w)...)
	return append(out, st.App.Subtle.Render(ansi.Truncate(firstFitting(w,
		"exposed: contexts with a forbidden item · forbidden: admitted/present · kept: entitled/present · rates unscoped → arm, ↓↑ 95% CI excludes 0 · n/e not estimable",
		"rates unscoped → arm · ↓↑ 95% CI excludes 0 · n/e not estimable"), w, "…")))
}

// audienceHead is the view's title line: where the numbers come from.
func (s safeguardsScreen) audienceHead(w int) string {
	st := s.c.styles
	head := "safeguards · run " + sanitizeLine(s.runID) + " · audience_bound"
	if t := s.aud.table; t != nil && len(t.Rows) > 0 {
		// What gives way at narrow widths: the time it was stored, then the chain count.
		base := fmt.Sprintf(" · executor %s, seed %d", sanitizeLine(t.Executor), t.Seed)
		chains := fmt.Sprintf(" · %d chains", t.Chains)
		head = firstFitting(w, head+chains+base+" · stored "+sanitizeLine(shortStamp(t.ComputedAt)), head+chains+base, head+base)
	}
	title, rest, _ := strings.Cut(ansi.Truncate(head, w, "…"), " · ")
	return st.App.Title.Render(title) + st.App.Subtle.Render(" · "+rest)
}

// firstFitting is the first of the texts that fits in w cells, else the last.
func firstFitting(w int, texts ...string) string {
	for _, t := range texts {
		if ansi.StringWidth(t) <= w {
			return t
		}
	}
	return texts[len(texts)-1]
}

// shortStamp is a stored RFC 3339 time to the minute ("2026-12-02 10:41").
func shortStamp(ts string) string {
	if len(ts) >= 16 {
		return strings.Replace(ts[:16], "T", " ", 1)
	}
	return ts
}

func (s safeguardsScreen) audienceScreenView() string {
	w := s.c.width
	lines := []string{s.audienceHead(w)}
	lines = append(lines, s.statusLines(w)...)
	return strings.Join(append(lines, s.audienceBody(w)...), "\n")
}
