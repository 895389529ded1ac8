package tui

import (
	"fmt"
	"github.com/ealscope/ealscope/engine/safetext"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/replay"
)

// Options configure the program. cmd/ealscope fills them from flags, environment and config.
type Options struct {
	Store Store
	// DBPath is the workspace file, used by :link to print a command that reopens this spot.
	DBPath string
	// NoColor drops every colour (NO_COLOR, --no-color, TERM=dumb); bold and glyphs remain.
	NoColor bool
	// Mouse turns on wheel scrolling; off by default so native text selection keeps working.
	Mouse bool
	// Dark forces the dark or light theme; nil asks the terminal for its background.
	Dark *bool
	// Keys rebinds actions (the config file's [keys] table).
	Keys map[string][]string
	// Start opens the program at a run or at an exact chain and block.
	Start Start
	// Rerun stores and reads live re-runs (`r` in the chain view); nil uses Store when it
	// implements Rerunner (as *runs.Store does).
	Rerun Rerunner
	// Models are the config file's model entries offered as re-run executors besides the
	// built-in one (nil: built-in only).
	Models *replay.Config
	// Annotate opens the program on the annotation screen (`ealscope annotate`).
	Annotate *AnnotateStart
	// Annotations stores labels; nil uses Store when it implements AnnotationStore.
	Annotations AnnotationStore
	// Annotator is who labels when the chain view opens the annotation screen (cmd/ealscope:
	// $EALSCOPE_ANNOTATOR, else $USER); empty is "annotator".
	Annotator string
	// Lab is the safeguard lab (the chain view's safeguards pane, the run's safeguards
	// screen); nil builds it over Store when Store is a workspace (safeguards_lab.go).
	Lab SafeguardLab
}

// annotations is the label store, or nil when the program has none.
func (o Options) annotations() AnnotationStore {
	if o.Annotations != nil {
		return o.Annotations
	}
	a, _ := o.Store.(AnnotationStore)
	return a
}

// rerunner is the re-run store, or nil when the program has none.
func (o Options) rerunner() Rerunner {
	if o.Rerun != nil {
		return o.Rerun
	}
	r, _ := o.Store.(Rerunner)
	return r
}

// Start is where the program opens. With Chain set it opens the chain view; Block < 0
// means the first false-authority block (or block 0).
type Start struct {
	RunID string
	Chain *ChainKey
	Block int
	// Present opens presentation mode on the chain (over the chain view, so esc returns there).
	Present bool
}

type screenID int

const (
	screenRuns screenID = iota
	screenChains
	screenChain
	screenAnnotate
	screenPresent
	// screenSafeguards is a run's safeguards table (tui/safeguards_run.go).
	screenSafeguards
)

// Model is the root: a thin router owning the screen stack, the size, global keys, help,
// the command line and the footer. Screens do the rest.
type Model struct {
	opts   Options
	c      *common
	dark   bool
	stack  []screenID
	inited map[screenID]bool

	runs   runsScreen
	chains chainsScreen
	chain  chainScreen
	// annotate is the annotation screen (tui/annotate.go).
	annotate annotateScreen
	// present is presentation mode (tui/presenting.go).
	present presentScreen
	// safeguards is a run's safeguards screen (tui/safeguards_run.go).
	safeguards safeguardsScreen

	help     help.Model
	showHelp bool
	cmdline  lineInput
	notice   string
	err      error
	tasks    map[string]string
	spin     spinner.Model
}

// New builds the root model. It does no I/O: the first queries run as commands from Init.
func New(opts Options) (Model, error) {
	opts = opts.withLab()
	keys := DefaultKeyMap()
	if err := keys.Remap(opts.Keys); err != nil {
		return Model{}, err
	}
	dark := true
	if opts.Dark != nil {
		dark = *opts.Dark
	}
	styles := NewStyles(NewPalette(dark, opts.NoColor))
	present := NewStyles(NewHighContrastPalette(dark, opts.NoColor))
	c := &common{styles: &styles, present: &present, keys: &keys, width: 80, height: 24}
	m := Model{opts: opts, c: c, dark: dark, inited: map[screenID]bool{}, tasks: map[string]string{},
		help: help.New(), spin: spinner.New(spinner.WithSpinner(spinner.Line))}
	m.applyHelpStyles()
	m.runs = newRunsScreen(c, opts.Store)
	m.stack = []screenID{screenRuns}
	if opts.Start.RunID != "" || opts.Start.Chain != nil {
		runID := opts.Start.RunID
		if opts.Start.Chain != nil {
			runID = opts.Start.Chain.RunID
		}
		m.chains = newChainsScreen(c, opts.Store, RunSummary{RunID: runID})
		if opts.Start.Chain != nil {
			m.chains.selectChain(opts.Start.Chain.ID)
		}
		m.stack = append(m.stack, screenChains)
	}
	if opts.Start.Chain != nil {
		m.chain = newChainScreen(c, opts.Store, opts.Store, *opts.Start.Chain, opts.Start.Block).withRerun(opts.rerunner(), opts.Models).withLab(opts.lab())
		m.stack = append(m.stack, screenChain)
		if opts.Start.Present {
			m.present = newPresentScreen(c, opts.Store, opts.rerunner(), *opts.Start.Chain, opts.Start.Block)
			m.stack = append(m.stack, screenPresent)
		}
	}
	if opts.Annotate != nil {
		m.annotate = newAnnotateScreen(c, opts.annotations(), *opts.Annotate)
		m.stack = []screenID{screenAnnotate}
	}
	return m, nil
}

