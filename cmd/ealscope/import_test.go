package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyRun copies a fixture run directory of the runs package into a temporary directory.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestImportAndSummary(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.db")
	dir := copyRun(t, "../../runs/testdata/eal_run")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import", dir, "--db", db, "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("import exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Results []struct {
			Status               string         `json:"status"`
			RunID                string         `json:"run_id"`
			Rows                 map[string]int `json:"rows"`
			Unknown              []string       `json:"unknown_files"`
			RescoreDisagreements int            `json:"rescore_disagreements"`
			MissingCorpora       []any          `json:"missing_corpora"`
		} `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(rep.Results) != 1 || rep.Results[0].Status != "imported" || rep.Results[0].Rows["trials"] != 12 || len(rep.Results[0].Unknown) != 1 {
		t.Fatalf("%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"import", dir, "--db", db}, &stdout, &stderr); code != 0 {
		t.Fatalf("re-import exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "already imported") {
		t.Errorf("text report: %s", stdout.String())
	}

	summary := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append([]string{"summary", "--db", db}, args...), &out, &errb); code != 0 {
			t.Fatalf("summary exit %d: %s", code, errb.String())
		}
		return out.String()
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
		"runs":     {"run_id", "domain_id", "study", "status", "imported_from", "counts", "decisions", "metrics", "estimable", "rescore_disagreements"},
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
	text := summary()
	for _, w := range []string{"RUNS", "CHAINS", "MEMORIES", "ealscope_v1_hvac_contractor", "incremental_typed"} {
		if !strings.Contains(text, w) {
			t.Errorf("text summary lacks %q:\n%s", w, text)
		}
	}
}

func TestImportBrokenRunFails(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.db")
	dir := copyRun(t, "../../runs/testdata/eal_run")
	if err := os.Remove(filepath.Join(dir, "trials.jsonl")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import", dir, "--db", db}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stderr.String(), "trials.jsonl") || !strings.Contains(stderr.String(), "files.trials") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
