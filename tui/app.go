package tui

import (
	"fmt"
	"github.com/ealscope/ealscope/engine/safetext"
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

// Model is the root: a thin router owning the screen stack, the size, global keys, help,
// the command line and the footer. Screens do the rest.
type Model struct {
	opts   Options
	c      *common
	dark   bool
	stack  []screenID
	inited map[screenID]bool
	// open is the set of screens opened so far (bit i: the screen with id i); others holds
	// the registered screens that have no field below (tui/screen.go).
	open   uint64
	others map[screenID]screen

	// The built-in screens, reached only through the registry (tui/screens_builtin.go).
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
	for _, msg := range startScreens(opts) {
		m.place(msg)
	}
	if opts.Annotate != nil {
		m.stack = m.stack[len(m.stack)-1:] // `ealscope annotate`: the annotation screen is the first
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
		m.tasks[msg.taskKey()] = msg.label
		return m, m.spin.Tick
	case spinner.TickMsg:
		if len(m.tasks) == 0 {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		k := tea.KeyPressMsg{Code: tea.KeyDown}
		if msg.Mouse().Button == tea.MouseWheelUp {
			k = tea.KeyPressMsg{Code: tea.KeyUp}
		}
		return m.route(k)
	}
	if id, s, replace, ok := m.opening(msg); ok {
		if replace {
			m.stack = m.stack[:len(m.stack)-1]
		}
		return m.push(id, s)
	}
	if d, ok := msg.(taskEnd); ok {
		delete(m.tasks, d.taskKey())
	}
	// Results go to their owner even when it is not on top (CONVENTIONS §2): each screen
	// drops results that are not addressed to it. Screens never opened have nothing to
	// receive.
	cmds := make([]tea.Cmd, 0, len(screens))
	for i := range screens {
		id := screenID(i)
		if s := m.screenAt(id); s != nil {
			next, cmd := s.updateScreen(msg)
			m.setScreen(id, next)
			cmds = append(cmds, cmd)
		}
	}
	return m, tea.Batch(cmds...)
}

// startScreens are the messages that open the screens the program starts on, bottom first.
func startScreens(opts Options) []tea.Msg {
	msgs := []tea.Msg{startMsg{}}
	if opts.Start.RunID != "" || opts.Start.Chain != nil {
		run := RunSummary{RunID: opts.Start.RunID}
		if ch := opts.Start.Chain; ch != nil {
			run.RunID = ch.RunID
			msgs = append(msgs, openRunAtMsg{run: run, chain: ch.ID})
		} else {
			msgs = append(msgs, openRunMsg{run})
		}
	}
	if ch := opts.Start.Chain; ch != nil {
		msgs = append(msgs, openChainMsg{*ch, opts.Start.Block})
		if opts.Start.Present {
			msgs = append(msgs, openPresentMsg{*ch, opts.Start.Block})
		}
	}
	if opts.Annotate != nil {
		msgs = append(msgs, annotateStartMsg{*opts.Annotate})
	}
	return msgs
}

// place opens the screen msg asks for on top, without running its Init (New: the program's
// Init runs the top screen's).
func (m *Model) place(msg tea.Msg) {
	id, s, _, ok := m.opening(msg)
	if !ok {
		panic(fmt.Sprintf("tui: no registered screen opens %T", msg))
	}
	m.setScreen(id, s)
	m.stack = append(m.stack, id)
}

// push opens a screen on top and runs its Init.
func (m Model) push(id screenID, s screen) (tea.Model, tea.Cmd) {
	m.setScreen(id, s)
	m.stack = append(m.stack, id)
	m.inited[id] = true
	m.showHelp, m.err, m.notice = false, nil, ""
	return m, s.Init()
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
	c, ok := m.topScreen().(capturer)
	return ok && c.capturing()
}

// back undoes the innermost state of the screen on top (a search, a pane focus), then the
// screen itself. On the first screen it does nothing: esc never quits.
func (m Model) back() (tea.Model, tea.Cmd) {
	if b, ok := m.topScreen().(backer); ok {
		s, undone := b.goBack()
		m.setScreen(m.top(), s)
		if undone {
			return m, nil
		}
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

// route hands a message to the screen on top only.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	s, cmd := m.topScreen().updateScreen(msg)
	m.setScreen(m.top(), s)
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
	top := m.topScreen()
	if f, ok := top.(fullScreen); ok && f.ownsScreen() && !m.showHelp && !m.cmdline.active {
		return top.View() // e.g. presentation mode: no footer, no help bar
	}
	bodyH := max(h-footerHeight, 0)
	body := top.View() // a full-screen one too with the command line open (`:`), above it
	if m.showHelp {
		body = m.helpSheet()
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
	default:
		s = m.topScreen().Status()
	}
	if len(m.tasks) > 0 {
		s = m.spin.View() + " working… " + s
	}
	return st.App.Status.Render(s)
}

func (m Model) helpSheet() string {
	title := "keys"
	if t := m.topScreen().Title(); t != "" {
		title += " · " + t
	}
	st := m.c.styles
	back := "q quits here (esc never quits)"
	if len(m.stack) > 1 {
		back = "q goes back, as esc does (q on the first screen quits; ctrl+c always quits)"
	}
	return st.App.Title.Render(title) + "\n\n" + fullHelpSheet(m.help.Styles, m.helpKeys().FullHelp(), m.c.width) +
		"\n\n" + st.App.Subtle.Render(back) + "\n" + st.App.Subtle.Render("any key closes this sheet")
}

// runCommand executes a `:` command line: the root's own (:q), one that opens a registered
// screen, or one the screen on top answers.
func (m Model) runCommand(line string) (tea.Model, tea.Cmd) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return m, nil
	}
	name, args := f[0], f[1:]
	if name == "q" || name == "quit" {
		return m, tea.Quit
	}
	if id, ok := commandScreen(name); ok {
		s, err := screens[id].open(m.env(), args)
		if err != nil {
			m.err = err
			return m, nil
		}
		return m.push(id, s)
	}
	if c, ok := m.topScreen().(commander); ok {
		if r, handled := c.command(m.env(), name, args); handled {
			m.setScreen(m.top(), r.s)
			if r.err != nil {
				m.err = r.err
			}
			if r.notice != "" {
				m.notice = r.notice
			}
			return m, r.cmd
		}
	}
	if err := errCommandWhere(name); err != nil {
		m.err = err
		return m, nil
	}
	m.err = fmt.Errorf("unknown command :%s (try %s)", sanitizeLine(name), strings.Join(matchingCommands(""), ", "))
	return m, nil
}

func shellQuote(s string) string { return safetext.ShellQuote(s) }
