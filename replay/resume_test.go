package replay

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// TestCancelMidRun cancels a scripted run from its own progress callback once some trials
// are written: the manifest says cancelled and every file verifies against it.
func TestCancelMidRun(t *testing.T) {
	d, cases := builtinCases(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := scriptedOptions(t, d, cases, filepath.Join(t.TempDir(), "run"), 11)
	opts.Progress = func(p Progress) {
		if p.Phase == "executor" && p.Done == 25 {
			cancel()
		}
	}
	sum, err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if sum == nil || sum.Status != rundir.StatusCancelled {
		t.Fatalf("summary %+v", sum)
	}
	if _, err := rundir.Open(opts.Out, rundir.Options{}); err == nil {
		t.Fatal("a cancelled run opened as complete")
	}
	run := openRun(t, opts.Out, true)
	if run.Status != rundir.StatusCancelled {
		t.Fatalf("manifest status %s", run.Status)
	}
	trials := len(run.Files[rundir.Trials])
	if trials < 25 || trials >= len(run.Files[rundir.ExecutorPlan]) {
		t.Fatalf("%d trials written of %d planned", trials, len(run.Files[rundir.ExecutorPlan]))
	}
	if len(run.Files[rundir.Calls]) != trials || len(run.Files[rundir.ModelContexts]) != trials {
		t.Fatal("calls, contexts and trials disagree after cancellation")
	}
}

// TestResumeCompletesWithoutRepeatingCalls interrupts a model-executor run (the server
// cancels the run while answering one request), then resumes it against a fresh server: only
// the calls without a successful result are made, none twice, and the result equals an
// uninterrupted run's trials.
func TestResumeCompletesWithoutRepeatingCalls(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	_, cases := builtinCases(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const before = 7
	var script []func(map[string]any) reply
	for i := 0; i < before; i++ {
		script = append(script, act)
	}
	script = append(script, func(map[string]any) reply { return errorReply(500, "down") }) // retried once...
	script = append(script, func(map[string]any) reply { return errorReply(500, "down") }) // ...and kept as provider_error
	script = append(script, func(map[string]any) reply { cancel(); return reply{hang: true} })
	first := newFakeServer(t, act, script...)
	cfg := &Config{Models: map[string]Model{"fake": testModel(first.URL)}}
	st := Settings{Domain: "procurement", Corpus: BuiltinCorpus, Cases: []string{cases[0].ID}, Conditions: []string{"faithful_typed", "faithful_text"},
		Writer: "scripted", Executor: "fake", WriterRuns: 1, ExecutorRuns: 1, Seed: 9, FaultRate: DefaultFaultRate}
	opts, err := Prepare(st, cfg, fastRetry, "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Out, opts.Concurrency = filepath.Join(t.TempDir(), "run"), 1
	sum, err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) || sum.Status != rundir.StatusCancelled {
		t.Fatalf("first run: %v, %+v", err, sum)
	}
	planned := len(openRun(t, opts.Out, true).Files[rundir.ExecutorPlan])

	second := newFakeServer(t, act)
	cfg.Models["fake"] = testModel(second.URL)
	sum, err = Resume(context.Background(), opts.Out, cfg, fastRetry, "test", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("resumed status %s", sum.Status)
	}
	// before successful calls are kept; the provider-error one and everything after it are made again.
	if got, want := second.hits(), planned-before; got != want {
		t.Fatalf("resume made %d calls, want %d", got, want)
	}
	run := openRun(t, opts.Out, false)
	seen := map[string]bool{}
	for _, r := range run.Files[rundir.Trials] {
		id := trialCallID(r)
		if seen[id] {
			t.Fatalf("call %s has two trials", id)
		}
		seen[id] = true
		if r.Str("decision") != engine.ExecuteRequested {
			t.Errorf("trial %s: %s", id, r.Str("decision"))
		}
	}
	if len(seen) != planned {
		t.Fatalf("%d trials for %d planned calls", len(seen), planned)
	}
	// The call log keeps the earlier provider-error row next to the successful retry.
	if calls := len(run.Files[rundir.Calls]); calls != planned+1 {
		t.Errorf("%d call rows, want %d (one provider error kept)", calls, planned+1)
	}
	checkContextsAgainstCalls(t, run)
	if len(run.Files[rundir.ModelContexts]) != planned {
		t.Errorf("%d contexts for %d trials", len(run.Files[rundir.ModelContexts]), planned)
	}
}
