package tui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// runsScreen lists the imported runs; enter opens a run's chains.
type runsScreen struct {
	c     *common
	store RunLister
	runs  []RunSummary
	cur   cursor
	ready bool
}

func newRunsScreen(c *common, store RunLister) runsScreen {
	return runsScreen{c: c, store: store}
}

func (s runsScreen) Init() tea.Cmd { return loadRunsCmd(s.c.lifetime(), s.store) }

func (s runsScreen) tableH() int { return max(listLayout(s.c.width, s.c.height)-1, 1) }

func (s runsScreen) Update(msg tea.Msg) (runsScreen, tea.Cmd) {
	k := &s.c.keys.List
	switch msg := msg.(type) {
	case runsLoadedMsg:
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		s.runs, s.ready = msg.runs, true
		s.cur.set(s.cur.sel, len(s.runs), s.tableH())
	case tea.KeyPressMsg:
		n, h := len(s.runs), s.tableH()
		switch {
		case s.cur.navigate(msg, *k, n, h):
		case key.Matches(msg, k.Open):
			if n > 0 {
				run := s.runs[s.cur.sel]
				return s, func() tea.Msg { return openRunMsg{run} }
			}
		}
	}
	return s, nil
}

func (s runsScreen) View() string {
	st := s.c.styles
	head := st.App.Title.Render("ealscope") + st.App.Subtle.Render(fmt.Sprintf(" · runs (%d)", len(s.runs)))
	if !s.ready {
		return head + "\n" + st.App.Subtle.Render("loading runs…")
	}
	// The counts and the domain are never cut; the study yields first, then the start time
	// (a run id names its run; a cut date names nothing), then the long names.
	cols := []column{{title: "run", mid: true, min: 8}, {title: "domain", keep: true}, {title: "writer → executor", mid: true, min: 8},
		{title: "study", min: 6, yield: true}, {title: "started", min: 10, yield: true}, {title: "chains", keep: true}, {title: "forming", keep: true},
		{title: "trials", keep: true}, {title: "not est.", keep: true}, {title: "status", grow: true, min: 10}}
	// The tokens column appears when some run called a model: the built-in parts cost none.
	tokens := slices.ContainsFunc(s.runs, func(x RunSummary) bool { return x.WriterTokens+x.ExecutorTokens > 0 })
	if tokens {
		cols = slices.Insert(cols, 9, column{title: "tokens (writer/executor)", keep: true})
	}
	cell := func(r, c int) string {
		x := s.runs[r]
		if tokens && c == 9 {
			return compactCount(x.WriterTokens) + " / " + compactCount(x.ExecutorTokens)
		}
		if tokens && c > 9 {
			c--
		}
		switch c {
		case 0:
			return sanitizeLine(x.RunID)
		case 1:
			return sanitizeLine(x.DomainID)
		case 2:
			if x.Writers == "" && x.Executors == "" {
				return "—"
			}
			return sanitizeLine(orDash(x.Writers) + " → " + orDash(x.Executors))
		case 3:
			return sanitizeLine(x.Study)
		case 4:
			return sanitizeLine(startedText(x.StartedAt))
		case 5:
			return fmt.Sprint(x.Chains)
		case 6:
			return fmt.Sprint(x.Forming)
		case 7:
			return fmt.Sprint(x.Trials)
		case 8:
			// Provider errors are counted apart: they are no decision (see counts.go).
			if x.TrialsNotEstimable == 0 {
				return "-"
			}
			return fmt.Sprint(x.TrialsNotEstimable)
		}
		v := "✓ verified"
		switch {
		case x.Incomplete:
			v = "! INCOMPLETE"
		case !x.Verified:
			v = "! unverified"
		}
		if x.WriterAttempts > 0 && x.WriterErrors == x.WriterAttempts {
			v = fmt.Sprintf("! WRITER FAILED on all %d calls", x.WriterAttempts)
		}
		return v + " · " + sanitizeLine(x.Status)
	}
	if len(s.runs) == 0 {
		return head + "\n\n" + emptyWorkspaceText(st)
	}
	body := renderTable(st, cols, len(s.runs), cell, s.cur, s.c.width, s.tableH()+1,
		func(int) lipgloss.Style { return st.List.Row })
	return head + "\n" + body
}

func (s runsScreen) ShortHelp() []key.Binding {
	k := s.c.keys
	return []key.Binding{k.List.Down, k.List.Up, k.List.Open, k.Global.Help, k.Global.Quit}
}

func (s runsScreen) FullHelp() [][]key.Binding {
	k := s.c.keys
	return [][]key.Binding{
		{k.List.Up, k.List.Down, k.List.Top, k.List.Bottom, k.List.HalfDown, k.List.HalfUp},
		{k.List.Open, k.Global.Command, k.Global.Help, k.Global.Quit, k.Global.ForceQuit},
	}
}

// compactCount is a token count as 950, 12.3k or 4.5M.
func compactCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// emptyWorkspaceText says how to fill a workspace with nothing in it.
func emptyWorkspaceText(st *Styles) string {
	return st.App.Subtle.Render("This workspace has no runs yet. To fill it:\n" +
		"  ealscope demo                     build and import a scripted demo run\n" +
		"  ealscope import RUN_DIR           import an EAL-Bench or ealscope run directory\n" +
		"  ealscope run --out DIR            make a run, then import it")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// startedText is a run's start to the minute, in UTC ("2026-12-02 08:16Z"); text that is not
// an RFC 3339 time stays as it is.
func startedText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
