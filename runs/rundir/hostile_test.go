package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openWithin runs Open in a goroutine and fails the test if it has not returned within d: the
// inputs here used to hang it forever, and the test must end either way. It is a deadline,
// not a timed assertion: what is checked is the error.
func openWithin(t *testing.T, d time.Duration, dir string, opts Options) (*Run, error) {
	t.Helper()
	type result struct {
		run *Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		run, err := Open(dir, opts)
		done <- result{run, err}
	}()
	select {
	case r := <-done:
		return r.run, r.err
	case <-time.After(d):
		t.Fatalf("Open(%s) did not return within %v", dir, d)
		return nil, nil
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error holding %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not hold %q", err, p)
		}
	}
}

// TestFIFOsAreRefused: a FIFO in place of a listed file or of the manifest is refused by
// name instead of blocking the import on open.
func TestFIFOsAreRefused(t *testing.T) {
	for _, name := range []string{"trials.jsonl", ManifestFile} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureCopy(t)
			p := filepath.Join(dir, name)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			_, err := openWithin(t, 20*time.Second, dir, Options{})
			wantErr(t, err, name, "FIFO")
		})
	}
}

// TestDevicesAreRefused: a listed file symlinked to /dev/zero (endless) or a corpus read
// through ReadRegularFile is refused as a character device without reading it.
func TestDevicesAreRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := fixtureCopy(t)
	// Listed files must stay inside the run, so the device is reached through a symlink
	// inside it that points at a symlink outside.
	p := filepath.Join(dir, "calls.jsonl")
	os.Remove(p)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	_, err := openWithin(t, 20*time.Second, dir, Options{})
	wantErr(t, err, "calls.jsonl") // out of the run directory, or a device: refused either way

	// A character device inside the run (1,5 is /dev/zero's number) needs mknod rights.
	dir = fixtureCopy(t)
	p = filepath.Join(dir, "calls.jsonl")
	os.Remove(p)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|5); err == nil {
		_, err := openWithin(t, 20*time.Second, dir, Options{})
		wantErr(t, err, "calls.jsonl", "field files.calls.path", "character device")
	} else {
		t.Logf("mknod not permitted (%v): the in-run device case is not exercised", err)
	}

	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.Symlink("/dev/zero", corpus); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRegularFile(corpus, MaxInputFileBytes); done <- err }()
	select {
	case err := <-done:
		wantErr(t, err, "corpus.jsonl", "character device")
	case <-time.After(20 * time.Second):
		t.Fatal("ReadRegularFile(/dev/zero) did not return")
	}
}

// TestLimits: a line past MaxLineBytes names the file, line and limit; a file past its limit
// while being read does too.
func TestLimits(t *testing.T) {
	long := bytes.Repeat([]byte("x"), MaxLineBytes+10)
	_, err := ParseRows("big.jsonl", "other", append(append([]byte("{}\n"), long...), '\n'))
	wantErr(t, err, "big.jsonl:2", "line longer than the limit", fmt.Sprint(MaxLineBytes))
	var le *LimitError
	if _, isVerify := err.(*VerifyError); !isVerify || !errors.As(err, &le) || le.Line != 2 {
		t.Fatalf("want a VerifyError caused by a LimitError at line 2, got %#v", err)
	}

	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(p, bytes.Repeat([]byte("y\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadRegularFile(p, 50)
	wantErr(t, err, "c.jsonl", "file larger than the limit of 50 bytes")
	if b, err := ReadRegularFile(p, 200); err != nil || len(b) != 200 {
		t.Fatalf("under the limit: %d bytes, %v", len(b), err)
	}
}

// TestManifestIsConfined: a manifest.json symlinked out of the run directory is refused like
// a listed file that leaves it.
func TestManifestIsConfined(t *testing.T) {
	dir := fixtureCopy(t)
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, ManifestFile))
	if err := os.Symlink(outside, filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{})
	wantErr(t, err, ManifestFile, "symlink out of the run directory")

	// A symlink to a file inside the run is fine.
	inside := filepath.Join(dir, ".manifest-copy.json")
	if err := os.WriteFile(inside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, ManifestFile))
	if err := os.Symlink(inside, filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatalf("manifest symlinked inside the run: %v", err)
	}
}

// TestInvalidUTF8: a stray byte in a row or the manifest is refused at its line.
func TestInvalidUTF8(t *testing.T) {
	dir := fixtureCopy(t)
	rewrite(t, dir, Trials, func(lines [][]byte) [][]byte {
		lines[1] = bytes.Replace(lines[1], []byte(`"response_text": "`), []byte("\"response_text\": \"\xff"), 1)
		return lines
	})
	_, err := Open(dir, Options{})
	wantErr(t, err, "trials.jsonl:2", "invalid UTF-8", "0xff")

	_, _, err = ParseManifest("m.json", []byte("{\n\"status\": \"completed\xc3\"}"))
	wantErr(t, err, "m.json:2", "invalid UTF-8")
}

// TestTrialRowChecks: a trial recorded twice, block indexes out of range and a trial naming
// a case the run has no rows for are refused at their line and field.
func TestTrialRowChecks(t *testing.T) {
	t.Run("duplicate trial", func(t *testing.T) {
		dir := fixtureCopy(t)
		rewrite(t, dir, Trials, func(lines [][]byte) [][]byte { return append(lines, lines[0]) })
		_, err := Open(dir, Options{Streaming: true})
		wantErr(t, err, "trials.jsonl:", "field metadata.core.trial_id", "the same trial as line 1")
	})
	t.Run("duplicate trial without trial_id", func(t *testing.T) {
		dir := fixtureCopy(t)
		rewrite(t, dir, Trials, func(lines [][]byte) [][]byte {
			strip := func(m map[string]any) { delete(m["metadata"].(map[string]any)["core"].(map[string]any), "trial_id") }
			lines[0] = reencode(t, lines[0], strip)
			return append(lines, reencode(t, lines[0], strip))
		})
		_, err := Open(dir, Options{})
		wantErr(t, err, "field probe_id", "the same trial as line 1")
	})
	for _, v := range []string{"-5", "9223372036854775807", fmt.Sprint(MaxBlockIndex + 1)} {
		t.Run("block_index "+v, func(t *testing.T) {
			dir := fixtureCopy(t)
			rewrite(t, dir, MemoryStates, func(lines [][]byte) [][]byte {
				lines[0] = reencode(t, lines[0], nil)
				lines[0] = bytes.Replace(lines[0], []byte(`"block_index":`), []byte(`"block_index":`+v+`,"x_old_block_index":`), 1)
				return lines
			})
			_, err := Open(dir, Options{})
			wantErr(t, err, "memory_states.jsonl:1", "field block_index", "out of range")
		})
	}
	t.Run("unknown case", func(t *testing.T) {
		dir := fixtureCopy(t)
		rewrite(t, dir, Trials, func(lines [][]byte) [][]byte {
			lines[0] = reencode(t, lines[0], func(m map[string]any) { m["case_id"] = "no_such_case" })
			return lines
		})
		_, err := Open(dir, Options{})
		wantErr(t, err, "trials.jsonl:1", "field case_id", `"no_such_case" has no memory`)
	})
}
