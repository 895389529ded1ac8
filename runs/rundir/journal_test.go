package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverCutsToTheLastCommit: a run stopped without Finish (the writer abandoned as a
// kill leaves it) keeps a journal; Recover cuts a torn last line and an uncommitted
// complete one back to the last Commit, removes a file no commit knows, lists the rest in
// the manifest, and the result verifies and reopens. A live writer's run is refused, and so
// is a run without a journal.
func TestRecoverCutsToTheLastCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := faultsRun(t, dir, 2)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "another ealscope process is writing this run") {
		t.Fatalf("recover under a live writer: %v", err)
	}
	// After the commit: one complete row, a row cut mid-way (as a full disk leaves it) and
	// a file created but never committed.
	if err := w.Append(Faults, fault(2)); err != nil {
		t.Fatal(err)
	}
	w.files[Faults].buf.Flush()
	f, _ := os.OpenFile(filepath.Join(dir, "faults.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"fault_id": "f3", "fam`)
	f.Close()
	os.WriteFile(filepath.Join(dir, "trials.jsonl"), []byte("{\"torn\": tr"), 0o644)
	w.journal.Close() // the process died: its lock goes with it
	rec, err := Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Dropped[Faults] == 0 || rec.Dropped[Trials] == 0 {
		t.Errorf("dropped %v", rec.Dropped)
	}
	run, err := Open(dir, Options{AllowIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != StatusCancelled || len(run.Files[Faults]) != 2 || len(run.Unknown) != 0 {
		t.Fatalf("status %s, %d faults, unknown %v", run.Status, len(run.Files[Faults]), run.Unknown)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalFile)); !os.IsNotExist(err) {
		t.Errorf("journal left after recovery: %v", err)
	}
	if rec, err := Recover(dir); rec != nil || err != nil {
		t.Errorf("a listed run recovered again: %v %v", rec, err)
	}
	w, err = Reopen(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}

	bare := filepath.Join(t.TempDir(), "run")
	w, err = Create(bare, map[string]any{"domain_id": "procurement"})
	if err != nil {
		t.Fatal(err)
	}
	w.journal.Close()
	os.Remove(filepath.Join(bare, JournalFile))
	if _, err := Recover(bare); err == nil || !strings.Contains(err.Error(), "cannot be resumed") {
		t.Fatalf("recover without a journal: %v", err)
	}
}
