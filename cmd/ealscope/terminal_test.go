package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The terminal end-to-end tests drive the real binary in a real terminal (tmux): these are
// the pieces they share, the binary built for them and the terminal they read and type into.

// buildForTerminal skips unless tmux is installed and the tests are not -short, then builds
// the binary into a fresh temporary directory; it returns the directory and the binary.
func buildForTerminal(t *testing.T) (tmp, bin string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the terminal end-to-end test (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the terminal end-to-end test")
	}
	tmp = t.TempDir()
	bin = filepath.Join(tmp, "ealscope")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return tmp, bin
}

// terminal is one tmux session running a shell script, on a server of its own.
type terminal struct {
	t       *testing.T
	socket  string
	timeout time.Duration // how long waitFor waits for a screen
}

// startTerminal runs script in a width x height session. The socket is private to this test
// process (t.TempDir ends in "001" in every process, so it cannot name the socket): concurrent
// test runs on one machine must not share a server. The server is killed when the test ends.
func startTerminal(t *testing.T, name string, width, height int, script string, timeout time.Duration) *terminal {
	t.Helper()
	term := &terminal{t: t, socket: name + "-" + strconv.Itoa(os.Getpid()), timeout: timeout}
	term.tmux("new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-s", "e2e", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", term.socket, "kill-server").Run() })
	return term
}

func (term *terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", term.socket}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the terminal shows now.
func (term *terminal) screen() string { return term.tmux("capture-pane", "-p", "-t", "e2e") }

// keys types into the terminal (tmux send-keys: key names, or "-l" and literal text).
func (term *terminal) keys(k ...string) {
	term.tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...)
}

// waitFor polls the screen until ok accepts it, and fails the test with the screen after the
// terminal's timeout.
func (term *terminal) waitFor(what string, ok func(string) bool) string {
	term.t.Helper()
	deadline := time.Now().Add(term.timeout)
	for {
		s := term.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not a wait for the program
	}
}

// screenHas accepts a screen that shows sub.
func screenHas(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// isolatedEnv is the environment prefix of a script that keeps the binary's data, config and
// state under tmp.
func isolatedEnv(tmp string) string {
	return fmt.Sprintf("XDG_DATA_HOME=%s XDG_CONFIG_HOME=%s XDG_STATE_HOME=%s ",
		filepath.Join(tmp, "data"), filepath.Join(tmp, "config"), filepath.Join(tmp, "state"))
}
