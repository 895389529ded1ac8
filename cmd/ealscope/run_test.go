package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// TestRunCommandBuiltin runs the default pipeline (scripted writer, built-in executor) on two
// built-in cases through the CLI and reads the JSON summary; the run directory verifies.
func TestRunCommandBuiltin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := runCLI(t, "run", "--builtin", "--cases", fieldSurveyKit, "--seed", "3", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Status  string         `json:"status"`
		Trials  int            `json:"trials"`
		Cases   int            `json:"cases"`
		Faults  map[string]int `json:"faults"`
		Metrics struct {
			Decisions map[string]int `json:"decisions"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if sum.Status != "completed" || sum.Cases != 1 || sum.Trials == 0 || len(sum.Metrics.Decisions) == 0 {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(stderr, "executor") {
		t.Errorf("no progress lines on a non-terminal stderr: %q", stderr)
	}
	if _, err := rundir.Open(out, rundir.Options{}); err != nil {
		t.Fatal(err)
	}

	// Plain-text summary.
	if text := runBuiltinCase(t, filepath.Join(t.TempDir(), "r2"), "--conditions", "faithful_typed"); !strings.Contains(text, "unauthorized actions: 0 of") {
		t.Fatalf("summary %q", text)
	}
}

// TestRunCommandErrors: unknown models and bad config keys are errors naming file and key.
func TestRunCommandErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "config.toml"), []byte("[models.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n"))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--executor", "nosuch", "--config", cfg, "--out", filepath.Join(dir, "a")}, "models.nosuch: no such model entry"},
		{[]string{"run", "--conditions", "bogus", "--out", filepath.Join(dir, "b")}, `unknown condition "bogus"`},
		{[]string{"run", "--faults", "bogus", "--out", filepath.Join(dir, "c")}, `unknown fault family "bogus"`},
		{[]string{"run", "--builtin"}, "--out DIR is required"},
	}
	for _, c := range cases {
		if _, errs, code := runCLI(t, c.args...); code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	bad := writeFile(t, filepath.Join(dir, "bad.toml"), []byte("[models.local]\nmodel = \"m\"\n"))
	if _, errs, _ := runCLI(t, "run", "--config", bad, "--out", filepath.Join(dir, "d")); !strings.Contains(errs, "bad.toml: models.local.base_url: required") {
		t.Errorf("stderr %q", errs)
	}
}
