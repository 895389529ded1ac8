package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// TestRunCommandBuiltin runs the default pipeline (scripted writer, built-in executor) on two
// built-in cases through the CLI and reads the JSON summary; the run directory verifies.
func TestRunCommandBuiltin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--builtin", "--cases", "ealscope_v1_field_survey_kit", "--seed", "3", "--out", out, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
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
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if sum.Status != "completed" || sum.Cases != 1 || sum.Trials == 0 || len(sum.Metrics.Decisions) == 0 {
		t.Fatalf("summary %+v", sum)
	}
	if !strings.Contains(stderr.String(), "executor") {
		t.Errorf("no progress lines on a non-terminal stderr: %q", stderr.String())
	}
	if _, err := rundir.Open(out, rundir.Options{}); err != nil {
		t.Fatal(err)
	}

	// Plain-text summary.
	stdout.Reset()
	code = run([]string{"run", "--builtin", "--cases", "ealscope_v1_field_survey_kit", "--conditions", "faithful_typed", "--out", filepath.Join(t.TempDir(), "r2")}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "unauthorized actions: 0 of") {
		t.Fatalf("exit %d, summary %q", code, stdout.String())
	}
}

// TestRunCommandErrors: unknown models and bad config keys are errors naming file and key.
func TestRunCommandErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[models.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[models.local]\nmodel = \"m\"\n"), 0o600)
	var stdout, stderr bytes.Buffer
	run([]string{"run", "--config", bad, "--out", filepath.Join(dir, "d")}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "bad.toml: models.local.base_url: required") {
		t.Errorf("stderr %q", stderr.String())
	}
}
