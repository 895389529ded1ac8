package storecontract

import (
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// openSQLite is a fresh SQLite workspace in the test's temporary directory.
func openSQLite(t *testing.T) Backend {
	t.Helper()
	s, err := runs.Open(filepath.Join(t.TempDir(), "workspace.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSQLiteStoreHonoursTheContract(t *testing.T) { Run(t, openSQLite) }