func (m *Model) applyHelpStyles() {
	s := m.c.styles.Help
	m.help.Styles = help.Styles{ShortKey: s.Key, ShortDesc: s.Desc, ShortSeparator: s.Sep, Ellipsis: s.Sep,
		FullKey: s.Key, FullDesc: s.Desc, FullSeparator: s.Sep}
}

func (m Model) top() screenID { return m.stack[len(m.stack)-1] }

// Init loads only the screen on top; screens below load when the user goes back to them.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.opts.Dark == nil && !m.opts.NoColor {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	cmds = append(cmds, m.initTop())
	return tea.Batch(cmds...)
}

// screen is what the root asks of the screen on top, besides Update (which returns the
// screen's own type, see route).
type screen interface {
	Init() tea.Cmd
	help.KeyMap
}

// topScreen is the screen on top.
func (m Model) topScreen() screen {
	switch m.top() {
	case screenChains:
		return m.chains
	case screenChain:
		return m.chain
	case screenAnnotate:
		return m.annotate
	case screenPresent:
		return m.present
	case screenSafeguards:
		return m.safeguards
	}
	return m.runs
}

func (m Model) initTop() tea.Cmd { return m.topScreen().Init() }

// markInited records that the top screen's Init ran (Init itself has a value receiver).
func (m *Model) markInited() { m.inited[m.top()] = true }

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !m.inited[m.top()] {
		// Init ran on the initial top screen; remember it so going back re-inits lazily.
		m.markInited()
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		*m.c.styles = NewStyles(NewPalette(m.dark, m.opts.NoColor))
		*m.c.present = NewStyles(NewHighContrastPalette(m.dark, m.opts.NoColor))
		m.applyHelpStyles()
		return m, nil
	case errMsg:
		m.err = msg
		return m, nil
	case statusMsg:
		m.notice = string(msg)
		return m, nil
	case taskStartedMsg:
		m.tasks[msg.label+strconv.Itoa(msg.id)] = msg.label
		return m, m.spin.Tick
	case spinner.TickMsg:
		if len(m.tasks) == 0 {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case openRunMsg:
		m.chains = newChainsScreen(m.c, m.opts.Store, msg.run)
		return m.push(screenChains, m.chains.Init())
	case openAnnotateMsg:
		m.annotate = newAnnotateScreen(m.c, m.opts.annotations(), AnnotateStart{MemoryID: msg.memoryID, RunID: msg.runID, Annotator: annotatorOf(m.opts)})
		return m.push(screenAnnotate, m.annotate.Init())
	case openPresentMsg:
		m.present = newPresentScreen(m.c, m.opts.Store, m.opts.rerunner(), msg.key, msg.block)
		return m.push(screenPresent, m.present.Init())
	case openSafeguardsMsg:
		m.safeguards = newSafeguardsScreen(m.c, m.opts.lab(), m.opts.Models, msg.runID)
		return m.push(screenSafeguards, m.safeguards.Init())
	case openChainMsg:
		prev := m.chain
		m.chain = newChainScreen(m.c, m.opts.Store, m.opts.Store, msg.key, msg.block).withRerun(m.opts.rerunner(), m.opts.Models).withLab(m.opts.lab())
		if m.top() == screenChain {
			// A search hit in another chain replaces this one; the search goes along so
			// n/N keep walking the same hits.
			m.chain.query, m.chain.hits, m.chain.hit, m.chain.searchSeq = prev.query, prev.hits, prev.hit, prev.searchSeq
			m.chain.notice = prev.notice // "match i/N" stays on screen in the chain it opened
			m.stack = m.stack[:len(m.stack)-1]
		}
		return m.push(screenChain, m.chain.Init())
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		k := tea.KeyPressMsg{Code: tea.KeyDown}
		if msg.Mouse().Button == tea.MouseWheelUp {
			k = tea.KeyPressMsg{Code: tea.KeyUp}
		}
		return m.route(k)
	}
	if d, ok := msg.(searchDoneMsg); ok {
		delete(m.tasks, "search"+strconv.Itoa(d.seq))
	}
	if d, ok := msg.(rerunDoneMsg); ok {
		delete(m.tasks, "rerun"+strconv.Itoa(d.seq))
	}
	if d, ok := msg.(labDoneMsg); ok {
		delete(m.tasks, labTaskLabel(d.owner)+strconv.Itoa(d.seq))
	}
	// Results go to their owner even when it is not on top (CONVENTIONS §2): each screen
	// drops results that are not addressed to it.
	var cmds [6]tea.Cmd
	m.runs, cmds[0] = m.runs.Update(msg)
	if m.chains.c != nil { // screens never opened have nothing to receive
		m.chains, cmds[1] = m.chains.Update(msg)
	}
	if m.chain.c != nil {
		m.chain, cmds[2] = m.chain.Update(msg)
	}
	if m.annotate.c != nil {
		m.annotate, cmds[3] = m.annotate.Update(msg)
	}
	if m.present.c != nil {
		m.present, cmds[4] = m.present.Update(msg)
	}
	if m.safeguards.c != nil {
		m.safeguards, cmds[5] = m.safeguards.Update(msg)
	}
	return m, tea.Batch(cmds[:]...)
}

