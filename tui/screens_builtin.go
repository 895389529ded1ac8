package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/runs"
)

// The built-in screens' registrations and their side of the screen contract (tui/screen.go).
// Each screen's own behaviour stays in its file; this file only adapts it to the contract.

type screenID int

// The built-in screens' ids: their index in the registry, in the order results reach them.
const (
	screenRuns screenID = iota
	screenChains
	screenChain
	screenAnnotate
	screenPresent
	// screenSafeguards is a run's safeguards table (tui/safeguards_run.go).
	screenSafeguards
)

// Messages that open the built-in screens where the program starts (Options.Start and
// Options.Annotate); the screens open the same way from one another.
type (
	// startMsg opens the first screen, the runs list.
	startMsg struct{}
	// openRunAtMsg opens a run's chains with the cursor on one chain.
	openRunAtMsg struct {
		run   RunSummary
		chain runs.ChainKey
	}
	// annotateStartMsg opens the annotation screen as `ealscope annotate` asked.
	annotateStartMsg struct{ start AnnotateStart }
)

// screens is the registry: a screen's id is its index. The built-in screens come first, in
// the order results have always reached them; registerScreen appends the others.
var screens = []screenSpec{
	screenRuns: {name: "runs", slot: fieldSlot(func(m *Model) *runsScreen { return &m.runs }),
		opens: func(e screenEnv, msg tea.Msg, _ screen) (screen, bool, bool) {
			_, ok := msg.(startMsg)
			return newRunsScreen(e.c, e.opts.Store), false, ok
		}},
	screenChains: {name: "chains", slot: fieldSlot(func(m *Model) *chainsScreen { return &m.chains }),
		opens: openChains},
	screenChain: {name: "chain", slot: fieldSlot(func(m *Model) *chainScreen { return &m.chain }),
		opens: openChain},
	screenAnnotate: {name: "annotate", slot: fieldSlot(func(m *Model) *annotateScreen { return &m.annotate }),
		opens: func(e screenEnv, msg tea.Msg, _ screen) (screen, bool, bool) {
			switch msg := msg.(type) {
			case openAnnotateMsg:
				return newAnnotateScreen(e.c, e.opts.annotations(), AnnotateStart{MemoryID: msg.memoryID, RunID: msg.runID, Annotator: annotatorOf(e.opts)}), false, true
			case annotateStartMsg:
				return newAnnotateScreen(e.c, e.opts.annotations(), msg.start), false, true
			}
			return nil, false, false
		}},
	screenPresent: {name: "present", slot: fieldSlot(func(m *Model) *presentScreen { return &m.present }),
		opens: func(e screenEnv, msg tea.Msg, _ screen) (screen, bool, bool) {
			o, ok := msg.(openPresentMsg)
			if !ok {
				return nil, false, false
			}
			return newPresentScreen(e.c, e.opts.Store, e.opts.rerunner(), o.key, o.block), false, true
		}},
	screenSafeguards: {name: "safeguards", slot: fieldSlot(func(m *Model) *safeguardsScreen { return &m.safeguards }),
		opens: func(e screenEnv, msg tea.Msg, _ screen) (screen, bool, bool) {
			o, ok := msg.(openSafeguardsMsg)
			if !ok {
				return nil, false, false
			}
			return newSafeguardsScreen(e.c, e.opts.lab(), e.opts.Models, o.runID), false, true
		}},
}

func openChains(e screenEnv, msg tea.Msg, _ screen) (screen, bool, bool) {
	switch msg := msg.(type) {
	case openRunMsg:
		return newChainsScreen(e.c, e.opts.Store, msg.run), false, true
	case openRunAtMsg:
		s := newChainsScreen(e.c, e.opts.Store, msg.run)
		s.selectChain(msg.chain)
		return s, false, true
	}
	return nil, false, false
}

// openChain opens the chain view. A search hit in another chain replaces the chain view on
// top, and the search goes along so n/N keep walking the same hits.
func openChain(e screenEnv, msg tea.Msg, top screen) (screen, bool, bool) {
	o, ok := msg.(openChainMsg)
	if !ok {
		return nil, false, false
	}
	s := newChainScreen(e.c, e.opts.Store, e.opts.Store, o.key, o.block).withRerun(e.opts.rerunner(), e.opts.Models).withLab(e.opts.lab())
	prev, replace := top.(chainScreen)
	if replace {
		s.query, s.hits, s.hit, s.searchSeq = prev.query, prev.hits, prev.hit, prev.searchSeq
		s.notice = prev.notice // "match i/N" stays on screen in the chain it opened
	}
	return s, replace, true
}

// The long tasks the built-in screens run, keyed as they were started.

func (d searchDoneMsg) taskKey() string { return taskStartedMsg{d.seq, "search"}.taskKey() }
func (d rerunDoneMsg) taskKey() string  { return taskStartedMsg{d.seq, "rerun"}.taskKey() }
func (d labDoneMsg) taskKey() string    { return taskStartedMsg{d.seq, labTaskLabel(d.owner)}.taskKey() }

// The runs list.

func (s runsScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s runsScreen) Title() string  { return "" }
func (s runsScreen) Status() string { return "" }

// The chains list.

