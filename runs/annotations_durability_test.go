package runs

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
)

// Durability: each save is its own committed transaction, so a process killed mid-session
// keeps every label it reported saved, and two processes saving into one workspace at the
// same time lose nothing. The writers are this test binary re-executed in helper mode
// (TestAnnotationWriterProcess); the parent synchronises on the lines they print, never on
// sleeps.

const (
	envMemory    = "EALSCOPE_ANNOTATION_MEMORY"
	envState     = "EALSCOPE_ANNOTATION_STATE"
	envPrefix    = "EALSCOPE_ANNOTATION_PREFIX"
	envCount     = "EALSCOPE_ANNOTATION_COUNT"
	envWaitForGo = "EALSCOPE_ANNOTATION_WAIT"
)

// TestAnnotationWriterProcess is not a test of its own: started as a helper by the
// durability tests, it saves labels on one memory (annotator <prefix>-<i>, every fifth one
// accepted so re-derivation runs too) and prints "saved <i>" after each commit. With count 0
// it saves until killed. With envWaitForGo it prints "ready" and waits for a line on stdin
// first, so two writers start together.
func TestAnnotationWriterProcess(t *testing.T) {
	s := helperStart(t, "the durability tests")
	state, err := pyjson.DecodeTree([]byte(os.Getenv(envState)))
	if err != nil {
		helperExit(err, 2)
	}
	if os.Getenv(envWaitForGo) == "1" {
		helperAwaitGo()
	}
	n, _ := strconv.Atoi(os.Getenv(envCount))
	for i := 0; n == 0 || i < n; i++ {
		status := annotations.AnnotationSubmitted
		if i%5 == 0 {
			status = annotations.AnnotationAccepted
		}
		if _, err := s.SaveAnnotation(context.Background(), AnnotationInput{MemoryID: os.Getenv(envMemory), Annotator: fmt.Sprintf("%s-%d", os.Getenv(envPrefix), i),
			State: state, Status: status, Origin: annotations.OriginTUI}); err != nil {
			helperExit(err, 1)
		}
		fmt.Printf("saved %d\n", i) // stdout is a pipe: unbuffered writes, one line per commit
	}
	s.Close()
	os.Exit(0)
}

func startWriter(t *testing.T, f annotationFixture, prefix string, count int, wait bool) *writerProc {
	t.Helper()
	state := pyjson.MustCanonicalJSON(ledgerState(t, f.c, f.mem.BlockIndex))
	env := []string{envMemory + "=" + f.mem.MemoryID, envState + "=" + state, envPrefix + "=" + prefix, envCount + "=" + strconv.Itoa(count)}
	if wait {
		env = append(env, envWaitForGo+"=1")
	}
	return startHelper(t, "TestAnnotationWriterProcess", f.path, env...)
}

func labelCount(t *testing.T, s *Store, prefix string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM annotations WHERE annotator LIKE ?`, prefix+"-%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAnnotationSurvivesSIGKILL kills a writer with SIGKILL after it reported 25 saves (it
// keeps saving meanwhile, so the kill lands mid-session, usually mid-transaction): the
// database passes integrity_check and every label reported saved is there, intact.
func TestAnnotationSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the subprocess durability test")
	}
	f := newAnnotationFixture(t)
	f.s.Close() // the writer owns the workspace while it runs
	w := startWriter(t, f, "killed", 0, false)
	const reported = 25
	for i := 0; i < reported; i++ {
		if got := w.next(t); got != fmt.Sprintf("saved %d", i) {
			t.Fatalf("line %d: %q", i, got)
		}
	}
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.cmd.Wait()

	s := mustOpen(t, f.path)
	defer s.Close()
	requireIntegrity(t, s, "after SIGKILL")
	if n := labelCount(t, s, "killed"); n < reported {
		t.Fatalf("%d labels after the kill, %d were reported saved", n, reported)
	}
	want := pyjson.MustCanonicalJSON(ledgerState(t, f.c, f.mem.BlockIndex))
	labels, err := s.Annotations(context.Background(), f.mem.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range labels {
		seen[l.Annotator] = true
		if pyjson.MustCanonicalJSON(l.State) != want || l.SourceContentHash != f.mem.ContentHash || l.Stale {
			t.Fatalf("label %s damaged: %+v", l.Annotator, l)
		}
	}
	for i := 0; i < reported; i++ {
		if !seen[fmt.Sprintf("killed-%d", i)] {
			t.Fatalf("label killed-%d was reported saved but is missing", i)
		}
	}
	// The accepted labels (identical states) score the memory; derived rows are consistent.
	if got := scoreAt(t, s, f.mem.MemoryID, f.mem.BlockIndex); got.scoredFrom != annotations.ScoredFreeTextAnnotation {
		t.Fatalf("after the kill: %+v", got)
	}
}

// TestAnnotationConcurrentWriters runs two writer processes saving 40 labels each into the
// same workspace at the same moment: all 80 are stored.
func TestAnnotationConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the subprocess durability test")
	}
	f := newAnnotationFixture(t)
	const each = 40
	a := startWriter(t, f, "one", each, true)
	b := startWriter(t, f, "two", each, true)
	for _, w := range []*writerProc{a, b} {
		if got := w.next(t); got != "ready" {
			t.Fatalf("writer said %q", got)
		}
	}
	for _, w := range []*writerProc{a, b} {
		io.WriteString(w.stdin, "go\n")
	}
	for _, w := range []*writerProc{a, b} {
		for i := 0; i < each; i++ {
			w.next(t)
		}
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	if n1, n2 := labelCount(t, f.s, "one"), labelCount(t, f.s, "two"); n1 != each || n2 != each {
		t.Fatalf("stored %d + %d labels, want %d + %d", n1, n2, each, each)
	}
	requireIntegrity(t, f.s, "after both writers")
}
