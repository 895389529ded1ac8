package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/engine"
)

// freeTextChainApp opens an unscored free-text chain of a private workspace from the chains
// list (so the list is loaded underneath it), at the chain's block holding a free-text memory.
func freeTextChainApp(t *testing.T) (Model, string, string) {
	t.Helper()
	s, runID := annotationStore(t)
	k := chainOf(t, s, runID, "one_shot_text", func(c ChainSummary) bool { return formationUnscored(c) })
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Annotator: "tester",
		Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	m = press(t, drive(t, m, 160, 45), "esc", "enter")
	if m.top() != screenChain || m.chain.key.ID != k.ID || !m.chains.ready {
		t.Fatalf("did not reopen chain %d from a loaded chains list", k.ID)
	}
	for range m.chain.lastBlock() + 1 {
		if b, ok := m.chain.blocks[m.chain.block]; ok && b.Memory != nil && b.Memory.Architecture == engine.ArchFreeText {
			return m, runID, b.Memory.MemoryID
		}
		m = press(t, m, "l")
	}
	t.Fatalf("no free-text memory in chain %s", k.CaseID)
	return m, "", ""
}

func acceptLabel(t *testing.T, m Model) Model {
	t.Helper()
	next, cmd := m.Update(tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl})
	return settle(t, next.(Model), cmd)
}

// TestAnnotateOpensTheRunsQueue: `a` in the chain view opens the run's queue of memories to
// label positioned at this memory, so "next memory" goes on to the run's next one (it opened
// a queue of one, where next memory only said "end of the queue").
func TestAnnotateOpensTheRunsQueue(t *testing.T) {
	m, runID, memoryID := freeTextChainApp(t)
	m = press(t, m, "a")
	a := m.annotate
	if m.top() != screenAnnotate || a.task == nil {
		t.Fatalf("a did not open the annotation screen:\n%s", frame(m, runID))
	}
	queue, err := a.store.AnnotationQueue(context.Background(), "unannotated", "tester", runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.queue) != len(queue) || len(queue) < 2 {
		t.Fatalf("a opened a queue of %d memories; the run's has %d", len(a.queue), len(queue))
	}
	if a.queue[a.pos].MemoryID != memoryID || a.task.Item.MemoryID != memoryID {
		t.Fatalf("the queue is at %s, not at the chain's memory %s", a.queue[a.pos].MemoryID, memoryID)
	}
	if want := a.pos + 1; !strings.Contains(frame(m, runID), itoa(want)+" / "+itoa(len(queue))) {
		t.Errorf("no progress %d / %d:\n%s", want, len(queue), frame(m, runID))
	}
	m = press(t, m, "right")
	if a := m.annotate; a.pos == 0 && len(a.queue) == 1 || strings.Contains(m.annotate.notice, "end of the queue") {
		t.Errorf("next memory did not move on: at %d of %d (%s)", a.pos, len(a.queue), a.notice)
	}
}

// TestAcceptedLabelScoresAtOnce: after ctrl+a the scores and badges follow the saved label
// without reopening anything. In the annotation pane "! unscored: missing_annotation" gives
// way to the score, the chain view's memory loses its "[? unscored]" badge and its header the
// "not scored" verdict, and the chains list loses the chain's unscored flag.
func TestAcceptedLabelScoresAtOnce(t *testing.T) {
	m, runID, memoryID := freeTextChainApp(t)
	if !strings.Contains(frame(m, runID), "[? unscored]") {
		t.Fatalf("the fixture's memory is not unscored:\n%s", frame(m, runID))
	}
	// Alone on the screen (a queue of one), the memory stays open after ctrl+a.
	next, cmd := m.Update(openAnnotateMsg{memoryID: memoryID}) // no run: the memory alone
	opened := settle(t, next.(Model), cmd)
	if !strings.Contains(frame(opened, runID), "! unscored") {
		t.Fatalf("the annotation pane does not show the memory unscored:\n%s", frame(opened, runID))
	}
	opened = acceptLabel(t, opened)
	pane := frame(opened, runID)
	if !strings.Contains(pane, "your label: accepted") {
		t.Fatalf("ctrl+a did not accept the label:\n%s", pane)
	}
	if strings.Contains(pane, "! unscored") || !strings.Contains(pane, "scored from the accepted annotation") {
		t.Errorf("the annotation pane still says unscored after the accepted label:\n%s", pane)
	}
	m = press(t, opened, "esc")
	if m.top() != screenChain {
		t.Fatalf("esc went to screen %v", m.top())
	}
	view := frame(m, runID)
	if strings.Contains(view, "[? unscored]") || strings.Contains(strings.SplitN(view, "\n", 2)[0], notScoredText) {
		t.Errorf("the chain view still shows the memory unscored:\n%s", view)
	}
	m = press(t, m, "esc")
	for _, l := range strings.Split(frame(m, runID), "\n") {
		if strings.Contains(l, m.chain.key.CaseID+" ") && strings.Contains(l, m.chain.key.ConditionID) &&
			(strings.Contains(l, "?FA unscored") || strings.Contains(l, "?annotate")) {
			t.Errorf("the chains list still flags the chain: %q", l)
		}
	}
}

// TestAnnotateHintWrapsAt80: at 80x24 the form's footer cut "a label counts once accepted:
// ctrl+a save…", losing what the key does; it wraps now.
func TestAnnotateHintWrapsAt80(t *testing.T) {
	s, runID := annotationStore(t)
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true,
		Annotate: &AnnotateStart{Queue: "unannotated", Annotator: "tester", RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 80, 24)
	var right []string // the form pane's column, read line by line
	for _, l := range strings.Split(frame(m, runID), "\n") {
		if i := strings.Index(l, "┃"); i >= 0 {
			right = append(right, strings.Trim(l[i:], "┃ "))
		}
	}
	flat := strings.Join(strings.Fields(strings.Join(right, " ")), " ")
	if !strings.Contains(flat, "ctrl+a saves yours as accepted") {
		t.Errorf("the hint is cut at 80 columns:\n%s", frame(m, runID))
	}
}
