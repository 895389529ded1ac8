package tui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// View goldens: frames of the real fixture workspace at 80x24 and 120x40, dark theme, colour
// off (NoColor palette, then ANSI stripped so the files read as the screen does). Regenerate
// with `go test ./tui -update` and review the diff like code.

func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "ctrl+c", "ctrl+u", "ctrl+d":
		return tea.KeyPressMsg{Code: rune(s[5]), Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// press sends keys one by one, settling each key's commands before the next.
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		next, cmd := m.Update(keyPress(k))
		m = settle(t, next.(Model), cmd)
	}
	return m
}

func frame(m Model, runID string) string {
	out := ansi.Strip(m.Render())
	if runID != "" {
		out = strings.ReplaceAll(out, runID, "RUNID") // the run id hashes a timestamped manifest
	}
	return out
}

func newChainApp(t testing.TB, w, h int) (Model, string) {
	t.Helper()
	s, runID := testStore(t)
	k := formingChain(t)
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, m, w, h), runID
}

func assertFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, lw, w, l)
		}
	}
}

func TestChainViewGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		name := func(s string) string { return s + "_" + itoa(sz.w) + "x" + itoa(sz.h) }
		states := []struct {
			name string
			keys []string
		}{
			{"first_false_authority", nil},
			{"memory_pane", []string{"tab", "tab"}},
			{"ledger_baseline", []string{"tab", "tab", "c"}},
			{"raw_baseline", []string{"tab", "tab", "c", "c"}},
			{"side_by_side_next_block", []string{"right", "tab", "tab", "s"}},
			{"probes_pane", []string{"tab", "tab", "tab"}},
			{"help_memory", []string{"tab", "tab", "?"}},
		}
		for _, st := range states {
			t.Run(name(st.name), func(t *testing.T) {
				m, runID := newChainApp(t, sz.w, sz.h)
				m = press(t, m, st.keys...)
				out := frame(m, runID)
				assertFits(t, out, sz.w, sz.h)
				golden.RequireEqual(t, out)
			})
		}
	}
}

func TestChainsListGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(sz.w)+"x"+itoa(sz.h), func(t *testing.T) {
			m, runID := newChainApp(t, sz.w, sz.h)
			m = press(t, m, "esc") // back from the chain view to its run's chains
			out := frame(m, runID)
			assertFits(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

func itoa(n int) string {
	return strconv.Itoa(n)
}
