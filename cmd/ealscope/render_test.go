package main

import (
	"strings"
	"testing"
)

// TestDemoOpenRenderWithoutTerminal: demo builds and imports the run and, with no terminal,
// prints the chain it would open; a second demo reuses the run; render and open print the
// same spot by its names.
func TestDemoOpenRenderWithoutTerminal(t *testing.T) {
	_, db, out, errs := demoWorkspace(t)
	if !strings.Contains(out, "!! FIRST FALSE AUTHORITY") || !strings.Contains(out, "[M]") {
		t.Fatalf("demo frame lacks the first false-authority marker or the cited turn:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Error("a frame printed to a pipe carries escape sequences")
	}
	if !strings.Contains(errs, "building the demo run") {
		t.Errorf("first demo should build the run: %s", errs)
	}
	_, errs, code := runCLI(t, "demo", "--db", db)
	if code != 0 || strings.Contains(errs, "building the demo run") {
		t.Fatalf("second demo should reuse the run (exit %d): %s", code, errs)
	}

	head := strings.SplitN(out, "\n", 2)[0]
	caseID := strings.Fields(head)[0]
	cond := strings.Fields(head)[2]
	frame, errs, code := runCLI(t, "render", "--db", db, "--case", caseID, "--condition", cond, "--block", "0",
		"--width", "80", "--height", "24", "--no-color")
	if code != 0 {
		t.Fatalf("render exit %d: %s", code, errs)
	}
	// Off a terminal the help bar is left out and the status line (empty here) is the last.
	lines := strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
	if len(lines) != 24 || !strings.Contains(lines[0], "block 0/") {
		t.Errorf("render frame: %d lines, header %q", len(lines), lines[0])
	}
	for _, pane := range []string{"timeline", "history", "memory", "ledger", "probes"} {
		f, errs, code := runCLI(t, "render", "--db", db, "--case", caseID, "--condition", cond, "--block", "1",
			"--pane", pane, "--width", "100", "--height", "30", "--no-color")
		if code != 0 || !strings.Contains(f, "┌") && !strings.Contains(f, "╭") {
			t.Errorf("render --pane %s: exit %d %s\n%s", pane, code, errs, f)
		}
	}
	_, errs, code = runCLI(t, "render", "--db", db, "--case", "nope", "--condition", cond, "--block", "0")
	if code == 0 || !strings.Contains(errs, "no chain") {
		t.Errorf("unknown case: exit %d, %s", code, errs)
	}

	out, errs, code = runCLI(t, "open", "--db", db, "--case", caseID, "--condition", cond, "--block", "2")
	if code != 0 || !strings.Contains(out, "block 2/") {
		t.Errorf("open without a terminal prints the spot (exit %d): %s\n%s", code, errs, out)
	}
	_, errs, code = runCLI(t, "open", "--db", db)
	if code == 0 || !strings.Contains(errs, "not a terminal") {
		t.Errorf("open with no spot and no terminal must fail fast: exit %d %s", code, errs)
	}
}
