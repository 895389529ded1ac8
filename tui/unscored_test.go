package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

func chainOf(t *testing.T, s *runs.Store, runID, condition string, pick func(ChainSummary) bool) ChainKey {
	t.Helper()
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: runID, Condition: condition})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if c := presentChain(r); pick(c) {
			return c.Key
		}
	}
	t.Fatalf("no %s chain fits", condition)
	return ChainKey{}
}

// TestFreeTextSaysNotScored: a free-text chain awaiting annotation says its false authority is
// not scored, in the chain view's header, the story and the export, never "no false
// authority" or "never".
func TestFreeTextSaysNotScored(t *testing.T) {
	s, runID := testStore(t)
	k := chainOf(t, s, runID, "one_shot_text", func(c ChainSummary) bool { return c.NeedsAnnotation && c.FirstFalseAuthority < 0 })
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 160, 45)
	head := strings.SplitN(frame(m, runID), "\n", 2)[0]
	if !strings.Contains(head, notScoredText) || strings.Contains(head, "no false authority") {
		t.Errorf("chain view header: %q", head)
	}
	files, err := Export(context.Background(), ExportOptions{Store: s, Chain: k, Block: -1, Format: "md"})
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[0].Data)
	if !strings.Contains(md, mdEscape(notScoredText)) || strings.Contains(md, "first false authority: never") {
		t.Errorf("export heading: %s", strings.SplitN(md, "\n\n", 3)[1])
	}
}

// TestNoFailureNoStory: a chain without any failure (empty memory, no action) gets no failure
// story: export and presentation say why instead.
func TestNoFailureNoStory(t *testing.T) {
	s, runID := testStore(t)
	k := chainOf(t, s, runID, "empty_memory", func(c ChainSummary) bool { return !c.Flagged() })
	_, err := Export(context.Background(), ExportOptions{Store: s, Chain: k, Block: -1, Format: "md"})
	if err == nil || !strings.Contains(err.Error(), "no failure") {
		t.Errorf("export of a chain without a failure: %v", err)
	}
}

// TestChainsListSaysNotScored: on the chains list a free-text chain awaiting annotation is
// flagged as not scored (not left blank, which reads as "no false authority"), and with the
// cursor on it the footer says why: free text, no annotation.
func TestChainsListSaysNotScored(t *testing.T) {
	s, runID := testStore(t)
	k := chainOf(t, s, runID, "one_shot_text", func(c ChainSummary) bool { return c.NeedsAnnotation && c.FirstFalseAuthority < 0 })
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	m = press(t, drive(t, m, 160, 45), "esc")
	if m.top() != screenChains {
		t.Fatalf("esc did not go back to the chains list (top %v)", m.top())
	}
	out := frame(m, runID)
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, k.CaseID+" ") && strings.Contains(l, "one_shot_text") {
			row = l
		}
	}
	if !strings.Contains(row, "?FA unscored") {
		t.Errorf("the chain's row does not say it is not scored: %q\n%s", row, out)
	}
	if !strings.Contains(out, "false authority "+notScoredText) {
		t.Errorf("the footer does not say why:\n%s", out)
	}
}

// TestNarrowHeaderKeepsConditionOfUnscoredChain: at 80 columns the header of a free-text
// chain awaiting annotation cut both its condition ("in…xt") and its verdict ("false
// authority not scored (free text, no …"). The condition and block stay whole, the verdict
// shortens to its flag, and the footer says it in full.
func TestNarrowHeaderKeepsConditionOfUnscoredChain(t *testing.T) {
	s, runID := testStore(t)
	k := chainOf(t, s, runID, "incremental_text", func(c ChainSummary) bool { return formationUnscored(c) })
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: 0}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 80, 24)
	out := frame(m, runID)
	lines := strings.Split(out, "\n")
	head := lines[0]
	if !strings.Contains(head, " · incremental_text") || !strings.Contains(head, "block 0/") || !strings.HasSuffix(strings.TrimSpace(head), "?FA unscored") {
		t.Errorf("80-column header: %q", head)
	}
	if footer := lines[len(lines)-2]; !strings.Contains(footer, "false authority "+notScoredText) {
		t.Errorf("the footer does not say the chain is not scored: %q", footer)
	}
}
