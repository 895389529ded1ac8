package tui

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// The lab's tests write evaluations to their workspace, so they get their own copies of the
// fixture run (same corpus, same seed) and the shared fixture's goldens never see them: one
// for the chain pane's tests (evaluations at every block) and one for the run's batches
// (which replace a chain's evaluation with a final-block one) and model executors.
type labFixture struct {
	once  sync.Once
	dir   string
	store *runs.Store
	runID string
	err   error
}

var labWS, labRunWS labFixture

func (f *labFixture) get(t testing.TB) (*runs.Store, string) {
	t.Helper()
	f.once.Do(func() {
		f.dir, f.err = os.MkdirTemp("", "ealscope-tui-lab-")
		if f.err != nil {
			return
		}
		ctx := context.Background()
		run := filepath.Join(f.dir, "run")
		if f.err = buildScriptedRun(ctx, run, "", fixtureSeed); f.err != nil {
			return
		}
		var res []runs.PathResult
		f.store, res, f.err = importRun(ctx, filepath.Join(f.dir, "workspace.db"), []string{run}, nil)
		if f.err == nil {
			f.runID = res[0].RunID
		}
	})
	if f.err != nil {
		t.Fatalf("building the lab's workspace: %v", f.err)
	}
	return f.store, f.runID
}

func (f *labFixture) close() {
	if f.store != nil {
		f.store.Close()
	}
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// labStore is the chain pane's workspace, labRunStore the run batches' one.
func labStore(t testing.TB) (*runs.Store, string)    { return labWS.get(t) }
func labRunStore(t testing.TB) (*runs.Store, string) { return labRunWS.get(t) }

// closeLabStore is TestMain's cleanup of the lab's workspaces.
func closeLabStore() {
	labWS.close()
	labRunWS.close()
}
