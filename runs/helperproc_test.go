package runs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Helper processes: the durability and concurrency tests re-execute this test binary to get a
// second writer. A helper is an ordinary Test function that runs only when its parent sets
// the helper's environment variable; it talks to the parent in lines on stdout ("ready",
// "saved 3", "error ..."), and the parent synchronises on those lines, never on sleeps.

// What every helper is told by its parent: which helper test it is (only that one runs, the
// others in the re-executed binary skip) and the workspace it writes; envHelperRun is the run
// directory an importing helper imports.
const (
	envHelperTest = "EALSCOPE_TEST_HELPER"
	envHelperDB   = "EALSCOPE_TEST_HELPER_DB"
	envHelperRun  = "EALSCOPE_TEST_HELPER_RUN"
)

// helperStart skips a helper test unless this process was started as that helper (by
// parent), and opens the workspace the helper was given.
func helperStart(t *testing.T, parent string) *Store {
	if os.Getenv(envHelperTest) != t.Name() {
		t.Skip("helper process for " + parent)
	}
	return helperOpen(os.Getenv(envHelperDB))
}

// helperExit ends a helper process after telling the parent why, with code as its status.
func helperExit(err error, code int) {
	fmt.Println("error", err)
	os.Exit(code)
}

// helperOpen opens the workspace at path inside a helper process, or ends the helper.
func helperOpen(path string) *Store {
	s, err := Open(path)
	if err != nil {
		helperExit(err, 2)
	}
	return s
}

// helperAwaitGo prints "ready" and waits for the parent's go line on stdin, so several
// helpers start writing together.
func helperAwaitGo() {
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(2)
	}
}

type writerProc struct {
	cmd   *exec.Cmd
	out   *bufio.Scanner
	stdin io.WriteCloser
}

// startHelper re-executes this test binary running only the helper test named test on the
// workspace db, with env (NAME=value pairs) added to its environment.
func startHelper(t *testing.T, test, db string, env ...string) *writerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHelperTest+"="+test, envHelperDB+"="+db)
	cmd.Env = append(cmd.Env, env...)
	return startHelperProcess(t, cmd)
}

// startHelperProcess starts a re-executed test binary with piped stdin and stdout, killed at
// the end of the test if it is still running.
func startHelperProcess(t *testing.T, cmd *exec.Cmd) *writerProc {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return &writerProc{cmd: cmd, out: bufio.NewScanner(stdout), stdin: stdin}
}

// next reads the helper's next line; an "error" line fails the test.
func (w *writerProc) next(t *testing.T) string {
	t.Helper()
	if !w.out.Scan() {
		t.Fatalf("writer ended early: %v", w.out.Err())
	}
	line := w.out.Text()
	if strings.HasPrefix(line, "error") {
		t.Fatalf("writer: %s", line)
	}
	return line
}

// requireIntegrity fails the test unless SQLite's integrity_check passes on s (when says
// after what).
func requireIntegrity(t *testing.T, s *Store, when string) {
	t.Helper()
	var integrity string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check %s: %q %v", when, integrity, err)
	}
}
