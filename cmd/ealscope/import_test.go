package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// fixtureRunAndWorkspace copies the runs package's EAL-Bench-shaped fixture run into a
// temporary folder and names a workspace beside it (not created yet).
func fixtureRunAndWorkspace(t *testing.T) (db, dir string) {
	t.Helper()
	return filepath.Join(t.TempDir(), "ws.db"), copyRun(t, "../../runs/testdata/eal_run")
}

func TestImportAndSummary(t *testing.T) {
	db, dir := fixtureRunAndWorkspace(t)
	var rep struct {
		Results []runs.PathResult `json:"results"`
	}
	out := runJSON(t, &rep, "import", dir, "--db", db, "--json")
	assertJSONKeys(t, "import --json", out, "results", "status", "run_id", "rows", "unknown_files", "rescore_disagreements", "missing_corpora")
	if len(rep.Results) != 1 || rep.Results[0].Status != "imported" || rep.Results[0].Rows["trials"] != 12 || len(rep.Results[0].Unknown) != 1 {
		t.Fatalf("%+v", rep)
	}
	if text := runOK(t, "import", dir, "--db", db); !strings.Contains(text, "already imported") {
		t.Errorf("text report: %s", text)
	}

	summary := func(args ...string) string {
		t.Helper()
		return runOK(t, append([]string{"summary", "--db", db}, args...)...)
	}
	a, b := summary("--json"), summary("--json", "--run", rep.Results[0].RunID[:6])
	if a != b {
		t.Fatalf("summary differs between calls:\n%s\n%s", a, b)
	}
	var doc map[string][]map[string]any
	if err := json.Unmarshal([]byte(a), &doc); err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string][]string{
		"runs":     {"run_id", "domain_id", "study", "status", "imported_from", "counts", "decisions", "metrics", "estimable", "rescore_disagreements", "model_calls"},
		"chains":   {"run_id", "case_id", "condition_id", "writer", "writer_run_id", "architecture", "first_false_authority_block", "unauthorized_actions", "attributed_memory_induced"},
		"memories": {"memory_id", "run_id", "case_id", "condition_id", "writer", "writer_run_id", "block_index", "architecture", "content_hash", "exact", "errors", "formed_probe_ids", "forms_false_authority", "scored_from", "unscored_reason"},
	}
	for section, keys := range wantKeys {
		if len(doc[section]) == 0 {
			t.Fatalf("no %s", section)
		}
		got := doc[section][0]
		if len(got) != len(keys) {
			t.Errorf("%s keys: %v", section, got)
		}
		for _, k := range keys {
			if _, ok := got[k]; !ok {
				t.Errorf("%s lacks %s", section, k)
			}
		}
	}
	text := summary("--run", rep.Results[0].RunID) // the detail; without --run, a few lines per run
	for _, w := range []string{"RUNS", "CHAINS", "MEMORIES", "ealscope_v1_hvac_contractor", "incremental_typed"} {
		if !strings.Contains(text, w) {
			t.Errorf("text summary lacks %q:\n%s", w, text)
		}
	}
}

func TestImportBrokenRunFails(t *testing.T) {
	db, dir := fixtureRunAndWorkspace(t)
	if err := os.Remove(filepath.Join(dir, "trials.jsonl")); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "import", dir, "--db", db)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errs, "trials.jsonl") || !strings.Contains(errs, "files.trials") {
		t.Errorf("stderr: %s", errs)
	}
}