func (s chainsScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s chainsScreen) Title() string  { return "" }
func (s chainsScreen) Status() string { return s.status() }

// command answers `:case` (in this run, from the condition and writer run of the row under
// the cursor) and `:safeguards` (the run's table).
func (s chainsScreen) command(e screenEnv, name string, args []string) (commandResult, bool) {
	switch name {
	case "case":
		if len(args) != 1 {
			return commandResult{s: s, err: errCommandWhere("case")}, true
		}
		key := ChainKey{RunID: s.run.RunID}
		if len(s.shown) > 0 {
			k := s.all[s.shown[s.cur.sel]].Key
			key.ConditionID, key.WriterRunID = k.ConditionID, k.WriterRunID
		}
		return commandResult{s: s, cmd: resolveChainCmd(s.c.lifetime(), e.opts.Store, key.RunID, args[0], key.ConditionID, key.WriterRunID)}, true
	case "safeguards", "lab":
		runID := s.run.RunID
		return commandResult{s: s, cmd: func() tea.Msg { return openSafeguardsMsg{runID} }}, true
	}
	return commandResult{}, false
}

// The chain view.

func (s chainScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s chainScreen) Status() string { return s.status() }

// Title is the pane whose keys the `?` sheet lists.
func (s chainScreen) Title() string {
	if s.safeguards != nil {
		return "safeguards pane"
	}
	return paneNames[s.focus] + " pane"
}

func (s chainScreen) goBack() (screen, bool) {
	undone := s.back()
	return s, undone
}

// command answers the chain view's `:` commands: :block, :replay, :case, :safeguards, :link.
func (s chainScreen) command(e screenEnv, name string, args []string) (commandResult, bool) {
	switch name {
	case "block", "b":
		if len(args) != 1 {
			return commandResult{s: s, err: errCommandWhere("block")}, true
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return commandResult{s: s, err: fmt.Errorf(":block: %q is not a block number", args[0])}, true
		}
		if err := s.blockOutOfRange(n); err != nil {
			return commandResult{s: s, err: err}, true
		}
		s.notice = "" // "match 2/14" belonged to the search, not to the block asked for
		cmd := s.setBlock(n)
		return commandResult{s: s, cmd: cmd}, true
	case "replay", "rerun":
		cmd := s.openRerun()
		return commandResult{s: s, cmd: cmd}, true
	case "case":
		if len(args) != 1 {
			return commandResult{s: s, err: errCommandWhere("case")}, true
		}
		k := s.key
		return commandResult{s: s, cmd: resolveChainCmd(s.c.lifetime(), e.opts.Store, k.RunID, args[0], k.ConditionID, k.WriterRunID)}, true
	case "safeguards", "lab":
		cmd := s.openSafeguards()
		return commandResult{s: s, cmd: cmd}, true
	case "link":
		link := s.link(e.opts.DBPath)
		return commandResult{s: s, cmd: tea.SetClipboard(link), notice: "copied: " + link}, true
	}
	return commandResult{}, false
}

// link is the command line that reopens exactly this spot.
func (s chainScreen) link(dbPath string) string {
	k := s.key
	args := []string{"ealscope", "open"}
	if dbPath != "" {
		args = append(args, "--db", shellQuote(dbPath))
	}
	args = append(args, "--run", shellQuote(k.RunID), "--case", shellQuote(k.CaseID),
		"--condition", shellQuote(k.ConditionID), "--writer-run", strconv.Itoa(k.WriterRunID),
		"--block", strconv.Itoa(s.block))
	return strings.Join(args, " ")
}

// frame shows one pane (or all) for a printed frame; the ledger pane is the memory pane
// against the ledger with every row expanded, since no key can expand a row on paper.
func (s chainScreen) frame(o FrameOptions, p pane) (screen, error) {
	if last := s.lastBlock(); o.Block > last {
		return s, fmt.Errorf("block %d does not exist: this chain has blocks 0..%d", o.Block, last)
	}
	s.only = p
	if o.Pane == "ledger" {
		s.base = baseLedger
		s.ledger.all = true
	}
	return s, nil
}

// The annotation screen.

func (s annotateScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s annotateScreen) Title() string  { return "" }
func (s annotateScreen) Status() string { return s.status() }

// Presentation mode.

func (s presentScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s presentScreen) Title() string    { return "" }
func (s presentScreen) Status() string   { return "" }
func (s presentScreen) ownsScreen() bool { return true }

// frame puts the story at step o.Step (1-based; 0 means 1).
func (s presentScreen) frame(o FrameOptions, _ pane) (screen, error) {
	if s.err != nil {
		return s, s.err
	}
	n := len(s.steps())
	step := max(o.Step, 1)
	if step > n {
		return s, fmt.Errorf("step %d does not exist: this story has steps 1..%d", step, n)
	}
	s.setStep(step - 1)
	return s, nil
}

// A run's safeguards table.

func (s safeguardsScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	n, cmd := s.Update(msg)
	return n, cmd
}

func (s safeguardsScreen) Title() string  { return "" }
func (s safeguardsScreen) Status() string { return s.status() }

func (s safeguardsScreen) goBack() (screen, bool) {
	undone := s.back()
	return s, undone
}
