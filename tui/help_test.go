package tui

import (
	"strings"
	"testing"
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
