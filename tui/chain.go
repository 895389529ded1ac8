package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
)

// pane is one region of the chain view.
type pane int

const (
	paneNone pane = iota
	paneTimeline
	paneHistory
	paneMemory
	paneProbes
)

var paneNames = map[pane]string{paneTimeline: "timeline", paneHistory: "history", paneMemory: "memory", paneProbes: "probes"}

// baseline is what the memory pane compares the current version with; `c` cycles it.
type baseline int

const (
	basePrevious baseline = iota
	baseLedger
	baseOracle
	baseRaw
	baseCount
)

var baselineNames = []string{"previous version", "ledger state", "oracle-exact memory", "raw payload"}

// chainScreen is the heart of the program: one chain, stepped block by block.
type chainScreen struct {
	c        *common
	store    ChainReader
	searcher Searcher
	key      ChainKey

	detail  *ChainDetail
	blocks  map[int]BlockDetail // one query per block, kept for the life of the screen
	pending map[int]bool
	block   int
	// want is the block asked for before the timeline arrived; -1 means "first false
	// authority, else 0".
	want int

	focus   pane
	content pane // the content pane shown beside the timeline in narrow mode
	only    pane // render exactly this pane (ealscope render --pane)
	base    baseline
	side    bool
	scroll  map[pane]int
	turn    int // selected turn in the history pane
	probe   int // selected probe in the probes pane, then the ranked causes below the probes
	// whyProbe is the forming probe whose causes the pane shows; causeOpen is the opened
	// cause (its index + 1; 0: none).
	whyProbe  string
	causeOpen int
	// ledger is the row cursor of the ledger baseline; exact caches each block's
	// oracle-exact memory (the oracle baseline), both in chain_ledger.go.
	ledger ledgerRow
	exact  map[int]exactEntry
	// words keeps the free-text word diffs drawn (diff.go), shared by the screen's copies.
	words *wordDiffs

	search    lineInput
	query     string
	hits      []SearchHit
	hit       int
	searchSeq int
	notice    string

	// rerunner and models back the re-run panel; rerun is the open panel (nil: closed).
	rerunner Rerunner
	models   *replay.Config
	rerun    *rerunPanel
	// lab backs the safeguards pane; safeguards is the open pane (nil: closed).
	lab        SafeguardLab
	safeguards *safeguardsPanel
}

// withRerun gives the screen what the re-run panel needs (nil rerunner: `r` is disabled).
func (s chainScreen) withRerun(r Rerunner, models *replay.Config) chainScreen {
	s.rerunner, s.models = r, models
	s.c.keys.Chain.Rerun.SetEnabled(r != nil)
	return s
}

func newChainScreen(c *common, store ChainReader, searcher Searcher, key ChainKey, block int) chainScreen {
	return chainScreen{
		c: c, store: store, searcher: searcher, key: key, want: block,
		blocks: map[int]BlockDetail{}, pending: map[int]bool{}, scroll: map[pane]int{},
		focus: paneTimeline, content: paneHistory, words: &wordDiffs{},
	}
}

func (s chainScreen) Init() tea.Cmd { return loadChainCmd(s.c.lifetime(), s.store, s.key.ID) }

func (s chainScreen) lastBlock() int {
	if s.detail == nil {
		return 0
	}
	return max(len(s.detail.Blocks)-1, 0)
}

func (s chainScreen) firstFalse() int {
	if s.detail == nil {
		return -1
	}
	return s.detail.Summary.FirstFalseAuthority
}

// setBlock moves to block k and returns the query for it when it is not cached yet.
func (s *chainScreen) setBlock(k int) tea.Cmd {
	if s.detail == nil {
		s.want = k // applied when the timeline arrives
		return nil
	}
	k = clamp(k, 0, s.lastBlock())
	if k != s.block {
		s.scroll[paneHistory], s.scroll[paneMemory], s.scroll[paneProbes] = 0, 0, 0
		s.turn = 0
		s.ledger = ledgerRow{all: s.ledger.all}
	}
	s.block = k
	s.scroll[paneTimeline] = k // the timeline keeps the selected block in view when drawn
	exact := s.wantExact()
	if _, ok := s.blocks[k]; ok {
		if s.turn == 0 {
			s.showCited()
		}
		return exact
	}
	if s.pending[k] {
		return exact
	}
	s.pending[k] = true
	return tea.Batch(loadBlockCmd(s.c.lifetime(), s.store, *s.detail, k), exact)
}