func (m Model) push(id screenID, init tea.Cmd) (tea.Model, tea.Cmd) {
	m.stack = append(m.stack, id)
	m.inited[id] = true
	m.showHelp, m.err, m.notice = false, nil, ""
	return m, init
}

func (m Model) handleKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	g := &m.c.keys.Global
	if key.Matches(msg, g.ForceQuit) { // before any input: ctrl+c always quits
		return m, tea.Quit
	}
	if m.cmdline.active {
		if msg.String() == "tab" { // complete the command's name
			m.cmdline.value = completeCommand(m.cmdline.value)
			return m, nil
		}
		if m.cmdline.update(msg) == inputSubmitted {
			return m.runCommand(m.cmdline.value)
		}
		return m, nil
	}
	if m.showHelp {
		// Any key closes the sheet; it never acts on the screen underneath.
		m.showHelp = false
		return m, nil
	}
	if m.capturing() {
		return m.route(msg)
	}
	m.err, m.notice = nil, ""
	switch {
	case key.Matches(msg, g.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(msg, g.Command):
		m.cmdline.start(":", "")
		return m, nil
	case key.Matches(msg, g.Back):
		return m.back()
	case key.Matches(msg, g.Quit):
		if len(m.stack) == 1 {
			return m, tea.Quit
		}
		return m.back()
	}
	return m.route(msg)
}

func (m Model) capturing() bool {
	c, ok := m.topScreen().(interface{ capturing() bool })
	return ok && c.capturing()
}

// back undoes the innermost state: a search or pane focus in the chain view, then the
// screen itself. On the first screen it does nothing: esc never quits.
func (m Model) back() (tea.Model, tea.Cmd) {
	if m.top() == screenChain && m.chain.back() {
		return m, nil
	}
	if m.top() == screenSafeguards && m.safeguards.back() {
		return m, nil
	}
	if len(m.stack) == 1 {
		return m, nil
	}
	m.stack = m.stack[:len(m.stack)-1]
	if !m.inited[m.top()] {
		m.inited[m.top()] = true
		return m, m.initTop()
	}
	return m, nil
}

func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.top() {
	case screenRuns:
		m.runs, cmd = m.runs.Update(msg)
	case screenChains:
		m.chains, cmd = m.chains.Update(msg)
	case screenChain:
		m.chain, cmd = m.chain.Update(msg)
	case screenAnnotate:
		m.annotate, cmd = m.annotate.Update(msg)
	case screenPresent:
		m.present, cmd = m.present.Update(msg)
	case screenSafeguards:
		m.safeguards, cmd = m.safeguards.Update(msg)
	}
	return m, cmd
}

func (m Model) helpKeys() help.KeyMap { return m.topScreen() }

// View lays out the screen on top, then the footer: a status line and the short help.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "ealscope"
	if m.opts.Mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// Render is the frame as a string (what View shows), for goldens and `ealscope render`.
func (m Model) Render() string {
	w, h := m.c.width, m.c.height
	if m.top() == screenPresent && !m.showHelp && !m.cmdline.active {
		return m.present.View() // presentation mode owns the whole screen: no footer, no help bar
	}
	bodyH := max(h-footerHeight, 0)
	var body string
	switch {
	case m.showHelp:
		body = m.helpSheet()
	case m.top() == screenChains:
		body = m.chains.View()
	case m.top() == screenChain:
		body = m.chain.View()
	case m.top() == screenAnnotate:
		body = m.annotate.View()
	case m.top() == screenSafeguards:
		body = m.safeguards.View()
	case m.top() == screenPresent:
		body = m.present.View() // with the command line open (`:`), above it
	default:
		body = m.runs.View()
	}
	lines := strings.Split(body, "\n")
	if len(lines) > bodyH {
		lines = lines[:bodyH]
	}
	for len(lines) < bodyH {
		lines = append(lines, "")
	}
	lines = append(lines, ansi.Truncate(m.statusLine(), w, "…"), ansi.Truncate(m.help.ShortHelpView(m.helpKeys().ShortHelp()), w, "…"))
	return strings.Join(lines[:max(h, 0)], "\n")
}

