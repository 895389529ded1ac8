package tui

// The re-run panel: `r` in the chain view re-runs the executor on the current
// block's probes with written, oracle-exact or hand-edited memory, and shows the arms side by
// side. Every arm runs through replay.StartRerun and is stored through the Rerunner as it
// finishes; events are drained one message at a time (CONVENTIONS §10) and esc cancels
// through the context.CancelFunc the panel holds, keeping what finished.

import (
	"context"
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// Rerunner is what the re-run panel reads and writes (part of runs.ReplayStore).
type Rerunner interface {
	RerunSource(ctx context.Context, key runs.ChainKey, block int) (runs.RerunSource, error)
	ReplaysForChain(ctx context.Context, key runs.ChainKey) ([]runs.Replay, error)
	AttributionForChain(ctx context.Context, key runs.ChainKey) ([]runs.ReplayAttribution, error)
	SaveReplay(ctx context.Context, in runs.ReplayInput) error
}

var _ Rerunner = runs.ReplayStore(nil)

var rerunVariants = []string{engine.VariantWritten, engine.VariantExact, engine.VariantEdited}

// Form rows of the panel.
const (
	rowVariant = iota
	rowProbes
	rowExecutor
	rowRuns
	rowCount
)

// rerunPanel is a plain struct owned by the chain screen (not a nested tea.Model).
type rerunPanel struct {
	c      *common
	store  Rerunner
	models *replay.Config
	chain  ChainKey
	block  int

	src         *runs.RerunSource
	replays     []runs.Replay
	attribution []runs.ReplayAttribution
	err         error

	row, variant, probe, executor, runs int
	// scroll is the first line of the results view.
	scroll int

	seq     int
	running bool
	cancel  context.CancelFunc
	done    int
	total   int
	note    string
	// shown are the batches whose arms the results view compares (written first).
	shown []string
	// unsaved are finished arms the workspace refused (rerun_unsaved.go).
	unsaved unsavedArms
}

func newRerunPanel(c *common, store Rerunner, models *replay.Config, chain ChainKey, block int) *rerunPanel {
	return &rerunPanel{c: c, store: store, models: models, chain: chain, block: block, variant: 1, runs: 1}
}

// Messages of the panel, all addressed by chain, block and sequence number.
type rerunLoadedMsg struct {
	chain       runs.ChainKey
	block       int
	src         *runs.RerunSource
	replays     []runs.Replay
	attribution []runs.ReplayAttribution
	err         error
}

type rerunEventMsg struct {
	seq    int
	ev     replay.Event
	events <-chan replay.Event
}

type rerunDoneMsg struct {
	seq       int
	err       error
	cancelled bool
	batches   []string
	// unsaved are finished arms whose save failed, and save stores one of them again.
	unsaved []replay.RerunResult
	save    replay.SaveFunc
}

type rerunEditedMsg struct {
	seq  int
	mem  replay.RerunMemory
	err  error
	path string
}

func loadRerunCmd(ctx context.Context, store Rerunner, key runs.ChainKey, block int) tea.Cmd {
	return func() tea.Msg {
		msg := rerunLoadedMsg{chain: key, block: block}
		src, err := store.RerunSource(ctx, key, block)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.src = &src
		if msg.replays, msg.err = store.ReplaysForChain(ctx, key); msg.err != nil {
			return msg
		}
		msg.attribution, msg.err = store.AttributionForChain(ctx, key)
		return msg
	}
}

func (p *rerunPanel) Init() tea.Cmd {
	return loadRerunCmd(p.c.lifetime(), p.store, p.chain.ID, p.block)
}

// rerunModels resolves the panel's executor names (the config file's model entries).
func (p *rerunPanel) rerunModels() replay.Models {
	return replay.Models{Config: p.models, Retry: replay.DefaultRetryPolicy()}
}

func (p *rerunPanel) executors() []string {
	out := []string{replay.BuiltinExecutorName}
	if p.models != nil {
		names := make([]string, 0, len(p.models.Models))
		for n := range p.models.Models {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out
}

// batches lists the earlier re-runs at this block, newest first.
func (p *rerunPanel) batches() []runs.Replay {
	seen := map[string]bool{}
	var out []runs.Replay
	for i := len(p.replays) - 1; i >= 0; i-- {
		r := p.replays[i]
		if r.BlockIndex == p.block && !seen[r.BatchID] {
			seen[r.BatchID] = true
			out = append(out, r)
		}
	}
	return out
}

func (p *rerunPanel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case rerunLoadedMsg:
		if msg.chain != p.chain.ID || msg.block != p.block {
			return nil
		}
		if msg.err != nil {
			p.err = msg.err
			return nil
		}
		if msg.src != nil {
			p.src = msg.src
		}
		p.replays, p.attribution = msg.replays, msg.attribution
	case rerunEventMsg:
		if msg.seq != p.seq {
			return nil
		}
		switch msg.ev.Kind {
		case replay.EventResult:
			p.done, p.total = msg.ev.Done, msg.ev.Total
			return waitRerunEvent(p.seq, msg.events)
		case replay.EventDone:
			return nil
		}
	case rerunDoneMsg:
		if msg.seq != p.seq {
			return nil
		}
		p.running, p.cancel = false, nil
		p.err = msg.err
		if msg.cancelled {
			p.note = fmt.Sprintf("cancelled: %d finished arms kept", p.done)
		}
		if p.unsaved.keep(msg.unsaved, msg.save, msg.err) {
			p.err, p.note = nil, p.unsaved.note(p.c.keys.List.Open.Help().Key)
		}
		p.shown, p.scroll = msg.batches, 0
		if len(p.unsaved.arms) > 0 { // stay on the form, which says so, until they are saved
			p.unsaved.batches, p.shown = msg.batches, nil
		}
		return loadRerunCmd(p.c.lifetime(), p.store, p.chain.ID, p.block)
	case rerunSavedMsg:
		return p.savedAgain(msg)
	case rerunEditReadyMsg:
		if msg.seq != p.seq {
			return discardEditCmd(msg.edit)
		}
		return runEditorCmd(msg)
	case rerunEditorExitedMsg:
		return readEditCmd(msg)
	case rerunEditedMsg:
		if msg.seq != p.seq {
			return nil
		}
		if msg.err != nil {
			p.running, p.err = false, msg.err
			return nil
		}
		return p.start(msg.mem)
	}
	return nil
}

// back handles esc: cancel a running re-run (keeping what finished), else leave the results,
// else close the panel (close = true).
func (p *rerunPanel) back() (close bool) {
	switch {
	case p.running && p.cancel != nil:
		p.cancel()
		p.note = "cancelling…"
	case p.shown != nil:
		p.shown, p.scroll = nil, 0
	default:
		return true
	}
	return false
}

func (p *rerunPanel) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if p.running {
		return nil
	}
	k, l := &p.c.keys.Chain, &p.c.keys.List
	if len(p.unsaved.arms) > 0 && key.Matches(msg, l.Open) {
		return p.saveAgain()
	}
	if p.shown != nil {
		switch {
		case key.Matches(msg, l.Down), key.Matches(msg, k.Down):
			p.scroll++
		case key.Matches(msg, l.Up), key.Matches(msg, k.Up):
			p.scroll = max(p.scroll-1, 0)
		}
		return nil
	}
	batches := p.batches()
	last := rowCount + len(batches) - 1
	step := func(d int) {
		if p.src != nil {
			// A status line belongs to the values that produced it ("edited memory needs
			// $EDITOR" is not about the exact variant).
			p.err, p.note = nil, ""
		}
		switch p.row {
		case rowVariant:
			p.variant = (p.variant + d + len(rerunVariants)) % len(rerunVariants)
		case rowProbes:
			if p.src != nil {
				n := len(p.src.Probes) + 1
				p.probe = (p.probe + d + n) % n
			}
		case rowExecutor:
			n := len(p.executors())
			p.executor = (p.executor + d + n) % n
		case rowRuns:
			p.runs = clamp(p.runs+d, 1, 20)
		}
	}
	switch {
	case key.Matches(msg, l.Down), key.Matches(msg, k.Down):
		p.row = clamp(p.row+1, 0, last)
	case key.Matches(msg, l.Up), key.Matches(msg, k.Up):
		p.row = clamp(p.row-1, 0, last)
	case key.Matches(msg, k.NextBlock):
		step(1)
	case key.Matches(msg, k.PrevBlock):
		step(-1)
	case key.Matches(msg, l.Open):
		if p.row >= rowCount {
			b := batches[p.row-rowCount]
			p.shown = p.pairFor(b)
			return nil
		}
		return p.run()
	}
	return nil
}

// pairFor is the batches a stored batch is compared with: the latest written batch of the
// same executor at this block, then the batch itself.
func (p *rerunPanel) pairFor(b runs.Replay) []string {
	if b.MemoryVariant == engine.VariantWritten {
		return []string{b.BatchID}
	}
	for i := len(p.replays) - 1; i >= 0; i-- {
		r := p.replays[i]
		if r.BlockIndex == p.block && r.MemoryVariant == engine.VariantWritten && r.Executor == b.Executor {
			return []string{r.BatchID, b.BatchID}
		}
	}
	return []string{b.BatchID}
}

// run starts the chosen re-run. A variant other than written runs the written arm too, with
// the same executor and seeds, so the two arms differ only in memory (EAL-Bench's matched
// replay).
func (p *rerunPanel) run() tea.Cmd {
	if p.src == nil {
		p.note = "still loading the chain's case and memory…"
		return nil
	}
	p.err, p.note, p.shown = nil, "", nil
	p.seq++
	src := *p.src
	switch rerunVariants[p.variant] {
	case engine.VariantWritten:
		if src.MemoryID == "" {
			p.err = fmt.Errorf("no written memory at block %d yet: try exact", p.block)
			return nil
		}
		m, err := replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
		if err != nil {
			p.err = err
			return nil
		}
		return p.start(m)
	case engine.VariantExact:
		m, err := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
		if err != nil {
			p.err = err
			return nil
		}
		return p.start(m)
	}
	p.running = true
	return editMemoryCmd(p.seq, src)
}

// editMemoryCmd prepares the edit (the temporary file holding the written, else exact,
// memory) inside the command, then hands the editor to the terminal; the edited memory is
// validated before anything runs.
func editMemoryCmd(seq int, src runs.RerunSource) tea.Cmd {
	return func() tea.Msg {
		e, err := workbench.StartEdit(src)
		if err != nil {
			return rerunEditedMsg{seq: seq, err: err}
		}
		return rerunEditReadyMsg{seq: seq, edit: e}
	}
}

// rerunEditReadyMsg carries a prepared edit; Update hands its editor to the terminal.
type rerunEditReadyMsg struct {
	seq  int
	edit *workbench.Edit
}

// runEditorCmd runs a prepared edit's editor in the terminal. Its callback runs on the
// program's loop, so it only reports the exit; readEditCmd reads the file back.
func runEditorCmd(msg rerunEditReadyMsg) tea.Cmd {
	return tea.ExecProcess(msg.edit.Command, func(err error) tea.Msg {
		return rerunEditorExitedMsg{seq: msg.seq, edit: msg.edit, err: err}
	})
}

// rerunEditorExitedMsg: the editor of an edit exited (err is its exit error, if any).
type rerunEditorExitedMsg struct {
	seq  int
	edit *workbench.Edit
	err  error
}

// readEditCmd reads the edited memory back and removes the edit's file, inside a command.
func readEditCmd(msg rerunEditorExitedMsg) tea.Cmd {
	return func() tea.Msg {
		defer msg.edit.Close()
		m, err := msg.edit.Read(msg.err)
		return rerunEditedMsg{seq: msg.seq, mem: m, err: err}
	}
}

// discardEditCmd removes a stale edit's file, inside a command.
func discardEditCmd(e *workbench.Edit) tea.Cmd {
	return func() tea.Msg {
		e.Close()
		return nil
	}
}

func (p *rerunPanel) start(mem replay.RerunMemory) tea.Cmd {
	src := *p.src
	probes := src.Probes
	if p.probe > 0 && p.probe <= len(probes) {
		probes = probes[p.probe-1 : p.probe]
	}
	name := p.executors()[p.executor]
	ctx, cancel := context.WithCancel(p.c.lifetime())
	p.running, p.cancel, p.done, p.total = true, cancel, 0, 0
	return startRerunCmd(ctx, p.seq, p.store, src, mem, probes, p.rerunModels(), name, p.runs)
}
