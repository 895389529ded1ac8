package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
)

// TestMain keeps every in-process command's log file inside a temporary state directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ealscope-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	xdg.Reload()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestLogsGoToTheStateFile: a failing command logs to $XDG_STATE_HOME/ealscope/ealscope.log
// as JSON lines (untrusted text escaped), and never to stdout or stderr.
func TestLogsGoToTheStateFile(t *testing.T) {
	tmp := t.TempDir()
	setXDG(t, tmp, "XDG_STATE_HOME")
	state := filepath.Join(tmp, "state")
	db := filepath.Join(t.TempDir(), "no\x1b[31mwhere.db")
	out, errs, code := runCLI(t, "--log-level", "debug", "summary", "--db", db)
	if code == 0 {
		t.Fatal("summary of a missing workspace succeeded")
	}
	b, err := os.ReadFile(filepath.Join(state, "ealscope", "ealscope.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if !strings.Contains(log, `"msg":"command failed"`) || !strings.Contains(log, `"command":"summary"`) {
		t.Errorf("log file:\n%s", log)
	}
	if strings.Contains(log, "\x1b") {
		t.Error("the log carries a raw escape sequence from untrusted text")
	}
	if strings.Contains(out+errs, `"level"`) {
		t.Errorf("log lines reached the screen: %q %q", out, errs)
	}
	_, _, code = runCLI(t, "--log-level", "off", "summary", "--db", db)
	if code == 0 {
		t.Fatal("summary of a missing workspace succeeded")
	}
}
