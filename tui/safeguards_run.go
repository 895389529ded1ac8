package tui

// The run's safeguards screen (docs/SAFEGUARDS.md): `S` on a run's chains list. One row per
// policy and writer condition: the three EAL rates (unauthorized action, authorized success,
// false-authority formation; docs/FORMATS.md 6.4) without and with the policy, unauthorized actions
// prevented, authorized requests refused and trials not estimable; the selected row's rates
// with their counts and the paired bootstrap interval of the difference below the table.
// `r` evaluates every chain of the run (a long batch: progress bar, esc cancels and keeps
// the chains already stored).

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/replay"
)

// openSafeguardsMsg asks the root to push the safeguards screen of a run.
type openSafeguardsMsg struct{ runID string }

type safeguardsScreen struct {
	c      *common
	lab    SafeguardLab
	models *replay.Config
	runID  string

	table   *SafeguardTable
	loading bool
	cur     cursor
	moved   bool
	exec    int
	// aud is the audience_bound view (v toggles it).
	aud audienceView

	labTask
}

func newSafeguardsScreen(c *common, lab SafeguardLab, models *replay.Config, runID string) safeguardsScreen {
	return safeguardsScreen{c: c, lab: lab, models: models, runID: runID, loading: true}
}

func (s safeguardsScreen) owner() string { return "run " + s.runID }

// storedLabMsg carries a stored lab result read back for a run's screen (ok false: none).
type storedLabMsg[T any] struct {
	owner string
	table T
	ok    bool
	err   error
}

// loadStoredCmd reads a stored lab result in a command.
func loadStoredCmd[T any](ctx context.Context, owner, runID string, read func(ctx context.Context, runID string) (T, bool, error)) tea.Cmd {
	return func() tea.Msg {
		t, ok, err := read(ctx, runID)
		return storedLabMsg[T]{owner: owner, table: t, ok: ok, err: err}
	}
}

func loadSafeguardsTableCmd(ctx context.Context, lab SafeguardLab, owner, runID string) tea.Cmd {
	return loadStoredCmd(ctx, owner, runID, lab.StoredRun)
}

func (s safeguardsScreen) Init() tea.Cmd {
	if s.lab == nil {
		return nil
	}
	return loadSafeguardsTableCmd(s.c.lifetime(), s.lab, s.owner(), s.runID)
}

// capturing: the screen never takes every key (it has no text input).
func (s safeguardsScreen) capturing() bool { return false }

func (s safeguardsScreen) tableH() int {
	return max(listLayout(s.c.width, s.c.height)-1-len(s.detailLines(s.c.width))-len(s.statusLines(s.c.width)), 3)
}

