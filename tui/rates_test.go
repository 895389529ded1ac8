package tui

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// TestRunsScreenCountsNotEstimableTrials: the runs table counts the provider-error trials of
// a run apart from its trials, and shows "-" for a run without any.
func TestRunsScreenCountsNotEstimableTrials(t *testing.T) {
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 160, height: 20}
	s := runsScreen{c: c, ready: true, runs: []RunSummary{
		presentRun(runs.RunSummary{RunID: "r_failing", Status: "completed", Verification: "verified", Trials: 12, TrialsNotEstimable: 7}),
		presentRun(runs.RunSummary{RunID: "r_clean", Status: "completed", Verification: "verified", Trials: 9}),
	}}
	v := stripANSI(s.View())
	if !strings.Contains(v, "not est.") {
		t.Fatalf("no not-estimable column:\n%s", v)
	}
	for _, line := range strings.Split(v, "\n") {
		fields := strings.Fields(line)
		switch {
		case strings.Contains(line, "r_failing"):
			if !strings.Contains(strings.Join(fields, " "), "12 7 ✓ verified · completed") {
				t.Errorf("failing run row %q, want 12 trials and 7 not estimable", line)
			}
		case strings.Contains(line, "r_clean"):
			if !strings.Contains(strings.Join(fields, " "), "9 - ✓ verified · completed") {
				t.Errorf("clean run row %q, want 9 trials and none not estimable", line)
			}
		}
	}
}
