package rundir

import (
	"path/filepath"
	"testing"
)

// TestReopenKeepsHashesHonest: a cancelled run is reopened with one row dropped, appended to
// and finished; the result verifies (sha256 and row counts cover old and new rows).
func TestReopenKeepsHashesHonest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w := faultsRun(t, dir, 3)
	if err := w.AppendRaw(Calls, []byte(`{"ts": "x", "call_id": "c1"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(StatusCancelled, nil); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, Options{AllowIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err = Reopen(run, func(name string, r Row) bool { return !(name == Faults && r.Str("fault_id") == "f1") })
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Faults, fault(9)); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	run, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range run.Files[Faults] {
		ids = append(ids, r.Str("fault_id"))
	}
	if len(ids) != 3 || ids[0] != "f0" || ids[1] != "f2" || ids[2] != "f9" || len(run.Files[Calls]) != 1 {
		t.Fatalf("rows after reopen: %v, calls %d", ids, len(run.Files[Calls]))
	}
}

// faultsRun creates a procurement run at dir and appends n fault rows (f0, f1, ...), not yet
// committed.
func faultsRun(t *testing.T, dir string, n int) *Writer {
	t.Helper()
	w, err := Create(dir, map[string]any{"domain_id": "procurement"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Append(Faults, fault(i)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func fault(i int) FaultRow {
	return FaultRow{
		FaultID: "f" + string(rune('0'+i)), Family: "missing_record", DomainID: "procurement", CaseID: "c", ConditionID: "incremental_typed",
		AuthorizationID: "auth_a", Field: "__record__", Description: "test", ChainID: "chain_x", MemoryID: "mem_x", SchemaVersion: 1,
	}
}
