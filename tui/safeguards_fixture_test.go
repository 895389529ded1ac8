package tui

import (
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// The lab's tests write evaluations to their workspace, so they get their own copies of the
// fixture run (same corpus, same seed) and the shared fixture's goldens never see them: one
// for the chain pane's tests (evaluations at every block) and one for the run's batches
// (which replace a chain's evaluation with a final-block one) and model executors.
var labWS, labRunWS workspaceFixture

// labStore is the chain pane's workspace, labRunStore the run batches' one.
func labStore(t testing.TB) (*runs.Store, string)    { return labWS.get(t, fixtureRun) }
func labRunStore(t testing.TB) (*runs.Store, string) { return labRunWS.get(t, fixtureRun) }

// closeLabStore is TestMain's cleanup of the lab's workspaces.
func closeLabStore() {
	labWS.close()
	labRunWS.close()
}
