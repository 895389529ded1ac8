package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/ealref"
)

func FuzzParseManifest(f *testing.F) {
	if b, err := os.ReadFile("../testdata/eal_run/manifest.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"status": "completed", "files": {"trials": {"path": "trials.jsonl", "sha256": "` + strings.Repeat("a", 64) + `", "rows": 1}}}`))
	f.Add([]byte(`{"status": "running", "checkpoint": {"files": {"x": {"path": "../x", "sha256": "", "rows": -1}}}}`))
	f.Add([]byte(`{"status": 1, "files": []}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, entries, err := ParseManifest("manifest.json", raw)
		if err == nil && (m == nil || entries == nil) {
			t.Fatal("nil result without an error")
		}
	})
}

func FuzzParseRows(f *testing.F) {
	for _, name := range []string{"trials", "memories", "memory_states", "evidence", "calls"} {
		if b, err := os.ReadFile(filepath.Join("../testdata/eal_run", name+".jsonl")); err == nil {
			f.Add(name, b)
		}
	}
	f.Add("trials", []byte("{\"schema_version\": 5}\r\n{\"schema_version\": \"5\"}\n{"))
	f.Add("memories", []byte(`{"schema_version": 4, "payload": "x", "content_hash": "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}`))
	f.Add("memory_states", []byte(`{"schema_version": 3, "attempt_ids": [1]}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		rows, err := ParseRows("x.jsonl", name, data)
		if err != nil {
			if _, ok := err.(*VerifyError); !ok {
				t.Fatalf("error %T is not a *VerifyError", err)
			}
			return
		}
		for _, r := range rows {
			if r.Line < 1 || r.Tree == nil {
				t.Fatalf("bad row %+v", r)
			}
		}
	})
}

// TestRealManifestFileList parses EAL-Bench's published run manifest (its JSONL files are
// not published) and checks that every listed file is reported missing, clearly.
func TestRealManifestFileList(t *testing.T) {
	data := ealref.Dir(t, "the test against EAL-Bench's real run manifest")
	matches, err := filepath.Glob(filepath.Join(data, "results__cybersecurity__*__manifest.json"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("real manifest not found in %s: %v %v", data, matches, err)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{})
	if err == nil {
		t.Fatal("a run without its files verified")
	}
	msg := err.Error()
	for _, want := range []string{"manifest.json", "17 listed file(s) missing", "trials.jsonl", "writer_model_contexts.jsonl", "calls.jsonl"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	run, err := Open(dir, Options{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != StatusCompleted || len(run.Missing) != 17 || len(run.Entries) != 17 {
		t.Fatalf("status %s, %d missing, %d entries", run.Status, len(run.Missing), len(run.Entries))
	}
	if e := run.Entries["trials"]; e.Rows != 1064 || e.Path != "trials.jsonl" {
		t.Errorf("trials entry %+v", e)
	}
	if e := run.Entries["executor_plan"]; e.Rows != 1064 {
		t.Errorf("checkpoint entry %+v", e)
	}
	if run.Manifest["domain_id"] != "cybersecurity" {
		t.Errorf("domain %v", run.Manifest["domain_id"])
	}
}
