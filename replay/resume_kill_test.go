package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// killSettings is the run TestSIGKILLedRunResumes kills: one case, three conditions, a
// model executor on loopback.
func killSettings(t *testing.T) Settings {
	_, cases := builtinCases(t)
	return Settings{Domain: "procurement", Corpus: BuiltinCorpus, Cases: []string{cases[0].ID}, Conditions: []string{"faithful_typed", "faithful_text", "incremental_typed"},
		Writer: "scripted", Executor: "fake", WriterRuns: 1, ExecutorRuns: 1, Seed: 9, FaultRate: DefaultFaultRate}
}

func killRun(t *testing.T, url, out string) (*Summary, error) {
	t.Helper()
	opts, err := Prepare(killSettings(t), &Config{Models: map[string]Model{"fake": testModel(url)}}, fastRetry, "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Out, opts.Concurrency = out, 2
	return Run(context.Background(), opts)
}

// TestKillChild is not a test on its own: TestSIGKILLedRunResumes runs the test binary again
// with this test selected and kills it with SIGKILL while it waits for a model reply.
func TestKillChild(t *testing.T) {
	url, out := os.Getenv("EALSCOPE_KILL_CHILD_URL"), os.Getenv("EALSCOPE_KILL_CHILD_OUT")
	if url == "" {
		t.Skip("run by TestSIGKILLedRunResumes")
	}
	killRun(t, url, out)
	t.Fatal("the run ended before it was killed")
}

// TestSIGKILLedRunResumes runs a model-executor run in a child process and kills it with
// SIGKILL from inside the endpoint at its first, middle and last call; `Resume` then
// completes it, calling the endpoint only for trials not yet committed, and every file
// equals an uninterrupted run's (the timing fields aside: calls' ts and latency_ms, the
// manifest's started_at, finished_at and resumed_at).
func TestSIGKILLedRunResumes(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	srv := newFakeServer(t, act)
	if sum, err := killRun(t, srv.URL, whole); err != nil || sum.Status != rundir.StatusCompleted {
		t.Fatalf("uninterrupted run: %v", err)
	}
	planned := srv.hits()
	for _, killAt := range []int{1, planned / 2, planned} {
		t.Run(fmt.Sprintf("kill at call %d of %d", killAt, planned), func(t *testing.T) {
			out := filepath.Join(base, fmt.Sprintf("killed-%d", killAt))
			var mu sync.Mutex
			var child *exec.Cmd
			calls := 0
			exited := make(chan struct{})
			killer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				n := calls
				mu.Unlock()
				if n >= killAt {
					child.Process.Kill() // SIGKILL: no deferred code, no flush
					// No answer may reach the child before the signal does.
					<-exited
					return
				}
				srv.handle(w, r)
			}))
			defer killer.Close()
			child = exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
			child.Env = append(os.Environ(), "EALSCOPE_KILL_CHILD_URL="+killer.URL, "EALSCOPE_KILL_CHILD_OUT="+out)
			mu.Lock()
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			mu.Unlock()
			err := child.Wait()
			close(exited)
			if err == nil || child.ProcessState.String() != "signal: killed" {
				t.Fatalf("child ended with %v, not killed", err)
			}
			before := srv.hits()
			sum, err := Resume(context.Background(), out, &Config{Models: map[string]Model{"fake": testModel(srv.URL)}}, fastRetry, "test", 2, nil)
			if err != nil || sum.Status != rundir.StatusCompleted {
				t.Fatalf("resume: %v", err)
			}
			made := srv.hits() - before
			t.Logf("killed at call %d: resume made %d of %d planned calls", killAt, made, planned)
			// Killed at the last call, only the calls in flight or waiting for their turn to be
			// written (at most twice the concurrency of 2) are made again.
			if made > planned || (killAt == planned && made > 4) {
				t.Errorf("resume made %d calls of %d planned (killed at call %d)", made, planned, killAt)
			}
			sameRunFiles(t, whole, out)
			if _, err := os.Stat(filepath.Join(out, rundir.JournalFile)); !os.IsNotExist(err) {
				t.Errorf("the journal outlived the finished run: %v", err)
			}
		})
	}
}

// sameRunFiles compares two run directories file by file, timing fields aside.
func sameRunFiles(t *testing.T, want, got string) {
	t.Helper()
	names := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		sort.Strings(out)
		return out
	}
	wn, gn := names(want), names(got)
	if fmt.Sprint(wn) != fmt.Sprint(gn) {
		t.Fatalf("files %v, want %v", gn, wn)
	}
	for _, n := range wn {
		w, _ := os.ReadFile(filepath.Join(want, n))
		g, _ := os.ReadFile(filepath.Join(got, n))
		switch n {
		case "calls.jsonl":
			w, g = untimedLines(t, w), untimedLines(t, g)
		case "manifest.json":
			w, g = untimedManifest(t, w), untimedManifest(t, g)
		}
		if !bytes.Equal(w, g) {
			t.Errorf("%s differs from the uninterrupted run's (%d vs %d bytes)", n, len(g), len(w))
		}
	}
}

func untimedLines(t *testing.T, data []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatalf("calls.jsonl: %v", err)
		}
		delete(row, "ts")
		delete(row, "latency_ms")
		b, _ := json.Marshal(row)
		out = append(append(out, b...), '\n')
	}
	return out
}

func untimedManifest(t *testing.T, data []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	for _, k := range []string{"started_at", "finished_at", "resumed_at"} {
		delete(m, k)
	}
	// calls.jsonl's hash covers its timing fields; its row count must still agree.
	if files, ok := m["files"].(map[string]any); ok {
		if calls, ok := files["calls"].(map[string]any); ok {
			delete(calls, "sha256")
		}
	}
	b, _ := json.Marshal(m)
	return b
}
