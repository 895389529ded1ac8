package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// TestReplayProviderErrorIsNotEstimable: an executor answering 500 made no decision, so the
// re-run's text and JSON count the arm apart ("not estimable") instead of "acted 0 of 1".
func TestReplayProviderErrorIsNotEstimable(t *testing.T) {
	env := newReplayEnv(t)
	args := env.chainArgs(env.formed, "written")
	plain := env.replay(t, "500", args[:len(args)-1]...) // without --json
	if plain.code != 0 {
		t.Fatalf("exit %d: %s", plain.code, plain.stderr)
	}
	if strings.Contains(plain.stdout, "acted 0 of 1") || !strings.Contains(plain.stdout, "not estimable: 1 provider error") {
		t.Errorf("a provider error counted as a decision:\n%s", plain.stdout)
	}
	if strings.Contains(plain.stdout, "\tfalse\t") || !strings.Contains(plain.stdout, "not estimable") {
		t.Errorf("the table shows compliance for a call that failed:\n%s", plain.stdout)
	}
	doc := decode(t, env.replay(t, "500", args...))
	if len(doc.Counts) != 1 || doc.Counts[0].NotEstimable != 1 || doc.Counts[0].Estimable != 0 || doc.Counts[0].Acted != 0 {
		t.Errorf("JSON counts %+v, want 1 not estimable and 0 estimable", doc.Counts)
	}
	// The failed attempts are in the log file, the API key is not.
	b, err := os.ReadFile(logPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "model call failed") || strings.Contains(string(b), replayTestKey) {
		t.Errorf("log: model calls not logged, or the key is in it:\n%s", b)
	}
}

// TestRunWhoseWriterAlwaysFailsSaysSo: a model writer that answers 500 to every call writes
// no memory; `run` says so, and so does the imported run's summary (the runs screen).
func TestRunWhoseWriterAlwaysFailsSaysSo(t *testing.T) {
	dir, out, stdout := runBuiltinWithFakeModel(t, "500", "--conditions", "incremental_typed", "--writer", "fake")
	if !strings.Contains(stdout, "the writer failed on every call") {
		t.Errorf("run does not say its writer failed:\n%s", stdout)
	}
	store, err := runs.Open(filepath.Join(dir, "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rep, err := store.Import(context.Background(), []string{out}, runs.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Run(context.Background(), rep.Results[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !r.WriterFailedEverywhere() {
		t.Errorf("the imported run does not record the failed writer: %d of %d attempts failed", r.WriterErrors, r.WriterAttempts)
	}
}
