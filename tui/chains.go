package tui

import (
	"fmt"
	"github.com/ealscope/ealscope/runs"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// chainsScreen lists the chains of one run with their flags; `/` filters, `o` sorts by the
// next column, `n` jumps to the next flagged row, enter opens the chain view.
type chainsScreen struct {
	c      *common
	store  ChainLister
	run    RunSummary
	all    []ChainSummary
	shown  []int // indexes into all, after filter and sort
	cur    cursor
	filter lineInput
	query  string
	saved  string
	sortBy int
	ready  bool
	// pending is a chain to put the cursor on once the list has loaded (the chain the program
	// started on, or one opened from elsewhere), so that back from it lands on its row.
	pending runs.ChainKey
}

// selectChain puts the cursor on a chain's row, now or once the list has loaded.
func (s *chainsScreen) selectChain(id runs.ChainKey) {
	if !s.ready {
		s.pending = id
		return
	}
	for i, j := range s.shown {
		if s.all[j].Key.ID == id {
			s.cur.set(i, len(s.shown), s.tableH())
			return
		}
	}
}

// chainSortKeys are the sortable columns, in the order `o` cycles through them.
var chainSortKeys = []string{"case", "condition", "writer run", "first false authority", "unauthorized", "memory-induced"}

func newChainsScreen(c *common, store ChainLister, run RunSummary) chainsScreen {
	return chainsScreen{c: c, store: store, run: run}
}

func (s chainsScreen) Init() tea.Cmd { return loadChainsCmd(s.c.lifetime(), s.store, s.run.RunID) }

func (s chainsScreen) tableH() int { return max(listLayout(s.c.width, s.c.height)-1, 1) }

// capturing reports whether the screen wants every key (the filter is being typed).
func (s chainsScreen) capturing() bool { return s.filter.active }

func (s chainsScreen) Update(msg tea.Msg) (chainsScreen, tea.Cmd) {
	k := &s.c.keys.List
	switch msg := msg.(type) {
	case chainsLoadedMsg:
		if msg.runID != s.run.RunID {
			return s, nil // a result for a run we already left
		}
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		s.all, s.ready = msg.chains, true
		s.refresh()
		if s.pending != 0 {
			s.selectChain(s.pending)
			s.pending = 0
		}
	case annotSavedMsg:
		if labelMayScore(msg) && s.ready {
			// The flags follow a label that counts; the cursor stays on its chain.
			if s.cur.sel < len(s.shown) {
				s.pending = s.all[s.shown[s.cur.sel]].Key.ID
			}
			return s, loadChainsCmd(s.c.lifetime(), s.store, s.run.RunID)
		}
	case tea.KeyPressMsg:
		if s.filter.active {
			// The list filters as you type; esc puts back the filter from before the edit.
			res := s.filter.update(msg)
			if res == inputCancelled {
				s.filter.value = s.saved
			}
			s.query = s.filter.value
			s.refresh()
			return s, nil
		}
		n, h := len(s.shown), s.tableH()
		switch {
		case s.cur.navigate(msg, *k, n, h):
		case key.Matches(msg, k.Filter):
			s.saved = s.query
			s.filter.start("/", s.query)
		case key.Matches(msg, k.Sort):
			s.sortBy = (s.sortBy + 1) % len(chainSortKeys)
			s.refresh()
		case key.Matches(msg, k.NextFlagged):
			for i := 1; i <= n; i++ {
				j := (s.cur.sel + i) % n
				if s.all[s.shown[j]].Flagged() {
					s.cur.set(j, n, h)
					break
				}
			}
		case key.Matches(msg, s.c.keys.Lab.Open):
			runID := s.run.RunID
			return s, func() tea.Msg { return openSafeguardsMsg{runID} }
		case key.Matches(msg, k.Open):
			if n > 0 {
				ch := s.all[s.shown[s.cur.sel]]
				return s, func() tea.Msg { return openChainMsg{ch.Key, -1} }
			}
		}
	}
	return s, nil
}

// refresh recomputes the visible rows. Filtering matches every word of the query, in any
// order, as a substring of the row's text (case, condition, writer, flags), which is what a
// researcher types ("overgrant", "annual incremental", a case id).
func (s *chainsScreen) refresh() {
	words := strings.Fields(strings.ToLower(s.query))
	s.shown = s.shown[:0]
	for i, ch := range s.all {
		if matchesAll(strings.ToLower(chainRowText(ch)), words) {
			s.shown = append(s.shown, i)
		}
	}
	less := func(a, b ChainSummary) (bool, bool) {
		switch s.sortBy {
		case 1:
			return a.Key.ConditionID < b.Key.ConditionID, a.Key.ConditionID == b.Key.ConditionID
		case 2:
			return a.Key.WriterRunID < b.Key.WriterRunID, a.Key.WriterRunID == b.Key.WriterRunID
		case 3: // chains that form early first; none last
			fa, fb := faSortKey(a), faSortKey(b)
			return fa < fb, fa == fb
		case 4:
			return a.UnauthorizedActions > b.UnauthorizedActions, a.UnauthorizedActions == b.UnauthorizedActions
		case 5:
			return a.MemoryInduced > b.MemoryInduced, a.MemoryInduced == b.MemoryInduced
		}
		return a.Key.CaseID < b.Key.CaseID, a.Key.CaseID == b.Key.CaseID
	}
	sort.SliceStable(s.shown, func(i, j int) bool {
		a, b := s.all[s.shown[i]], s.all[s.shown[j]]
		if l, eq := less(a, b); !eq {
			return l
		}
		return chainKeyLess(a.Key, b.Key)
	})
	s.cur.set(s.cur.sel, len(s.shown), s.tableH())
}

func faSortKey(c ChainSummary) int {
	if c.FirstFalseAuthority < 0 {
		return 1 << 30
	}
	return c.FirstFalseAuthority
}

func chainKeyLess(a, b ChainKey) bool {
	if a.CaseID != b.CaseID {
		return a.CaseID < b.CaseID
	}
	if a.ConditionID != b.ConditionID {
		return a.ConditionID < b.ConditionID
	}
	return a.WriterRunID < b.WriterRunID
}

func chainFlags(c ChainSummary) string {
	var f []string
	if c.FirstFalseAuthority >= 0 {
		f = append(f, fmt.Sprintf("!FA@%d", c.FirstFalseAuthority))
	}
	if c.UnauthorizedActions > 0 {
		f = append(f, fmt.Sprintf("!UNAUTH×%d", c.UnauthorizedActions))
	}
	if c.MemoryInduced > 0 {
		f = append(f, fmt.Sprintf("!MEM×%d", c.MemoryInduced))
	}
	switch {
	case formationUnscored(c):
		// Not "no false authority": free text is scored only once annotated (the footer
		// spells it out for the row under the cursor).
		f = append(f, unscoredFlag)
	case c.NeedsAnnotation:
		f = append(f, "?annotate")
	}
	return strings.Join(f, " ")
}

// unscoredFlag marks a chain whose false authority is not scored; it stays short because the
// flags column is never cut.
const unscoredFlag = "?FA unscored"

func chainRowText(c ChainSummary) string {
	return fmt.Sprintf("%s %s %d %s %s %s", c.Key.CaseID, c.Key.ConditionID, c.Key.WriterRunID,
		c.Writer, c.Architecture, chainFlags(c))
}

func (s chainsScreen) View() string {
	st := s.c.styles
	head := st.App.Title.Render("chains") + st.App.Subtle.Render(fmt.Sprintf(" · run %s · %d of %d · sorted by %s",
		sanitizeLine(s.run.RunID), len(s.shown), len(s.all), chainSortKeys[s.sortBy]))
	if !s.ready {
		return head + "\n" + st.App.Subtle.Render("loading chains…")
	}
	// Case ids share their corpus prefix: a narrow column cuts them in the middle. Flags and
	// counts are never cut.
	cols := []column{{title: "case", mid: true, grow: true, min: 12}, {title: "condition", mid: true, min: 11}, {title: "run", keep: true},
		{title: "mems", keep: true}, {title: "writer", min: 6}, {title: "flags", keep: true}}
	cell := func(r, c int) string {
		x := s.all[s.shown[r]]
		switch c {
		case 0:
			return sanitizeLine(x.Key.CaseID)
		case 1:
			return sanitizeLine(x.Key.ConditionID)
		case 2:
			return fmt.Sprint(x.Key.WriterRunID)
		case 3:
			return fmt.Sprint(x.Memories)
		case 4:
			if x.Writer == "" {
				return "—" // conditions without a writer (empty memory, full history)
			}
			return sanitizeLine(x.Writer)
		}
		return chainFlags(x)
	}
	rowStyle := func(r int) lipgloss.Style {
		if s.all[s.shown[r]].Flagged() {
			return st.List.Flag
		}
		return st.List.Row
	}
	return head + "\n" + renderTable(st, cols, len(s.shown), cell, s.cur, s.c.width, s.tableH()+1, rowStyle)
}

// status is the footer's first line while this screen is on top.
func (s chainsScreen) status() string {
	if s.filter.active {
		return s.filter.view()
	}
	if s.query != "" {
		return "filter: " + s.query + " (/ to change)"
	}
	if i := s.cur.sel; s.ready && i < len(s.shown) && formationUnscored(s.all[s.shown[i]]) {
		return unscoredFlag + ": false authority " + notScoredText
	}
	return ""
}

func (s chainsScreen) ShortHelp() []key.Binding {
	k := s.c.keys
	return []key.Binding{k.List.Open, k.List.Filter, k.List.Sort, k.List.NextFlagged, k.Global.Back, k.Global.Help}
}

func (s chainsScreen) FullHelp() [][]key.Binding {
	k := s.c.keys
	return [][]key.Binding{
		{k.List.Up, k.List.Down, k.List.Top, k.List.Bottom, k.List.HalfDown, k.List.HalfUp},
		{k.List.Open, k.List.Filter, k.List.Sort, k.List.NextFlagged, runSafeguardsKey(k.Lab.Open)},
		{k.Global.Back, k.Global.Command, k.Global.Help, k.Global.Quit, k.Global.ForceQuit},
	}
}

// matchesAll reports whether text contains every word (no words: everything matches).
func matchesAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// keepEnd cuts s to w cells from the left ("…reserved_capacity"), keeping its end.
func keepEnd(s string, w int) string {
	if w <= 1 || ansi.StringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}
