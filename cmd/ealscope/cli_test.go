package main

import (
	"bytes"
	"testing"
)

// runCLI runs the command line in-process (stdout and stdin are not terminals here, which
// is exactly the non-TTY case open and demo must handle without hanging).
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// runOK runs the command line in-process, fails the test unless it exits 0 (naming the
// command and its stderr), and returns its stdout.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errb, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%s exit %d: %s", args[0], code, errb)
	}
	return out
}
