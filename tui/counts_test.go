package tui

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

func TestActedTextCountsProviderErrorsApart(t *testing.T) {
	for _, c := range []struct {
		acted, trials, failed int
		want                  string
	}{
		{1, 2, 0, "acted 1 of 2"},
		{0, 1, 1, "not estimable: 1 provider error"},
		{1, 3, 1, "acted 1 of 2 · 1 not estimable (provider error)"},
	} {
		if got := ActedText(c.acted, c.trials, c.failed); got != c.want {
			t.Errorf("ActedText(%d, %d, %d) = %q, want %q", c.acted, c.trials, c.failed, got, c.want)
		}
	}
}

// TestArmColumnProviderError: the re-run panel never shows a failed call as non-compliant.
func TestArmColumnProviderError(t *testing.T) {
	st := ptr(NewStyles(NewPalette(true, true)))
	pe := "ProviderError: HTTP 500"
	out := strings.Join(armColumn(st, []runs.Replay{{MemoryVariant: "written", Executor: "fake", Outcome: engine.Outcome{Decision: "provider_error", ProviderError: &pe}}}, 80), "\n")
	if strings.Contains(out, "non-compliant") || strings.Contains(out, "acted 0 of 1") || !strings.Contains(out, "not estimable") {
		t.Errorf("arm column:\n%s", out)
	}
	c := &common{styles: st, keys: ptr(DefaultKeyMap()), width: 120, height: 30}
	s := chainScreen{c: c, key: ChainKey{CaseID: "c"}}
	lines := strings.Join(s.probeLines(BlockDetail{Probes: []ProbeRow{{ProbeID: "c_p", Trials: []Trial{{Decision: "provider_error", ProviderError: pe}}}}}, 100, 10), "\n")
	if strings.Contains(lines, "non-compliant") || !strings.Contains(lines, "not estimable") {
		t.Errorf("probe pane:\n%s", lines)
	}
}

// TestRunsScreenSaysWhatIsWrong: a run whose writer failed on every call says so, and an
// empty workspace says how to fill it.
func TestRunsScreenSaysWhatIsWrong(t *testing.T) {
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 160, height: 20}
	s := runsScreen{c: c, ready: true}
	if v := s.View(); !strings.Contains(v, "ealscope demo") || !strings.Contains(v, "ealscope import") {
		t.Errorf("empty workspace:\n%s", v)
	}
	s.runs = []RunSummary{{RunID: "r1", Status: "completed", Verified: true, WriterAttempts: 7, WriterErrors: 7}}
	if v := s.View(); !strings.Contains(v, "WRITER FAILED") {
		t.Errorf("failed writer not shown:\n%s", v)
	}
}

// TestCancelledRerunShowsOnlyItsOwnAttribution: the written arm of a cancelled re-run is
// paired by the store with an earlier re-run's exact arm; the panel shows this re-run's arms
// only, so it shows no attribution for them.
func TestCancelledRerunShowsOnlyItsOwnAttribution(t *testing.T) {
	st := ptr(NewStyles(NewPalette(true, true)))
	c := &common{styles: st, keys: ptr(DefaultKeyMap()), width: 120, height: 30}
	written, oldExact := "w2", "x1"
	p := &rerunPanel{c: c, attribution: []runs.ReplayAttribution{{WrittenReplayID: &written, ExactReplayID: &oldExact}}}
	p.attribution[0].Attributed = true
	arms := []runs.Replay{{ReplayID: written, MemoryVariant: "written"}}
	if v := p.verdictLine(arms, 100); strings.Contains(v, "MEMORY") || !strings.Contains(v, "not computed") {
		t.Errorf("cancelled re-run verdict: %q", v)
	}
	arms = append(arms, runs.Replay{ReplayID: oldExact, MemoryVariant: "exact"})
	if v := p.verdictLine(arms, 100); !strings.Contains(v, "MEMORY") {
		t.Errorf("a finished pair loses its attribution: %q", v)
	}
}
