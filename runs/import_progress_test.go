package runs

import (
	"context"
	"path/filepath"
	"testing"
)

// TestImportReportsRows: a run directory's import reports the rows written as it goes, each
// count larger than the last, against the rows its manifest lists.
func TestImportReportsRows(t *testing.T) {
	old := rowProgressEvery
	rowProgressEvery = 50
	t.Cleanup(func() { rowProgressEvery = old })
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: builtinCases(t), freeText: true})
	s, _ := openStore(t)
	var seen []int
	listedSeen := 0
	_, err := s.Import(context.Background(), []string{dir}, ImportOptions{RowProgress: func(path string, written, listed int) {
		seen = append(seen, written)
		listedSeen = listed
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || listedSeen == 0 {
		t.Fatalf("row progress %v (listed %d)", seen, listedSeen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("row counts do not grow: %v", seen)
		}
	}
}
