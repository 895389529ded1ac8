package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ealscope/ealscope/replay"
)

// Atomicity of a run's import against a killed process: the import writes the whole run in
// one transaction, so SIGKILL in the middle of it leaves no trace of the run. The importer is
// this test binary re-executed in helper mode (TestImportKilledProcess), which stops inside
// the transaction once it has written rows and says so; the parent kills it on that line,
// never on a timer.

// TestImportKilledProcess is not a test of its own: started as a helper by
// TestImportSIGKILLLeavesNoRun, it imports the run and, at the first progress report (rows
// written inside the open transaction), prints "writing <rows>" and waits to be killed.
func TestImportKilledProcess(t *testing.T) {
	s := helperStart(t, "TestImportSIGKILLLeavesNoRun")
	rowProgressEvery = 50
	_, err := s.Import(context.Background(), []string{os.Getenv(envHelperRun)}, ImportOptions{RowProgress: func(_ string, written, _ int) {
		fmt.Printf("writing %d\n", written)
		select {} // inside the run's transaction, until killed
	}})
	fmt.Println("error: the import ended before it was killed:", err)
	os.Exit(1)
}

func TestImportSIGKILLLeavesNoRun(t *testing.T) {
	tmp := t.TempDir()
	run := filepath.Join(tmp, "run")
	scriptedRun(t, run, replay.BuiltinCorpus, nil, "faithful_typed,incremental_typed")
	db := filepath.Join(tmp, "ws.db")
	s := mustOpen(t, db)
	s.Close()
	p := startHelper(t, "TestImportKilledProcess", db, envHelperRun+"="+run)
	line := p.next(t)
	if !strings.HasPrefix(line, "writing ") {
		t.Fatalf("helper said %q", line)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()

	s, err := Open(db)
	if err != nil {
		t.Fatalf("the workspace does not open after the kill: %v", err)
	}
	defer s.Close()
	requireIntegrity(t, s, "after SIGKILL")
	for _, table := range []string{"runs", "chains", "memories", "attempts", "states", "evidence", "trials", "model_contexts", "calls", "executor_plan", "faults", "chain_blocks"} {
		var n int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s has %d rows after the killed import (%s)", table, n, line)
		}
	}
	// The same run imports whole afterwards.
	if r := importOne(t, s, run); r.Status != StatusImported || r.Rows["trials"] == 0 {
		t.Fatalf("re-import after the kill: %+v", r)
	}
}