// capturing reports whether the screen wants every key (the search prompt is open).
func (s chainScreen) capturing() bool { return s.search.active }

func (s chainScreen) Update(msg tea.Msg) (chainScreen, tea.Cmd) {
	if next, cmd, ok := s.updateLab(msg); ok {
		return next, cmd
	}
	switch msg.(type) {
	case rerunLoadedMsg, rerunEventMsg, rerunDoneMsg, rerunEditReadyMsg, rerunEditedMsg, rerunSavedMsg:
		if s.rerun == nil {
			return s, nil
		}
		// The panel is a pointer shared by copies of the screen: copy it before mutating so
		// an earlier model value never changes under the program.
		p := *s.rerun
		s.rerun = &p
		return s, p.Update(msg)
	}
	switch msg := msg.(type) {
	case chainLoadedMsg:
		if msg.key != s.key.ID {
			return s, nil
		}
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		if s.detail != nil {
			// Read again after a label was saved: stay on the block, draw it anew.
			s.detail = &msg.detail
			// The cursor and scroll positions stay; only the blocks' contents are reloaded.
			s.blocks, s.pending = map[int]BlockDetail{}, map[int]bool{s.block: true}
			return s, loadBlockCmd(s.c.lifetime(), s.store, *s.detail, s.block)
		}
		s.detail = &msg.detail
		s.key = msg.detail.Summary.Key // fills the names a deep link or search hit lacked
		want := s.want
		if want < 0 {
			want = max(s.firstFalse(), 0)
		}
		s.block = -1
		return s, s.setBlock(want)
	case blockLoadedMsg:
		if msg.key != s.key.ID {
			return s, nil
		}
		delete(s.pending, msg.block)
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		s.blocks[msg.block] = msg.detail
		if msg.block == s.block && s.turn == 0 {
			s.showCited()
		}
	case exactLoadedMsg:
		if msg.key != s.key.ID {
			return s, nil
		}
		e := exactEntry{mem: msg.mem}
		if msg.err != nil {
			e.err = msg.err.Error()
		}
		s.exact = withExact(s.exact, msg.block, e)
	case annotSavedMsg:
		if labelMayScore(msg) && s.detail != nil {
			// A label that counts changes the scores and badges of the chain it belongs to;
			// any chain may hold the memory, so read this one again.
			return s, loadChainCmd(s.c.lifetime(), s.store, s.key.ID)
		}
	case searchDoneMsg:
		if msg.seq != s.searchSeq {
			return s, nil // an older search finished after a newer one started
		}
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		s.hits, s.hit = msg.hits, 0
		if len(s.hits) == 0 {
			s.notice = fmt.Sprintf("no match for %q", s.query)
			return s, nil
		}
		return s, s.jumpHit()
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return s, nil
}

func (s chainScreen) handleKey(msg tea.KeyPressMsg) (chainScreen, tea.Cmd) {
	s.notice = ""
	if s.search.active {
		switch s.search.update(msg) {
		case inputSubmitted:
			s.query = strings.TrimSpace(s.search.value)
			if s.query == "" || s.searcher == nil {
				return s, nil
			}
			s.searchSeq++
			seq := s.searchSeq
			started := func() tea.Msg { return taskStartedMsg{seq, "search"} }
			return s, tea.Batch(started, searchCmd(s.c.lifetime(), s.searcher, seq, s.query))
		case inputCancelled:
			return s, nil
		}
		return s, nil
	}
	k := &s.c.keys.Chain
	g := &s.c.keys.Global
	if s.rerun != nil {
		p := *s.rerun
		s.rerun = &p
		return s, p.handleKey(msg)
	}
	if s.safeguards != nil {
		return s.safeguardsKey(msg)
	}
	if key.Matches(msg, s.c.keys.Lab.Open) {
		return s, s.openSafeguards()
	}
	if s.focus == paneMemory && s.base == baseLedger {
		next, handled, cmd := s.ledgerKey(msg)
		if handled {
			return next, cmd
		}
	}
	if handled, cmd := s.pageKey(msg); handled {
		return s, cmd
	}
	switch {
	case key.Matches(msg, k.Rerun):
		return s, s.openRerun()
	case key.Matches(msg, k.Present):
		if s.detail == nil {
			return s, nil
		}
		ck, block := s.key, s.block
		return s, func() tea.Msg { return openPresentMsg{ck, block} }
	case key.Matches(msg, k.Annotate):
		if b, ok := s.blocks[s.block]; ok && b.Memory != nil && b.Memory.Architecture == engine.ArchFreeText {
			id := b.Memory.MemoryID
			runID := s.key.RunID
			return s, func() tea.Msg { return openAnnotateMsg{memoryID: id, runID: runID} }
		}
		s.notice = "only free-text memory versions are annotated"
	case key.Matches(msg, k.PrevBlock):
		return s, s.setBlock(s.block - 1)
	case key.Matches(msg, k.NextBlock):
		return s, s.setBlock(s.block + 1)
	case key.Matches(msg, k.FirstFalse):
		if fa := s.firstFalse(); fa >= 0 {
			return s, s.setBlock(fa)
		}
		s.notice = "this chain never forms false authority"
	case key.Matches(msg, g.NextPane):
		s.cyclePane()
	case key.Matches(msg, k.Baseline):
		s.base = (s.base + 1) % baseCount
		s.scroll[paneMemory] = 0
		return s, s.wantExact()
	case key.Matches(msg, k.SideBySide):
		s.side = !s.side
	case key.Matches(msg, k.NextChange):
		if len(s.hits) > 0 {
			s.hit = (s.hit + 1) % len(s.hits)
			return s, s.jumpHit()
		}
		s.jumpChange(1)
	case key.Matches(msg, k.PrevChange):
		if len(s.hits) > 0 {
			s.hit = (s.hit - 1 + len(s.hits)) % len(s.hits)
			return s, s.jumpHit()
		}
		s.jumpChange(-1)
	case key.Matches(msg, k.Down):
		return s, s.moveInPane(1)
	case key.Matches(msg, k.Up):
		return s, s.moveInPane(-1)
	case key.Matches(msg, k.Copy):
		if text, what := s.copyTarget(); text != "" {
			s.notice = "copied " + what
			return s, tea.SetClipboard(text)
		}
		s.notice = "nothing to copy here"
	case key.Matches(msg, k.Search):
		s.search.start("search workspace: ", "") // empty: typing never appends to the last query
	case key.Matches(msg, s.c.keys.List.Open):
		if s.focus == paneTimeline {
			s.focus, s.content = paneHistory, paneHistory
		}
		if b, ok := s.blocks[s.block]; ok && s.focus == paneProbes && s.probe >= len(b.Probes) {
			i := s.probe - len(b.Probes) + 1
			if s.causeOpen == i {
				i = 0
			}
			s.causeOpen = i
		}
	}
	return s, nil
}

// back handles esc: it clears a search first, then leaves the pane focus; the root pops the
// screen only when there is nothing left to undo here.
func (s *chainScreen) back() bool {
	if s.closeSafeguards() {
		return true
	}
	if panelBack(&s.rerun) {
		return true
	}
	if len(s.hits) > 0 || s.query != "" {
		s.hits, s.query = nil, ""
		return true
	}
	if s.focus != paneTimeline {
		s.focus = paneTimeline
		return true
	}
	return false
}

// panelBack hands esc to the open panel *open and closes it when the panel says so; it
// reports whether a panel was open. The panel steps back on a copy: an earlier model value
// may still share the old one.
func panelBack[P any, PP interface {
	*P
	back() bool
}](open **P) bool {
	if *open == nil {
		return false
	}
	p := **open
	if PP(&p).back() {
		*open = nil
	} else {
		*open = &p
	}
	return true
}

func (s *chainScreen) cyclePane() {
	order := []pane{paneTimeline, paneHistory, paneMemory, paneProbes}
	for i, p := range order {
		if p == s.focus {
			s.focus = order[(i+1)%len(order)]
			break
		}
	}
	if s.focus != paneTimeline {
		s.content = s.focus
	}
}

func (s *chainScreen) moveInPane(d int) tea.Cmd {
	switch s.focus {
	case paneTimeline:
		return s.setBlock(s.block + d)
	case paneHistory:
		if b, ok := s.blocks[s.block]; ok {
			s.turn = clamp(s.turn+d, 0, max(len(b.Turns)-1, 0))
		}
	case paneProbes:
		if b, ok := s.blocks[s.block]; ok {
			s.moveProbeCursor(b, s.probe+d)
		}
	default:
		s.scroll[s.focus] = max(s.scroll[s.focus]+d, 0)
	}
	return nil
}

// jumpChange scrolls the memory pane to the next (dir 1) or previous (dir -1) changed line.
func (s *chainScreen) jumpChange(dir int) {
	b, ok := s.blocks[s.block]
	if !ok {
		return
	}
	f := chainLayout(s.c.width, s.c.height, layoutState{focus: paneMemory})
	lines := s.memoryLines(b, max(f.memory.w-2, 1))
	cur := s.scroll[paneMemory]
	for i := 1; i <= len(lines); i++ {
		j := cur + dir*i
		if j < 0 || j >= len(lines) {
			break
		}
		if lines[j].change {
			s.scroll[paneMemory] = j
			s.focus, s.content = paneMemory, paneMemory
			return
		}
	}
	s.notice = "no more changes"
}

// jumpHit opens the current search hit: same chain means a block step, another chain is
// a navigation the root performs.
func (s *chainScreen) jumpHit() tea.Cmd {
	h := s.hits[s.hit]
	s.notice = fmt.Sprintf("match %d/%d: %s", s.hit+1, len(s.hits), sanitizeLine(h.Snippet))
	// A turn belongs to the case, not to one chain: a hit in this chain's case stays here.
	if h.Key.ID == s.key.ID || h.Kind == "turn" && h.Key.CaseID == s.key.CaseID {
		cmd := s.setBlock(h.Block)
		if h.Kind == "memory" {
			s.focus, s.content = paneMemory, paneMemory
		} else {
			s.focus, s.content = paneHistory, paneHistory
			if b, ok := s.blocks[h.Block]; ok {
				for i, t := range b.Turns {
					if t.ID == h.ItemID {
						s.turn = i
					}
				}
			}
		}
		return cmd
	}
	return func() tea.Msg { return openChainMsg{h.Key, h.Block} }
}

// copyTarget is the focused item as plain text: the selected turn, the memory payload, the
// selected probe's trials, or the block's events.
func (s chainScreen) copyTarget() (string, string) {
	b, ok := s.blocks[s.block]
	if !ok {
		return "", ""
	}
	switch s.focus {
	case paneHistory:
		if s.turn < len(b.Turns) {
			t := b.Turns[s.turn]
			return sanitize(fmt.Sprintf("%s · %s · %s\n%s", t.Speaker, t.OccurredAt, t.ID, t.Content)), "turn " + t.ID
		}
	case paneMemory:
		if b.Memory != nil {
			return rawPayload(b.Memory), "memory " + b.Memory.MemoryID
		}
	case paneProbes:
		if pw := s.shownWhy(b); pw != nil && s.probe >= len(b.Probes) && s.probe-len(b.Probes) < len(pw.Causes) {
			c := pw.Causes[s.probe-len(b.Probes)]
			return sanitize(fmt.Sprintf("%s (%s): %s · %s · %s\n%s\n%s", pw.Class, pw.Support, c.Role, c.TurnID, c.Speaker,
				strings.Join(c.Evidence, "\n"), c.Text)), "cause " + c.TurnID
		}
		if s.probe < len(b.Probes) {
			p := b.Probes[s.probe]
			lines := []string{fmt.Sprintf("probe %s (%s %s)", p.ProbeID, p.Scope, p.Dimension)}
			for _, t := range p.Trials {
				lines = append(lines, fmt.Sprintf("%s %s(%s)", t.Decision, t.ToolName, t.ToolArgs))
			}
			return sanitize(strings.Join(lines, "\n")), "probe " + p.ProbeID
		}
	default:
		var lines []string
		for _, e := range b.Events {
			lines = append(lines, fmt.Sprintf("%s %s %s by %s", e.ID, e.Type, e.AuthorizationID, e.Issuer))
		}
		return sanitize(fmt.Sprintf("block %d: %s\n%s", b.Index, b.Title, strings.Join(lines, "\n"))), fmt.Sprintf("block %d", b.Index)
	}
	return "", ""
}

// status is the footer's first line while this screen is on top.
func (s chainScreen) status() string {
	if s.search.active {
		return s.search.view()
	}
	if s.notice == "" && s.detail != nil && s.block == s.firstFalse() && len(s.detail.CitedTurns) > 0 {
		return "!! first false authority · memory cites " + sanitizeLine(strings.Join(s.detail.CitedTurns, ", ")) + " [M]"
	}
	if s.notice == "" && s.detail != nil && formationUnscored(s.detail.Summary) {
		// Said in full here: a narrow header keeps only the flag.
		return "false authority " + notScoredText + " · " + s.c.keys.Chain.Annotate.Help().Key + ": annotate"
	}
	return s.notice
}

func (s chainScreen) ShortHelp() []key.Binding {
	k, g := s.c.keys.Chain, s.c.keys.Global
	if s.safeguards != nil {
		lh := s.labHelp()
		return []key.Binding{shortHelp(lh[0], "policy"), shortHelp(lh[1], "block"), k.FirstFalse, shortHelp(s.c.keys.Lab.Run, "evaluate"),
			shortHelp(s.c.keys.Lab.Executor, "executor"), g.Help, g.Back}
	}
	if s.rerun != nil {
		return s.rerunHelp()
	}
	if len(s.hits) > 0 { // a search is on: its next/previous match come first
		next, prev := s.matchKeys()
		return []key.Binding{next, prev, k.PrevBlock, k.NextBlock, g.Help, g.Back}
	}
	if local := s.focusHelp(); local != nil { // the key bar follows the focused pane
		return append(local, g.NextPane, g.Help, g.Back)
	}
	return []key.Binding{k.PrevBlock, k.NextBlock, k.FirstFalse, g.NextPane, k.Baseline, k.Search, k.Rerun, g.Help, g.Back}
}

// matchKeys are the next/previous-change keys described as what they do during a search.
func (s chainScreen) matchKeys() (next, prev key.Binding) {
	k := s.c.keys.Chain
	next = key.NewBinding(key.WithKeys(k.NextChange.Keys()...), key.WithHelp(k.NextChange.Help().Key, "next search match"))
	prev = key.NewBinding(key.WithKeys(k.PrevChange.Keys()...), key.WithHelp(k.PrevChange.Help().Key, "previous search match"))
	return next, prev
}

// FullHelp is the `?` sheet of the focused pane, then the keys that work everywhere.
func (s chainScreen) FullHelp() [][]key.Binding {
	k, g := s.c.keys.Chain, s.c.keys.Global
	if s.safeguards != nil {
		return [][]key.Binding{s.labHelp(), {g.Help, g.ForceQuit}}
	}
	if s.rerun != nil {
		return [][]key.Binding{s.rerunHelp(), {g.Help, g.ForceQuit}}
	}
	// The keys that work from any pane, the search's match keys among them.
	next, prev := s.matchKeys()
	steps := []key.Binding{k.PrevBlock, k.NextBlock, k.FirstFalse, k.Baseline, k.Annotate, k.Search, next, prev, k.Rerun, k.Present, s.c.keys.Lab.Open}
	var local []key.Binding
	switch s.focus {
	case paneTimeline:
		local = []key.Binding{k.Down, k.Up, s.c.keys.List.Open, k.Copy}
	case paneHistory:
		local = []key.Binding{k.Down, k.Up, k.Copy}
	case paneMemory:
		local = []key.Binding{k.Baseline, k.SideBySide, k.NextChange, k.PrevChange, k.Down, k.Up, k.Copy, k.Annotate}
		if s.base == baseLedger {
			local = []key.Binding{k.Baseline, k.Down, k.Up, ledgerExpandKey(s.c.keys.List.Open), k.Copy, k.NextChange, k.PrevChange}
		}
	case paneProbes:
		local = []key.Binding{k.Down, k.Up, causeOpenKey(s.c.keys.List.Open), k.Copy}
	}
	l := s.c.keys.List
	local = append(local, l.Top, l.Bottom, l.HalfDown, l.HalfUp)
	return [][]key.Binding{local, steps, {g.NextPane, g.Command, g.Help, g.Back, g.Quit, g.ForceQuit}}
}

// showCited selects, at the first false-authority block, the first turn its memory cites,
// so the turn that caused it is on screen without scrolling.
func (s *chainScreen) showCited() {
	if b, ok := s.blocks[s.block]; ok && s.detail != nil && s.block == s.firstFalse() {
		s.turn = citedTurn(b, s.detail.CitedTurns)
	}
}

// citedTurn is the index of the first turn of b listed in cited (0 when none is).
func citedTurn(b BlockDetail, cited []string) int {
	for i, t := range b.Turns {
		for _, id := range cited {
			if t.ID == id {
				return i
			}
		}
	}
	return 0
}
