package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ealscope/ealscope/runs"
)

// Entry points for cmd/ealscope, so that only this package imports the Charm libraries.

// Run starts the interactive program on a terminal and returns when the user quits.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	m, err := New(opts)
	if err != nil {
		return err
	}
	// Commands still running when the program ends are cancelled with it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.c.ctx = ctx
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)}
	if opts.NoColor {
		// Ascii keeps bold and reverse (which carry meaning with the glyphs) and drops colour.
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	_, err = tea.NewProgram(m, popts...).Run()
	if errors.Is(err, tea.ErrInterrupted) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// FrameOptions choose one frame of the chain view for `ealscope render`.
type FrameOptions struct {
	Store Store
	Chain ChainKey
	// Block < 0 means the first false-authority block (or 0).
	Block int
	// Pane is all, timeline, history, memory, ledger (the memory pane against the ledger)
	// or probes.
	Pane          string
	Width, Height int
	// Plain strips every escape sequence (--no-color, NO_COLOR, TERM=dumb); otherwise the
	// frame keeps its styling for tools such as freeze.
	Plain bool
	Dark  bool
	// NoHelp drops the short-help line; the body takes its place (`render` off a terminal).
	NoHelp bool
	// Present renders presentation mode at story step Step (1-based; 0 means 1).
	Present bool
	Step    int
}

// RenderFrame renders one frame synchronously: the same model and queries as the program,
// with the commands run in order instead of by the event loop.
func RenderFrame(ctx context.Context, o FrameOptions) (string, error) {
	if o.Width < 20 || o.Height < 6 {
		return "", fmt.Errorf("frame %dx%d is too small (at least 20x6)", o.Width, o.Height)
	}
	only := map[string]pane{"": paneNone, "all": paneNone, "timeline": paneTimeline, "history": paneHistory,
		"memory": paneMemory, "ledger": paneMemory, "probes": paneProbes}
	p, ok := only[o.Pane]
	if !ok {
		return "", fmt.Errorf("--pane %q: want all, timeline, history, memory, ledger or probes", o.Pane)
	}
	if o.Present && p != paneNone {
		return "", fmt.Errorf("--pane %s: presentation mode has no panes (use --pane all)", o.Pane)
	}
	k := o.Chain
	m, err := New(Options{Store: o.Store, NoColor: o.Plain, Dark: &o.Dark, Start: Start{Chain: &k, Block: o.Block, Present: o.Present}})
	if err != nil {
		return "", err
	}
	m.c.ctx = ctx
	h := o.Height
	if o.NoHelp && !o.Present {
		h++ // render one line taller, then drop the help line: the body keeps the frame's height
	}
	next, _ := m.Update(tea.WindowSizeMsg{Width: o.Width, Height: h})
	m = next.(Model)
	var failure error
	if m = runSync(ctx, m, m.initTop(), &failure); failure != nil {
		return "", failure
	}
	f, ok := m.topScreen().(framer)
	if !ok {
		return "", fmt.Errorf("the %s screen prints no frames", screens[m.top()].name)
	}
	s, err := f.frame(o, p)
	if err != nil {
		return "", err
	}
	m.setScreen(m.top(), s)
	out := m.Render()
	if o.NoHelp && !o.Present {
		out = out[:strings.LastIndexByte(out, '\n')]
	}
	if o.Plain {
		out = ansi.Strip(out)
	}
	return out, nil
}

// runSync executes cmd and the commands it leads to, feeding each result to Update. Messages
// meant for the terminal (clipboard, colour queries, ticks) are dropped.
func runSync(ctx context.Context, m Model, cmd tea.Cmd, failure *error) Model {
	drainCmds(cmd, func() bool { return ctx.Err() == nil }, func(msg tea.Msg) (tea.Cmd, bool) {
		switch msg := msg.(type) {
		case errMsg:
			*failure = msg.err
			return nil, true
		case chainLoadedMsg, blockLoadedMsg, storyLoadedMsg:
			next, c2 := m.Update(msg)
			m = next.(Model)
			return c2, false
		}
		return nil, false
	})
	return m
}

// drainCmds runs cmd and every command it leads to, in order, with no terminal: the commands
// of a batch are queued, and every other message goes to handle, which returns the command it
// leads to and whether to stop. The drain also stops when more() says so.
func drainCmds(cmd tea.Cmd, more func() bool, handle func(tea.Msg) (next tea.Cmd, stop bool)) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 && more() {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			next, stop := handle(msg)
			if stop {
				return
			}
			queue = append(queue, next)
		}
	}
}

// ResolveChain finds a chain by the names a person types: case, condition and writer run,
// in one run or (runID "") in any run of the workspace.
func ResolveChain(ctx context.Context, store ChainFinder, runID, caseID, condition string, writerRun int) (ChainKey, error) {
	w := int64(writerRun)
	row, err := store.FindChain(ctx, runID, caseID, condition, &w)
	if err != nil {
		return ChainKey{}, err
	}
	return presentChain(row).Key, nil
}

// ChainFinder resolves a chain by its names (runs.Store.FindChain: the one place that does).
type ChainFinder interface {
	FindChain(ctx context.Context, runID, caseID, condition string, writerRun *int64) (runs.ChainRow, error)
}

// MostInstructive picks the chain the demo opens on: one whose failure is attributed to
// memory (earliest false authority first), else the earliest-forming one, else any chain.
func MostInstructive(ctx context.Context, store ChainLister, runID string) (ChainKey, error) {
	for _, f := range []runs.ChainFilter{
		{RunID: runID, MemoryInduced: true, Sort: runs.SortByFirstFalseAuthority},
		{RunID: runID, Forming: true, Sort: runs.SortByFirstFalseAuthority},
		{RunID: runID},
	} {
		f.Limit = 1
		rows, err := store.Chains(ctx, f)
		if err != nil {
			return ChainKey{}, err
		}
		if len(rows) > 0 {
			return presentChain(rows[0]).Key, nil
		}
	}
	return ChainKey{}, fmt.Errorf("run %s has no chains", runID)
}