func (s safeguardsScreen) Update(msg tea.Msg) (safeguardsScreen, tea.Cmd) {
	switch msg := msg.(type) {
	case storedLabMsg[SafeguardTable]:
		if msg.owner != s.owner() {
			return s, nil
		}
		s.loading = false
		if msg.err != nil {
			s.err = msg.err
			return s, nil
		}
		if msg.ok {
			s.table = &msg.table
			s.cur.set(s.firstRow(), len(s.table.Rows), s.tableH())
		}
	case storedLabMsg[AudienceTable]:
		if msg.owner != s.owner() {
			return s, nil
		}
		s.aud.loading = false
		switch {
		case msg.err != nil:
			s.err = msg.err
		case msg.ok:
			s.setAudience(msg.table)
		}
	case labProgressMsg:
		if msg.owner != s.owner() || msg.seq != s.seq {
			return s, nil
		}
		return s, s.progressed(msg)
	case labDoneMsg:
		if msg.owner != s.owner() || msg.seq != s.seq {
			return s, nil
		}
		s.running, s.cancel = false, nil
		switch {
		case msg.cancelled:
			s.note = "cancelled: the chains evaluated so far are kept"
			return s, loadSafeguardsTableCmd(s.c.lifetime(), s.lab, s.owner(), s.runID)
		case msg.err != nil:
			s.err = msg.err
		default:
			if a, ok := msg.result.(AudienceTable); ok {
				s.setAudience(a)
				return s, nil
			}
			t := msg.result.(SafeguardTable)
			s.table, s.note = &t, ""
			s.cur.set(s.firstRow(), len(t.Rows), s.tableH())
		}
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return s, nil
}

// firstRow keeps the selection once the user moved it; the first time it selects the first
// row where the policy changed something (what the screen is opened for).
func (s *safeguardsScreen) firstRow() int {
	if s.moved || s.table == nil {
		return s.cur.sel
	}
	for i, r := range s.table.Rows {
		if r.Prevented > 0 || r.Refused > 0 {
			return i
		}
	}
	return 0
}

func (s safeguardsScreen) handleKey(msg tea.KeyPressMsg) (safeguardsScreen, tea.Cmd) {
	lab := &s.c.keys.Lab
	n := 0
	if s.table != nil {
		n = len(s.table.Rows)
	}
	if s.aud.on && s.aud.table != nil {
		n = len(s.aud.table.Rows)
	}
	switch {
	case key.Matches(msg, lab.Audience):
		return s, s.toggleAudience()
	case s.aud.on && s.aud.cur.navigate(msg, s.c.keys.List, n, s.audienceTableH()):
	case s.aud.on && key.Matches(msg, lab.Run):
		return s, s.evaluateAudience()
	case s.aud.on:
	case s.cur.navigate(msg, s.c.keys.List, n, s.tableH()):
		s.moved = true
	case key.Matches(msg, lab.Executor):
		if !s.running {
			s.exec = (s.exec + 1) % len(labExecutors(s.models))
			s.note = "executor: " + sanitizeLine(labExecutors(s.models)[s.exec]) + " (r evaluates the run with it)"
		}
	case key.Matches(msg, lab.Run):
		return s, s.evaluate()
	}
	return s, nil
}

func (s *safeguardsScreen) evaluate() tea.Cmd {
	if s.running || s.lab == nil {
		return nil
	}
	lab, runID, exec := s.lab, s.runID, labExecutors(s.models)[s.exec]
	return s.start(s.c.lifetime(), s.owner(), func(ctx context.Context, progress LabProgress) (any, error) {
		return lab.EvaluateRun(ctx, runID, exec, progress)
	})
}

// back handles esc: a running batch is cancelled (what finished is kept) and the screen
// stays; it reports whether esc was used up here.
func (s *safeguardsScreen) back() bool {
	if s.running && s.cancel != nil {
		s.cancel()
		s.note = "cancelling…"
		return true
	}
	return false
}

// rateCell is a rate before → after in percent, with ↓ or ↑ when the interval of the
// difference excludes zero ("41.7→8.3%↓"), "n/e" when not estimable.
func rateCell(r SafeguardRate, narrow bool) string {
	if !r.Estimable {
		return "n/e"
	}
	mark := ""
	switch {
	case r.HasInterval && r.DiffHigh < 0:
		mark = "↓"
	case r.HasInterval && r.DiffLow > 0:
		mark = "↑"
	}
	if narrow {
		return fmt.Sprintf("%.0f→%.0f%%%s", 100*r.Before, 100*r.After, mark)
	}
	return fmt.Sprintf("%.1f→%.1f%%%s", 100*r.Before, 100*r.After, mark)
}

// rateDetail is the full reading of a rate: the counts and rates, then the difference with
// its interval.
func rateDetail(r SafeguardRate) (rates, diff string) {
	if !r.Estimable {
		return "not estimable (no estimable trials)", ""
	}
	rates = fmt.Sprintf("%d/%d = %.1f%% → %d/%d = %.1f%%", r.NumBefore, r.DenBefore, 100*r.Before, r.NumAfter, r.DenAfter, 100*r.After)
	diff = fmt.Sprintf("Δ %+.1f pts", 100*r.Diff)
	if r.HasInterval {
		diff += fmt.Sprintf(", 95%% CI [%+.1f, %+.1f]", 100*r.DiffLow, 100*r.DiffHigh)
	} else {
		diff += " (no interval: no bootstrap draw was defined)"
	}
	return rates, diff
}

func (s safeguardsScreen) detailLines(w int) []string {
	st := s.c.styles
	if s.table == nil || len(s.table.Rows) == 0 {
		return nil
	}
	r := s.table.Rows[clamp(s.cur.sel, 0, len(s.table.Rows)-1)]
	out := []string{"", st.List.Header.Render(ansi.Truncate(fmt.Sprintf("%s × %s · %d chains", sanitizeLine(r.Policy), sanitizeLine(r.Condition), r.Chains), w, "…"))}
	for _, m := range []struct {
		label string
		rate  SafeguardRate
	}{{"unauthorized action rate", r.Unauthorized}, {"authorized success rate", r.AuthorizedSuccess}, {"false-authority formation", r.Formation}} {
		out = append(out, rateLines(st, m.label, m.rate, w)...)
	}
	out = append(out,
		ansi.Truncate(fmt.Sprintf("  %s prevented (%s stopped)", plural(r.Prevented, "unauthorized action"), plural(r.ChainsStopped, "chain")), w, "…"),
		ansi.Truncate(fmt.Sprintf("  %s refused (in %s)", plural(r.Refused, "authorized request"), plural(r.ChainsRefused, "chain")), w, "…"),
		ansi.Truncate(fmt.Sprintf("  %s not estimable (provider errors) · %s not applicable", plural(r.NotEstimable, "pair"), plural(r.NotApplicable, "chain")), w, "…"))
	if s.table.Note != "" {
		out = append(out, subtleWrapped(st, s.table.Note, "  ", max(w-2, 8), w)...)
	}
	return out
}

func (s safeguardsScreen) statusLines(w int) []string {
	return s.labTask.statusLines(s.c.styles, w, "evaluating the run", 24, "esc cancels (finished chains are kept)")
}

func (s safeguardsScreen) View() string {
	if s.aud.on {
		return s.audienceScreenView()
	}
	st := s.c.styles
	w := s.c.width
	head := st.App.Title.Render("safeguards") + st.App.Subtle.Render(" · run "+sanitizeLine(s.runID))
	if s.table != nil {
		head += st.App.Subtle.Render(fmt.Sprintf(" · %d of %d writer chains evaluated", s.table.Chains, s.table.Planned))
		if s.table.Executor != "" {
			head += st.App.Subtle.Render(" · executor " + sanitizeLine(s.table.Executor))
		}
	}
	lines := []string{ansi.Truncate(head, w, "…")}
	lines = append(lines, s.statusLines(w)...)
	switch {
	case s.lab == nil:
		return strings.Join(append(lines, st.App.Subtle.Render("the safeguard lab needs a workspace")), "\n")
	case s.loading:
		return strings.Join(append(lines, st.App.Subtle.Render("loading the stored evaluation…")), "\n")
	case s.table == nil || len(s.table.Rows) == 0:
		if !s.running {
			lines = append(lines, "", st.App.Subtle.Render(ansi.Truncate(fmt.Sprintf("No chain of this run is evaluated yet. r evaluates every chain under every policy with the %s executor (x changes it).",
				sanitizeLine(labExecutors(s.models)[s.exec])), w, "…")))
		}
		return strings.Join(lines, "\n")
	}
	narrow := w < 110
	cols := []column{{title: "policy", mid: true, min: 12}, {title: "condition", mid: true, min: 10}, {title: "chains", keep: true},
		{title: "unauthorized", keep: true}, {title: "authorized success", keep: true}, {title: "formation", keep: true},
		{title: "prevented", keep: true}, {title: "refused", keep: true}, {title: "not est.", keep: true, grow: true}}
	if narrow { // the chains and n/e counts are in the row's detail below
		cols = []column{{title: "policy", mid: true, min: 10}, {title: "condition", mid: true, min: 9}, {title: "unauth.", keep: true},
			{title: "auth. ok", keep: true}, {title: "formation", keep: true}, {title: "prev.", keep: true}, {title: "refus.", keep: true, grow: true}}
	}
	rows := s.table.Rows
	cell := func(r, c int) string {
		x := rows[r]
		rate := func(v SafeguardRate) string {
			if x.Chains > 0 && x.NotApplicable == x.Chains {
				return "n/a"
			}
			return rateCell(v, narrow)
		}
		if narrow && c >= 2 {
			c++ // no chains column
		}
		switch c {
		case 0:
			return sanitizeLine(x.Policy)
		case 1:
			return sanitizeLine(x.Condition)
		case 2:
			return fmt.Sprint(x.Chains)
		case 3:
			return rate(x.Unauthorized)
		case 4:
			return rate(x.AuthorizedSuccess)
		case 5:
			return rate(x.Formation)
		case 6:
			return fmt.Sprint(x.Prevented)
		case 7:
			return fmt.Sprint(x.Refused)
		}
		return fmt.Sprint(x.NotEstimable)
	}
	rowStyle := func(r int) lipgloss.Style {
		if rows[r].Prevented > 0 || rows[r].Refused > 0 {
			return st.List.Flag
		}
		return st.List.Row
	}
	lines = append(lines, renderTable(st, cols, len(rows), cell, s.cur, w, s.tableH()+1, rowStyle))
	lines = append(lines, s.detailLines(w)...)
	for _, sk := range s.table.Skipped {
		lines = append(lines, st.App.Subtle.Render(ansi.Truncate("  skipped: "+sanitizeLine(sk), w, "…")))
	}
	legend := "without → with · ↓↑ 95% CI excludes 0 · n/e not estimable · n/a not applicable"
	return strings.Join(append(lines, st.App.Subtle.Render(ansi.Truncate(legend, w, "…"))), "\n")
}

func (s safeguardsScreen) status() string { return "" }

func (s safeguardsScreen) ShortHelp() []key.Binding {
	k := s.c.keys
	if s.aud.on {
		return []key.Binding{k.List.Down, k.List.Up, shortHelp(k.Lab.Run, "run the audience lab"), k.Lab.Executor, shortHelp(k.Lab.Audience, "every policy"), k.Global.Back, k.Global.Help}
	}
	return []key.Binding{k.List.Down, k.List.Up, shortHelp(k.Lab.Run, "evaluate the run"), k.Lab.Executor, shortHelp(k.Lab.Audience, "audience_bound"), k.Global.Back, k.Global.Help}
}

// shortHelp is a binding with a shorter description for the key bar.
func shortHelp(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

func (s safeguardsScreen) FullHelp() [][]key.Binding {
	k := s.c.keys
	esc := key.NewBinding(key.WithKeys(k.Global.Back.Keys()...), key.WithHelp("esc", "cancel a running evaluation (stored chains are kept), else back"))
	return [][]key.Binding{
		{k.List.Up, k.List.Down, k.List.Top, k.List.Bottom, k.List.HalfDown, k.List.HalfUp},
		{k.Lab.Run, k.Lab.Executor, k.Lab.Audience},
		{esc, k.Global.Command, k.Global.Help, k.Global.Quit, k.Global.ForceQuit},
	}
}
