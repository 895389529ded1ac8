package tui

import (
	"fmt"
	"strings"
	"time"

	"testing"

	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"
)

func ptr[T any](v T) *T { return &v }

// drive sizes the model and runs its commands synchronously until none is left, the way the
// program would, so a test sees the settled frame without sleeping.
func drive(t testing.TB, m Model, w, h int) Model {
	t.Helper()
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m = next.(Model)
	return settle(t, m, m.Init())
}

// settle runs cmd and every command it leads to, feeding results back into Update. Batches
// are expanded; quit and clipboard messages are dropped (they address the terminal).
func settle(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 1000 {
			t.Fatal("commands did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg:
			continue
		}
		if isTerminalMsg(msg) {
			continue
		}
		next, c2 := m.Update(msg)
		m = next.(Model)
		queue = append(queue, c2)
	}
	return m
}

// isTerminalMsg reports messages meant for the terminal, not the model (spinner ticks would
// never settle; clipboard writes and colour queries have no answer in a test).
func isTerminalMsg(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.QuitMsg:
		return true
	}
	name := typeName(msg)
	switch name {
	case "tea.setClipboardMsg", "tea.backgroundColorMsg", "spinner.TickMsg":
		return true
	}
	return false
}

func typeName(v any) string { return fmtType(v) }

func fmtType(v any) string { return fmt.Sprintf("%T", v) }

func stripANSI(s string) string { return ansi.Strip(s) }

// wantAll fails t for each of wants that text (named what in the message) does not contain.
func wantAll(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// teaWait bounds how long a teatest flow waits for a frame or for the program to finish. It
// is a liveness bound, never a speed target: on a loaded shared machine a first frame has
// taken over 10 s, and a flow that is merely slow must not fail.
const teaWait = 90 * time.Second
