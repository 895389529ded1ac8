package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// TestReferenceLoaderStoresEveryRowAndChecksHashes loads the fixture run: every listed row is
// stored as its line, and a file whose bytes differ from the manifest's sha256 is refused.
func TestReferenceLoaderStoresEveryRowAndChecksHashes(t *testing.T) {
	ctx := context.Background()
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: builtinCases(t), freeText: true})
	db := filepath.Join(t.TempDir(), "ref.db")
	got, err := RunReferenceLoader(ctx, dir, db)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, rundir.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	_, entries, err := rundir.ParseManifest("manifest.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range entries {
		want += e.Rows
	}
	if got.Rows != want || got.Files != len(entries) || want == 0 {
		t.Errorf("stored %d rows of %d files; the manifest lists %d rows in %d files", got.Rows, got.Files, want, len(entries))
	}
	if _, err := RunReferenceLoader(ctx, dir, db); err == nil {
		t.Error("loading into an existing database was accepted")
	}
	p := filepath.Join(dir, "trials.jsonl")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunReferenceLoader(ctx, dir, filepath.Join(t.TempDir(), "ref2.db")); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a changed file: %v, want a sha256 refusal", err)
	}
}
