package tui

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ealscope/ealscope/runs"
)

// lockedWorkspace is the real store whose first saves fail as a workspace held by another
// writer past the wait does (runs.LockedError; the waiting itself is tested in runs).
type lockedWorkspace struct {
	*runs.Store
	mu      sync.Mutex
	refused int
	locked  bool
}

func (l *lockedWorkspace) SaveReplay(ctx context.Context, in runs.ReplayInput) error {
	l.mu.Lock()
	locked := l.locked
	if locked {
		l.refused++
	}
	l.mu.Unlock()
	if locked {
		return &runs.LockedError{Path: l.Path(), Waited: 10 * time.Minute, Err: runs.ErrLocked}
	}
	return l.Store.SaveReplay(ctx, in)
}

func (l *lockedWorkspace) unlock() {
	l.mu.Lock()
	l.locked = false
	l.mu.Unlock()
}

// TestRerunKeepsResultsTheWorkspaceRefused: a re-run whose saves fail keeps every finished
// arm, says so, and saves them when asked again once the workspace is free.
func TestRerunKeepsResultsTheWorkspaceRefused(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	before, err := s.ReplaysForChain(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	ws := &lockedWorkspace{Store: s, locked: true}
	tm := startProgram(t, Options{Store: s, Rerun: ws, Start: Start{Chain: &k, Block: -1}})
	waitOutput(t, tm, "FIRST FALSE AUTHORITY")
	tm.Send(tea.KeyPressMsg{Code: 'r', Text: "r"})
	waitOutput(t, tm, "(6)")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) // exact memory, all probes, builtin
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("UNSAVED")) },
		teatest.WithDuration(teaWait), teatest.WithCheckInterval(10*time.Millisecond))
	ws.mu.Lock()
	refused := ws.refused
	ws.mu.Unlock()
	if refused != 12 { // 6 probes x (written + exact arm)
		t.Fatalf("%d saves refused, want 12", refused)
	}
	ws.unlock()
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) // save again
	waitOutput(t, tm, "attribution:")            // the results view, once the arms are stored
	tm.Type(":q")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(teaWait)).(Model)
	if m.chain.rerun == nil || len(m.chain.rerun.unsaved.arms) != 0 {
		t.Fatalf("arms still unsaved after saving again")
	}
	after, err := s.ReplaysForChain(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after)-len(before) != 12 {
		t.Fatalf("%d arms stored after saving again, want 12", len(after)-len(before))
	}
}
