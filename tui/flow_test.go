package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// teatest flows: the real program loop with the real store, asserted by waiting for output
// and by the final model's frame (never by sleeping, never by raw byte-stream goldens).

func startProgram(t *testing.T, opts Options) *teatest.TestModel {
	t.Helper()
	opts.Dark, opts.NoColor = ptr(true), true
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
}

func waitOutput(t *testing.T, tm *teatest.TestModel, sub string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(sub)) },
		teatest.WithDuration(teaWait), teatest.WithCheckInterval(10*time.Millisecond))
}

func finalFrame(t *testing.T, tm *teatest.TestModel, runID string) string {
	t.Helper()
	return frame(tm.FinalModel(t, teatest.WithFinalTimeout(teaWait)).(Model), runID)
}

// Flow 1: open a chain at block 0, jump to the first false authority, read the help of the
// memory pane, close it, quit with :q.
func TestFlowFirstFalseAuthority(t *testing.T) {
	s, runID := testStore(t)
	k := formingChain(t)
	tm := startProgram(t, Options{Store: s, Start: Start{Chain: &k, Block: 0}})
	waitOutput(t, tm, "first false authority: block")
	tm.Send(tea.KeyPressMsg{Code: 'f', Text: "f"})
	waitOutput(t, tm, "FIRST FALSE AUTHORITY")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	tm.Send(tea.KeyPressMsg{Code: '?', Text: "?"})
	waitOutput(t, tm, "memory pane")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Type(":q")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	out := finalFrame(t, tm, runID)
	golden.RequireEqual(t, out)
}

// Flow 2: runs → chains → filter the forming ones → open → back twice → q quits at the top.
func TestFlowRunsToChainAndBack(t *testing.T) {
	s, runID := testStore(t)
	tm := startProgram(t, Options{Store: s})
	waitOutput(t, tm, "runs (1)")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "sorted by case")
	tm.Type("/!MEM")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "filter: !MEM")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "timeline")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(teaWait))
	m := tm.FinalModel(t).(Model)
	if m.top() != screenRuns || m.chains.query != "!MEM" {
		t.Errorf("ended on screen %v with filter %q", m.top(), m.chains.query)
	}
	_ = runID
}
