package runs

import (
	"context"
	"path/filepath"
	"testing"
)

// TestMigrationBelowHighestApplied: migrations are numbered in reserved ranges, so one can land
// below a workspace's highest version (0161 after 0190). A workspace that has every migration
// but that one gets it when opened.
func TestMigrationBelowHighestApplied(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	s := mustOpen(t, path)
	// The workspace as a binary without 0161 left it: the highest version is above 161.
	for _, q := range []string{`DROP TABLE audience_lab_contexts`, `DROP TABLE audience_labs`, `DELETE FROM schema_migrations WHERE version = 161`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := s.SchemaVersion(ctx); v <= 161 {
		t.Fatalf("the workspace is at %d: the test needs a migration above 161", v)
	}
	s.Close()
	s = mustOpen(t, path)
	defer s.Close()
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name IN ('audience_labs', 'audience_lab_contexts')`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after reopening: %d of the 0161 tables, %v", n, err)
	}
	if _, ok, err := s.StoredAudienceLab(ctx, "nope"); err == nil || ok {
		t.Fatalf("an unknown run: ok=%v, %v", ok, err)
	}
}