func (m Model) statusLine() string {
	st := m.c.styles
	var s string
	switch {
	case m.cmdline.active:
		// The commands that match what is typed so far, so ':' alone lists them all.
		return m.cmdline.view() + st.App.Subtle.Render("   "+strings.Join(matchingCommands(m.cmdline.value), " · ")+" (tab completes)")
	case m.err != nil:
		return st.App.Error.Render("! " + sanitizeLine(m.err.Error()))
	case m.notice != "":
		s = m.notice
	case m.top() == screenChains:
		s = m.chains.status()
	case m.top() == screenChain:
		s = m.chain.status()
	case m.top() == screenAnnotate:
		s = m.annotate.status()
	}
	if len(m.tasks) > 0 {
		s = m.spin.View() + " working… " + s
	}
	return st.App.Status.Render(s)
}

func (m Model) helpSheet() string {
	title := "keys"
	if m.top() == screenChain {
		title = "keys · " + paneNames[m.chain.focus] + " pane"
		if m.chain.safeguards != nil {
			title = "keys · safeguards pane"
		}
	}
	st := m.c.styles
	back := "q quits here (esc never quits)"
	if len(m.stack) > 1 {
		back = "q goes back, as esc does (q on the first screen quits; ctrl+c always quits)"
	}
	return st.App.Title.Render(title) + "\n\n" + fullHelpSheet(m.help.Styles, m.helpKeys().FullHelp(), m.c.width) +
		"\n\n" + st.App.Subtle.Render(back) + "\n" + st.App.Subtle.Render("any key closes this sheet")
}

// runCommand executes a `:` command line.
func (m Model) runCommand(line string) (tea.Model, tea.Cmd) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return m, nil
	}
	switch f[0] {
	case "q", "quit":
		return m, tea.Quit
	case "block", "b":
		if m.top() != screenChain || len(f) != 2 {
			m.err = fmt.Errorf(":block N works in the chain view")
			return m, nil
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			m.err = fmt.Errorf(":block: %q is not a block number", f[1])
			return m, nil
		}
		if err := m.chain.blockOutOfRange(n); err != nil {
			m.err = err
			return m, nil
		}
		m.chain.notice = "" // "match 2/14" belonged to the search, not to the block asked for
		cmd := m.chain.setBlock(n)
		return m, cmd
	case "replay", "rerun":
		if m.top() != screenChain {
			m.err = fmt.Errorf(":replay works in the chain view (it re-runs the block shown)")
			return m, nil
		}
		cmd := m.chain.openRerun()
		return m, cmd
	case "case":
		if len(f) != 2 || (m.top() != screenChain && m.top() != screenChains) {
			m.err = fmt.Errorf(":case ID works in the chains list and the chain view")
			return m, nil
		}
		key := m.chain.key
		if m.top() == screenChains {
			key = ChainKey{RunID: m.chains.run.RunID}
			if len(m.chains.shown) > 0 {
				k := m.chains.all[m.chains.shown[m.chains.cur.sel]].Key
				key.ConditionID, key.WriterRunID = k.ConditionID, k.WriterRunID
			}
		}
		return m, resolveChainCmd(m.c.lifetime(), m.opts.Store, key.RunID, f[1], key.ConditionID, key.WriterRunID)
	case "safeguards", "lab":
		return m.safeguardsCommand()
	case "link":
		if m.top() != screenChain {
			m.err = fmt.Errorf(":link works in the chain view")
			return m, nil
		}
		link := m.link()
		m.notice = "copied: " + link
		return m, tea.SetClipboard(link)
	}
	m.err = fmt.Errorf("unknown command :%s (try %s)", sanitizeLine(f[0]), strings.Join(matchingCommands(""), ", "))
	return m, nil
}

// link is the command line that reopens exactly this spot.
func (m Model) link() string {
	k := m.chain.key
	args := []string{"ealscope", "open"}
	if m.opts.DBPath != "" {
		args = append(args, "--db", shellQuote(m.opts.DBPath))
	}
	args = append(args, "--run", shellQuote(k.RunID), "--case", shellQuote(k.CaseID),
		"--condition", shellQuote(k.ConditionID), "--writer-run", strconv.Itoa(k.WriterRunID),
		"--block", strconv.Itoa(m.chain.block))
	return strings.Join(args, " ")
}

func shellQuote(s string) string { return safetext.ShellQuote(s) }
