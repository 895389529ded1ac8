package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHistoryHeadWrapsAtNarrowWidth: a turn's speaker, id and time wrap under a narrow pane
// instead of being cut, so the time of every turn stays readable at 80 columns.
func TestHistoryHeadWrapsAtNarrowWidth(t *testing.T) {
	s := chainScreen{c: &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 80, height: 24}}
	b := BlockDetail{Index: 3, Turns: []Turn{{ID: "turn_cyber_0042", Speaker: "Ravi Menon, Security Duty Officer (on call)",
		OccurredAt: "2026-03-14T09:30:00Z", Content: "Containment approved for host ws-17."}}}
	const w = 36
	lines := s.historyLines(b, w, 20)
	var words []string
	for _, l := range lines {
		words = append(words, strings.TrimSpace(ansi.Strip(l)))
	}
	// Wrapping may break at a space or a hyphen; what matters is that nothing is cut.
	text := strings.Join(words, "")
	for _, want := range []string{"SecurityDutyOfficer(oncall)", "turn_cyber_0042", "2026-03-14T09:30:00Z"} {
		if !strings.Contains(strings.ReplaceAll(text, " ", ""), want) {
			t.Errorf("history at %d columns lost %q:\n%s", w, want, text)
		}
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line wider than the pane (%d > %d): %q", ansi.StringWidth(l), w, ansi.Strip(l))
		}
	}
}

// TestHistoryTitleDropsTheCasePrefix: a block title that repeats the case id (every finance
// block's) is shown by the part that differs, as in the timeline.
func TestHistoryTitleDropsTheCasePrefix(t *testing.T) {
	caseID := "fin_ealscope_builtin_portfolio_duration_overlay"
	s := chainScreen{key: ChainKey{CaseID: caseID}}
	b := BlockDetail{Index: 3, Title: "block_" + caseID + "_03"}
	if got := s.historyTitle(&b); got != "history · block 3 · 03" {
		t.Errorf("history title %q, want %q", got, "history · block 3 · 03")
	}
}
