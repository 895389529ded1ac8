package main

import (
	"strings"
	"testing"
)

// TestRenderColourFollowsTheTerminal: render into a pipe writes no escape sequences unless
// --color asks for them, and NO_COLOR wins over --color.
func TestRenderColourFollowsTheTerminal(t *testing.T) {
	_, db, out, _ := demoWorkspace(t)
	head := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	args := []string{"render", "--db", db, "--case", head[0], "--condition", head[2], "--width", "80", "--height", "24"}
	t.Setenv("NO_COLOR", "")
	if frame := runOK(t, args...); strings.Contains(frame, "\x1b[") {
		t.Error("render into a pipe wrote escape sequences")
	}
	if frame := runOK(t, append(args, "--color")...); !strings.Contains(frame, "\x1b[") {
		t.Error("render --color wrote no colour")
	}
	t.Setenv("NO_COLOR", "1")
	if frame := runOK(t, append(args, "--color")...); strings.Contains(frame, "\x1b[") {
		t.Error("NO_COLOR did not win over --color")
	}
}
