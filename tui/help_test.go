package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHelpListsEveryChainKey: the timeline's ? sheet lists c (baseline) and a (annotate),
// and the search's next/previous match are in the sheet and, during a search, in the footer.
func TestHelpListsEveryChainKey(t *testing.T) {
	m, runID := newChainApp(t, 160, 45)
	m = press(t, m, "?")
	sheet := frame(m, runID)
	for _, want := range []string{"cycle baseline", "annotate", "next search match", "previous search match"} {
		if !strings.Contains(sheet, want) {
			t.Errorf("the timeline's help sheet lacks %q:\n%s", want, sheet)
		}
	}
	m = press(t, m, "esc")
	m.chain.hits = []SearchHit{{Key: m.chain.key}, {Key: m.chain.key}}
	var text []string
	for _, b := range m.chain.ShortHelp() {
		text = append(text, b.Help().Desc)
	}
	if footer := strings.Join(text, " · "); !strings.Contains(footer, "next search match") {
		t.Errorf("during a search the footer lacks the match keys: %s", footer)
	}
}

// TestCommandLineListsCommands: ':' alone lists every command; typing narrows the list and
// tab completes a unique one.
func TestCommandLineListsCommands(t *testing.T) {
	m, runID := newChainApp(t, 160, 45)
	m = press(t, m, ":")
	if out := frame(m, runID); !strings.Contains(out, ":block N") || !strings.Contains(out, ":safeguards") {
		t.Errorf("':' lists no commands:\n%s", out)
	}
	m = press(t, m, "b", "tab")
	if m.cmdline.value != "block " {
		t.Errorf("tab completed %q, want \"block \"", m.cmdline.value)
	}
}

// TestHelpSheetFitsTheScreen: at 80x24 the memory pane's ? sheet lost its third column (next
// pane, command, back, quit). At 80x24 and 160x45 every binding's key and its whole
// description are on the sheet, and no line is wider than the screen.
func TestHelpSheetFitsTheScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		m, runID := newChainApp(t, size[0], size[1])
		m = press(t, m, "tab", "tab", "?") // the memory pane
		sheet := frame(m, runID)
		if !strings.Contains(sheet, "memory pane") {
			t.Fatalf("%dx%d: not the memory pane's sheet:\n%s", size[0], size[1], sheet)
		}
		for _, l := range strings.Split(sheet, "\n") {
			if ansi.StringWidth(l) > size[0] {
				t.Errorf("%dx%d: line of %d cells: %q", size[0], size[1], ansi.StringWidth(l), l)
			}
		}
		flat := strings.Join(strings.Fields(sheet), " ")
		for _, g := range m.chain.FullHelp() {
			for _, b := range g {
				if !b.Enabled() {
					continue
				}
				desc := strings.Join(strings.Fields(b.Help().Desc), " ")
				if !strings.Contains(flat, b.Help().Key+" "+strings.Fields(desc)[0]) || !strings.Contains(flat, desc) && !wrappedIn(sheet, desc) {
					t.Errorf("%dx%d: the sheet lacks %s %q:\n%s", size[0], size[1], b.Help().Key, desc, sheet)
				}
			}
		}
	}
}

// wrappedIn reports whether every word of desc is on the sheet, in order, allowing a
// wrapped description's other columns to sit between its lines.
func wrappedIn(sheet, desc string) bool {
	rest := sheet
	for _, w := range strings.Fields(desc) {
		i := strings.Index(rest, w)
		if i < 0 {
			return false
		}
		rest = rest[i+len(w):]
	}
	return true
}
