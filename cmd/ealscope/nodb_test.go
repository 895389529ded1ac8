package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyCommandsRefuseAMissingWorkspace: a mistyped --db is reported, naming the file
// and how to make a workspace, and nothing is created (neither the file nor its folders).
func TestReadOnlyCommandsRefuseAMissingWorkspace(t *testing.T) {
	tmp := t.TempDir()
	state := writeFile(t, filepath.Join(tmp, "state.json"), []byte(`{"schema_version": "3", "authorizations": []}`))
	db := filepath.Join(tmp, "typo", "workspace.db")
	for _, args := range [][]string{
		{"summary"},
		{"render", "--case", "c", "--condition", "incremental_typed", "--block", "0"},
		{"replay", "--case", "c", "--condition", "incremental_typed", "--probe", "all"},
		{"open", "--case", "c", "--condition", "incremental_typed"},
		{"annotate", "agreement"},
		{"annotate", "export", "--run", "r", "--out", filepath.Join(tmp, "out")},
		{"annotate", "set", "--memory", "m", "--annotator", "a", "--state", state},
		{"annotate", "import", filepath.Join(tmp, "none")},
	} {
		_, errs, code := runCLI(t, append(args, "--db", db)...)
		if code == 0 || !strings.Contains(errs, db) || !strings.Contains(errs, "does not exist") || !strings.Contains(errs, "ealscope demo") {
			t.Errorf("%v with a missing --db: exit %d, stderr %q", args, code, errs)
		}
		if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
			t.Fatalf("%v created %s", args, filepath.Dir(db))
		}
	}
}
