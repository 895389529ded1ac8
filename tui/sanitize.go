package tui

import "github.com/ealscope/ealscope/engine/safetext"

// sanitize and sanitizeLine are the shared sanitiser (engine/safetext), which the CLI's text
// output uses too, so a screen and a command print the same untrusted text the same way.
func sanitize(s string) string     { return safetext.Text(s) }
func sanitizeLine(s string) string { return safetext.Line(s) }
