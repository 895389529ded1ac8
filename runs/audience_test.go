package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/multiparty"
)

func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCorpusSidecarImport: a corpus imports with the sidecar beside it; a bad sidecar is an
// error naming the file, case and field, and the workspace keeps neither corpus nor sidecar.
func TestCorpusSidecarImport(t *testing.T) {
	mp, err := multiparty.Builtin("procurement")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "mp.jsonl")
	if err := os.WriteFile(corpus, mp.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(mp.SidecarData), `"visibility": "private"`, `"visibility": "secret"`, 1)
	if err := os.WriteFile(multiparty.SidecarName(corpus), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(t)
	_, err = s.Import(context.Background(), []string{corpus}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "mp.audience.json") || !strings.Contains(err.Error(), "case ") || !strings.Contains(err.Error(), "visibility") {
		t.Fatalf("bad sidecar: %v", err)
	}
	for _, table := range []string{"cases", "corpora", "audience_sidecars"} {
		if n := countRows(t, s, table); n != 0 {
			t.Errorf("after a refused sidecar %s holds %d rows", table, n)
		}
	}
	if err := os.WriteFile(multiparty.SidecarName(corpus), mp.SidecarData, 0o644); err != nil {
		t.Fatal(err)
	}
	importOne(t, s, corpus)
	if n := countRows(t, s, "audience_sidecars"); n != 1 {
		t.Errorf("audience_sidecars: %d rows, want 1", n)
	}
	if n := countRows(t, s, "cases"); n != len(mp.Cases) {
		t.Errorf("cases: %d rows, want %d", n, len(mp.Cases))
	}
}
