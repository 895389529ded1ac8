package main

import (
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// TestBenchImport runs `bench import` on a tiny generated run and checks its figures against
// the run it kept: the reference loader stored every listed row, ealscope wrote at least those
// (plus the corpus and derived rows), and the ratio is the quotient of the best times.
func TestBenchImport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bench")
	var res benchImportResult
	runJSON(t, &res, "bench", "import", "--cases", "2", "--conditions", "faithful_typed,incremental_typed", "--repeat", "2", "--dir", dir, "--json")
	kept, err := rundir.Open(filepath.Join(dir, "run"), rundir.Options{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, e := range kept.Entries {
		listed += e.Rows
	}
	if res.Reference.Rows != listed || res.RunRows != listed {
		t.Errorf("reference loader stored %d rows (run_rows %d), the manifest lists %d", res.Reference.Rows, res.RunRows, listed)
	}
	if res.Ealscope.Rows <= listed {
		t.Errorf("ealscope wrote %d rows, not more than the %d raw rows", res.Ealscope.Rows, listed)
	}
	if len(res.Ealscope.Seconds) != 2 || len(res.Reference.Seconds) != 2 {
		t.Errorf("timings: %v and %v, want 2 each", res.Ealscope.Seconds, res.Reference.Seconds)
	}
	if want := res.Ealscope.Best / res.Reference.Best; res.Ratio != want || want <= 0 {
		t.Errorf("ratio %v, want %v", res.Ratio, want)
	}
	// A second call reuses the kept run.
	var again benchImportResult
	runJSON(t, &again, "bench", "import", "--dir", dir, "--repeat", "1", "--json")
	if again.Cases != 2 || again.RunRows != listed {
		t.Errorf("reused run: %d cases, %d rows; want 2 and %d", again.Cases, again.RunRows, listed)
	}
}
