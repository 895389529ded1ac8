package workbench_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ealscope/ealscope/replay/workbench"
)

// TestLoadSafeguardRunProgress: the progress form loads what LoadSafeguardRun loads, reports
// before each chain it reads (0, 1, … of the run's chains), and stops between chains once
// its context is cancelled.
func TestLoadSafeguardRunProgress(t *testing.T) {
	store, runID, _ := domainRun(t, "procurement", "one_shot_typed")
	ctx := context.Background()
	chains, keys, skipped, err := workbench.LoadSafeguardRun(ctx, store, runID)
	if err != nil {
		t.Fatal(err)
	}
	var done []int
	total := -1
	pchains, pkeys, pskipped, err := workbench.LoadSafeguardRunProgress(ctx, store, runID, func(d, n int) {
		done = append(done, d)
		total = n
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pchains, chains) || !reflect.DeepEqual(pkeys, keys) || pskipped != skipped {
		t.Fatalf("progress load differs: %d chains %d skipped, want %d and %d", len(pchains), pskipped, len(chains), skipped)
	}
	if total != len(chains)+skipped || len(done) != total {
		t.Fatalf("progress reported %d steps of %d; want %d", len(done), total, len(chains)+skipped)
	}
	for i, d := range done {
		if d != i {
			t.Fatalf("step %d reported done=%d", i, d)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	reads := 0
	_, _, _, err = workbench.LoadSafeguardRunProgress(cctx, store, runID, func(d, n int) {
		reads++
		if d == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || reads != 3 {
		t.Fatalf("cancelled at the third chain: err %v after %d progress calls; want context.Canceled after 3", err, reads)
	}
}
