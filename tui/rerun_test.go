package tui

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// Flow 3: open a forming chain at its first false-authority block, press r,
// re-run with oracle-exact memory on the built-in executor, and see the two arms differ:
// the written arm takes the unauthorized action, the exact arm escalates, and the pair is
// attributed as memory-induced. The arms are stored and reopen from the earlier re-runs.
func TestFlowRerunExactMemory(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	tm := startProgram(t, Options{Store: s, Start: Start{Chain: &k, Block: -1}})
	waitOutput(t, tm, "FIRST FALSE AUTHORITY")
	tm.Send(tea.KeyPressMsg{Code: 'r', Text: "r"})
	waitOutput(t, tm, "(6)")                     // "all probes (6)": the case and memory are loaded
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) // the default: exact memory, all probes, builtin
	// Tokens without spaces: the renderer may skip cells that did not change, spaces included.
	// One wait for all three: a wait consumes the output it read.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("MEMORY_INDUCED")) && bytes.Contains(b, []byte("UNAUTHORIZED")) && bytes.Contains(b, []byte("request_authorization("))
	}, teatest.WithDuration(teaWait), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Type(":q")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(teaWait)).(Model)
	if frame := m.Render(); !strings.Contains(frame, "earlier re-runs") || !strings.Contains(frame, "exact · builtin") || !strings.Contains(frame, "written · builtin") {
		t.Fatalf("the form does not list the re-runs:\n%s", frame)
	}
	if m.chain.rerun == nil || len(m.chain.rerun.batches()) < 2 {
		t.Fatalf("the panel lists no earlier re-runs")
	}
	stored, err := s.ReplaysForChain(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]int{}
	for _, r := range stored {
		variants[r.MemoryVariant]++
	}
	if variants["written"] == 0 || variants["written"] != variants["exact"] {
		t.Fatalf("stored arms %v", variants)
	}
	rows, err := s.AttributionForChain(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	attributed := 0
	for _, r := range rows {
		if r.Attributed {
			attributed++
		}
	}
	if attributed == 0 {
		t.Fatalf("no attributed row among %d", len(rows))
	}
}

// TestRerunPanelKeys: the form cycles its values, esc leaves results then closes the panel,
// and without a Rerunner the key is disabled.
func TestRerunPanelKeys(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 120, height: 40}
	p := newRerunPanel(c, s, nil, k, 0)
	msg := p.Init()()
	p.Update(msg)
	if p.src == nil || p.err != nil {
		t.Fatalf("source not loaded: %v", p.err)
	}
	right := tea.KeyPressMsg{Code: tea.KeyRight}
	p.handleKey(right)
	if rerunVariants[p.variant] != "edited" {
		t.Fatalf("variant %s", rerunVariants[p.variant])
	}
	p.handleKey(tea.KeyPressMsg{Code: tea.KeyDown})
	p.handleKey(right)
	if p.probe != 1 {
		t.Fatalf("probe %d", p.probe)
	}
	if view := p.View(120, 30); !strings.Contains(view, "‹ edited ›") || !strings.Contains(view, "re-run · block 0") {
		t.Fatalf("view:\n%s", view)
	}
	p.shown = []string{"x"}
	if p.back() || p.shown != nil {
		t.Fatal("esc did not leave the results")
	}
	if !p.back() {
		t.Fatal("esc did not close the form")
	}
	keys := DefaultKeyMap()
	cs := newChainScreen(&common{styles: c.styles, keys: &keys}, s, s, k, 0).withRerun(nil, nil)
	if cs.c.keys.Chain.Rerun.Enabled() {
		t.Fatal("r enabled without a Rerunner")
	}
	var _ Rerunner = (*runs.Store)(nil)
}

// TestRerunResultsWrapArgumentsAndShowRequest: the results view wraps a long tool call
// instead of cutting it, and shows the probe's request fields.
func TestRerunResultsWrapArgumentsAndShowRequest(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 120, height: 40}
	p := newRerunPanel(c, s, nil, k, 0)
	p.Update(p.Init()())
	if p.src == nil || len(p.src.Probes) == 0 {
		t.Fatalf("source not loaded: %v", p.err)
	}
	probe := p.src.Probes[0].Probe.ID
	long := strings.Repeat("a justification the executor wrote at length, ", 4) + "END"
	tool := "request_review"
	arm := func(id, variant string) runs.Replay {
		r := runs.Replay{ReplayID: id, BatchID: "b-" + variant, ProbeID: probe, MemoryVariant: variant, Executor: "builtin"}
		r.Decision = "escalate"
		r.RawToolName = &tool
		r.RawToolArguments = map[string]any{"reason": long}
		return r
	}
	p.replays = []runs.Replay{arm("r1", "written"), arm("r2", "exact")}
	p.shown = []string{"b-written", "b-exact"}
	text := stripANSI(strings.Join(p.armLines(120), "\n"))
	flat := strings.Join(strings.Fields(text), " ")
	if !strings.Contains(flat, "END") || strings.Contains(text, "length, a justi…") {
		t.Errorf("the tool call's arguments are cut:\n%s", text)
	}
	if !strings.Contains(text, "request: ") || !strings.Contains(flat, "action_time=") {
		t.Errorf("the probe's request is not shown:\n%s", text)
	}
}

// TestStaleEditRemovedInCommand: an edit that arrives after the panel moved on is discarded,
// and its temporary file is removed by the command Update returns, not by Update itself.
func TestStaleEditRemovedInCommand(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	src, err := s.RerunSource(context.Background(), k.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "true")
	e, err := workbench.StartEdit(src)
	if err != nil {
		t.Fatal(err)
	}
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 120, height: 40}
	p := newRerunPanel(c, s, nil, k, -1)
	p.seq = 2
	cmd := p.Update(rerunEditReadyMsg{seq: 1, edit: e})
	if _, err := os.Stat(e.Path); err != nil {
		t.Fatalf("Update removed the edit's file itself: %v", err)
	}
	if cmd == nil {
		t.Fatal("no command removes the stale edit's file")
	}
	cmd()
	if _, err := os.Stat(e.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale edit's file is still there: %v", err)
	}
}
