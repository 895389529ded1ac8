package tui

import "github.com/ealscope/ealscope/engine/safetext"

// sanitize (tabs expanded, so a box keeps its border) and sanitizeLine are the shared
// sanitiser (engine/safetext), which the CLI's text output uses too, so a screen and a
// command print the same untrusted text the same way.
func sanitize(s string) string     { return safetext.Print(s) }
func sanitizeLine(s string) string { return safetext.Line(s) }
