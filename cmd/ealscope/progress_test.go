package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunProgressCountsCallsAndRetries: `run` with a model executor against a loopback
// OpenAI-protocol server that answers 503 once and then 200 prints, on stderr, the retry as it
// happens (model, attempt, wait, the 503) and a progress line counting the model calls
// finished, which reaches every call the run made.
func TestRunProgressCountsCallsAndRetries(t *testing.T) {
	srv := newChatServer(t)
	srv.set("503-then-act")
	dir := t.TempDir()
	cfg := fakeModelConfig(t, srv, dir, 1)
	_, stderr, code := runCLI(t, "run", "--builtin", "--cases", fieldSurveyKit, "--out", filepath.Join(dir, "run"),
		"--conditions", "faithful_typed", "--executor", "fake", "--config", cfg, "--max-attempts", "3", "--concurrency", "1")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	retry := regexp.MustCompile(`(?m)^retry: model fake attempt 1/3 failed \(.*503.*\); next attempt in [0-9.]+s$`)
	if !retry.MatchString(stderr) {
		t.Errorf("no retry line for the 503:\n%s", stderr)
	}
	srv.mu.Lock()
	calls := srv.calls // one of them the 503: the logical calls are one fewer
	srv.mu.Unlock()
	want := regexp.MustCompile(`executor +\d+/\d+ · ` + itoa(calls-1) + ` model calls? finished`)
	if !want.MatchString(stderr) {
		t.Errorf("no progress line counting the %d model calls:\n%s", calls-1, stderr)
	}
	if i, j := strings.Index(stderr, "retry:"), strings.LastIndex(stderr, "model call"); i < 0 || j < i {
		t.Errorf("the retry is not printed before the run's last progress line:\n%s", stderr)
	}
}

// TestReplayPrintsRetries: `replay` against a server answering 503 then 200 prints the retry
// on stderr as it happens, and stdout (the JSON document) stays clean.
func TestReplayPrintsRetries(t *testing.T) {
	env := newReplayEnv(t)
	res := env.replay(t, "503-then-act", env.chainArgs(env.formed, "exact")...)
	if res.code != 0 {
		t.Fatalf("replay: exit %d: %s", res.code, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^retry: model fake attempt 1/2 failed \(.*503.*\); next attempt in [0-9.]+s$`).MatchString(res.stderr) {
		t.Errorf("no retry line on stderr:\n%s", res.stderr)
	}
	if strings.Contains(res.stdout, "retry:") {
		t.Errorf("the retry went to stdout:\n%s", res.stdout)
	}
}
