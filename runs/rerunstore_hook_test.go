package runs_test

import (
	"context"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// This package's internal re-run tests build and store re-runs the way the headless command
// and the TUI do, through replay/rerunstore; it imports runs, so only this external test
// package can hand its builder and saver to them (see storedRerun in replays_test.go).
func init() {
	runs.RerunThroughStore = func(ctx context.Context, s *runs.Store, src runs.RerunSource, mem replay.RerunMemory, ex replay.Executor, n int) ([]replay.RerunResult, error) {
		spec := workbench.RerunSpecFor(src, mem, src.Probes, ex, n, 20260821)
		results, _, err := replay.Rerun(ctx, spec, workbench.SaveRerun(s, src))
		return results, err
	}
}
