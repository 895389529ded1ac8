package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ealscope/ealscope/replay"
)

// Concurrent use of one workspace: imports, annotators and a re-run all write; none may fail
// with "database is locked" or lose a row. The other writers are this test binary
// re-executed (TestImportProcess here, TestAnnotationWriterProcess for annotators); the
// parent synchronises on the lines they print, never on sleeps.

// TestImportProcess is not a test of its own: started as a helper by TestConcurrentWriters,
// it prints "ready", waits for a line on stdin and imports one run.
func TestImportProcess(t *testing.T) {
	s := helperStart(t, "TestConcurrentWriters")
	helperAwaitGo()
	rep, err := s.Import(context.Background(), []string{os.Getenv(envHelperRun)}, ImportOptions{})
	if err != nil {
		helperExit(err, 1)
	}
	fmt.Println("imported", rep.Results[0].RunID)
	s.Close()
	os.Exit(0)
}

func startImporter(t *testing.T, db, run string) *writerProc {
	t.Helper()
	return startHelper(t, "TestImportProcess", db, envHelperRun+"="+run)
}

// TestConcurrentWriters: two import processes and two annotator processes start at the same
// moment against one workspace (a re-run storing its arms meanwhile is replay/workbench's
// TestRerunWhileImporting). Every one succeeds (waiting for
// the others where it must), PRAGMA integrity_check is ok, and every row each reported saved
// is present.
func TestConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the subprocess concurrency test")
	}
	f := newAnnotationFixture(t)
	cases := builtinCases(t)
	var runDirs []string
	for i, ids := range [][]string{{cases[2].ID, cases[3].ID}, {cases[4].ID, cases[5].ID}} {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("run%d", i))
		scriptedRun(t, dir, replay.BuiltinCorpus, ids, "all")
		runDirs = append(runDirs, dir)
	}

	const labels = 20
	var procs []*writerProc
	for _, dir := range runDirs {
		procs = append(procs, startImporter(t, f.path, dir))
	}
	annotators := []*writerProc{startWriter(t, f, "one", labels, true), startWriter(t, f, "two", labels, true)}
	procs = append(procs, annotators...)
	for _, p := range procs {
		if got := p.next(t); got != "ready" {
			t.Fatalf("helper said %q", got)
		}
	}
	for _, p := range procs {
		io.WriteString(p.stdin, "go\n")
	}
	var imported []string
	for i, p := range procs {
		n := 1
		if i >= len(runDirs) {
			n = labels
		}
		for j := 0; j < n; j++ {
			line := p.next(t)
			if i < len(runDirs) {
				imported = append(imported, line)
			}
		}
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v", i, err)
		}
	}

	requireIntegrity(t, f.s, "after the concurrent writers")
	if n1, n2 := labelCount(t, f.s, "one"), labelCount(t, f.s, "two"); n1 != labels || n2 != labels {
		t.Fatalf("stored %d + %d labels, want %d + %d", n1, n2, labels, labels)
	}
	var runsStored int
	if err := f.s.db.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&runsStored); err != nil || runsStored != 3 {
		t.Fatalf("%d runs stored (%v), want the fixture's and both imports (%v)", runsStored, err, imported)
	}
}

// TestWriteWaitsThenGivesUp: a write meeting a workspace another connection holds the write
// lock of waits (the busy timeout, then beginWrite's retries), and
// past the store's write wait fails with a LockedError naming the workspace; once the lock is
// released the same write succeeds.
func TestWriteWaitsThenGivesUp(t *testing.T) {
	ctx := context.Background()
	s, path := openStore(t)
	other := mustOpen(t, path)
	defer other.Close()
	holder, err := other.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`PRAGMA busy_timeout = 100`) // one pooled connection; the retries do the rest
	s.SetWriteWait(300*time.Millisecond, nil)
	_, err = s.Import(ctx, []string{"testdata/corpus_fixture_v1.jsonl"}, ImportOptions{})
	var locked *LockedError
	if !errors.As(err, &locked) || !errors.Is(err, ErrLocked) || locked.Path != s.Path() {
		t.Fatalf("import against a held lock: %v", err)
	}
	holder.Rollback()
	if _, err := s.Import(ctx, []string{"testdata/corpus_fixture_v1.jsonl"}, ImportOptions{}); err != nil {
		t.Fatalf("import once the lock is free: %v", err)
	}
}
