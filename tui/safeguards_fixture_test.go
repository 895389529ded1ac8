package tui

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// The lab's tests write evaluations to their workspace; they get their own copy of the
// fixture run (same corpus, same seed), so the shared fixture's goldens never see them.
var labWS struct {
	once  sync.Once
	dir   string
	store *runs.Store
	runID string
	err   error
}

func labStore(t testing.TB) (*runs.Store, string) {
	t.Helper()
	labWS.once.Do(func() {
		labWS.dir, labWS.err = os.MkdirTemp("", "ealscope-tui-lab-")
		if labWS.err != nil {
			return
		}
		ctx := context.Background()
		run := filepath.Join(labWS.dir, "run")
		if labWS.err = buildScriptedRun(ctx, run, "", fixtureSeed); labWS.err != nil {
			return
		}
		var res []runs.PathResult
		labWS.store, res, labWS.err = importRun(ctx, filepath.Join(labWS.dir, "workspace.db"), []string{run}, nil)
		if labWS.err == nil {
			labWS.runID = res[0].RunID
		}
	})
	if labWS.err != nil {
		t.Fatalf("building the lab's workspace: %v", labWS.err)
	}
	return labWS.store, labWS.runID
}

// closeLabStore is TestMain's cleanup of the lab's workspace.
func closeLabStore() {
	if labWS.store != nil {
		labWS.store.Close()
	}
	if labWS.dir != "" {
		os.RemoveAll(labWS.dir)
	}
}
