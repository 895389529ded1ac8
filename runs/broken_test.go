package runs

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// copyDir copies a fixture run directory into a fresh temporary one.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editManifest applies fn to the manifest tree and rewrites manifest.json.
func editManifest(t testing.TB, dir string, fn func(m map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, rundir.ManifestFile)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	m := tree.(map[string]any)
	fn(m)
	b, err := pyjson.DumpPy(m, pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileEntry(m map[string]any, name string) map[string]any {
	return m["files"].(map[string]any)[name].(map[string]any)
}

// editFile rewrites an artifact and, with fixHash, records its new sha256 in the manifest so
// that the defect under test is the one verification meets.
func editFile(t testing.TB, dir, name string, fixHash bool, fn func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, name+".jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = fn(b)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if fixHash {
		editManifest(t, dir, func(m map[string]any) { fileEntry(m, name)["sha256"] = pyjson.SHA256Hex(b) })
	}
}

// editRow rewrites one row (1-based line) of an artifact through its JSON tree.
func editRow(t testing.TB, dir, name string, line int, fn func(row map[string]any)) {
	t.Helper()
	editFile(t, dir, name, true, func(b []byte) []byte {
		lines := bytes.Split(b, []byte("\n"))
		tree, err := pyjson.DecodeTree(lines[line-1])
		if err != nil {
			t.Fatal(err)
		}
		fn(tree.(map[string]any))
		out, err := pyjson.RowLine(tree)
		if err != nil {
			t.Fatal(err)
		}
		lines[line-1] = bytes.TrimSuffix(out, []byte("\n"))
		return bytes.Join(lines, []byte("\n"))
	})
}

func TestBrokenInputs(t *testing.T) {
	const fixture = "testdata/eal_run"
	tests := []struct {
		name string
		// breakIt damages a copy of the fixture.
		breakIt func(t *testing.T, dir string)
		// want are substrings the error must contain: the file, the line, the field.
		want []string
	}{
		{"truncated line", func(t *testing.T, dir string) {
			editFile(t, dir, "trials", true, func(b []byte) []byte { return b[:len(b)-40] })
		}, []string{"trials.jsonl:12", "truncated line"}},
		{"bad JSON", func(t *testing.T, dir string) {
			editFile(t, dir, "memories", true, func(b []byte) []byte {
				lines := bytes.SplitN(b, []byte("\n"), 3)
				return bytes.Join([][]byte{lines[0], []byte(`{"memory_id": "mem_x", oops}`), lines[2]}, []byte("\n"))
			})
		}, []string{"memories.jsonl:2", "invalid JSON"}},
		{"wrong hash", func(t *testing.T, dir string) {
			editFile(t, dir, "evidence", false, func(b []byte) []byte {
				return bytes.Replace(b, []byte("naturalistic_v1"), []byte("naturalistic_v2"), 1)
			})
		}, []string{"evidence.jsonl", "field files.evidence.sha256", "file sha256 is", "manifest.json says"}},
		{"wrong row count", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { fileEntry(m, "trials")["rows"] = 13 })
		}, []string{"trials.jsonl", "field files.trials.rows", "12 rows", "says 13"}},
		{"unknown schema_version", func(t *testing.T, dir string) {
			editRow(t, dir, "trials", 3, func(r map[string]any) { r["schema_version"] = 6 })
		}, []string{"trials.jsonl:3", "field schema_version", "unknown schema_version 6"}},
		{"dangling reference", func(t *testing.T, dir string) {
			editRow(t, dir, "trials", 2, func(r map[string]any) { r["evidence_id"] = "evidence_nowhere" })
		}, []string{"trials.jsonl:2", "field evidence_id", `"evidence_nowhere" is not in evidence.jsonl`}},
		{"dangling parent", func(t *testing.T, dir string) {
			editRow(t, dir, "memories", 3, func(r map[string]any) { r["parent_memory_id"] = "mem_gone" })
		}, []string{"memories.jsonl:3", "field parent_memory_id", "mem_gone"}},
		{"memory content hash", func(t *testing.T, dir string) {
			editRow(t, dir, "memories", 1, func(r map[string]any) { r["content_hash"] = strings.Repeat("0", 64) })
		}, []string{"memories.jsonl:1", "field content_hash", "payload hashes to"}},
		{"bad decision", func(t *testing.T, dir string) {
			editRow(t, dir, "trials", 4, func(r map[string]any) { r["decision"] = "maybe" })
		}, []string{"trials.jsonl:4", "field decision", `unknown decision "maybe"`}},
		{"path with ..", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { fileEntry(m, "trials")["path"] = "../trials.jsonl" })
		}, []string{"manifest.json", "field files.trials.path", "leaves the run directory"}},
		{"absolute path", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { fileEntry(m, "trials")["path"] = "/etc/passwd" })
		}, []string{"manifest.json", "field files.trials.path", "absolute path"}},
		{"symlink out of the run", func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "trials.jsonl")
			if err := os.Rename(filepath.Join(dir, "trials.jsonl"), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "trials.jsonl")); err != nil {
				t.Skip("symlinks unavailable:", err)
			}
		}, []string{"manifest.json", "field files.trials.path", "symlink out of the run directory"}},
		{"missing file", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "memory_states.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, []string{"manifest.json", "field files.memory_states", "missing from the run directory: memory_states.jsonl"}},
		{"incomplete manifest", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { m["status"] = "running" })
		}, []string{"manifest.json", "field status", `"running"`, "--allow-incomplete"}},
		{"manifest not JSON", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{\"status\": \"completed\",\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"manifest.json", "invalid JSON"}},
		{"block past the case", func(t *testing.T, dir string) {
			editRow(t, dir, "memory_states", 1, func(r map[string]any) { r["block_index"] = 500 })
		}, []string{"memory_states.jsonl:1", "field block_index", "is not a block of case"}},
		{"no domain", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { delete(m, "domain_id") })
		}, []string{"manifest.json", "field domain_id", "missing"}},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dbPath, before := workspaceWithOneRun(t)
			dir := copyDir(t, fixture)
			tc.breakIt(t, dir)
			s := mustOpen(t, dbPath)
			_, err := s.Import(ctx, []string{dir}, ImportOptions{})
			if err == nil {
				s.Close()
				t.Fatal("the broken run was imported")
			}
			checkRefusedImport(t, s, err, dbPath, before, tc.want)
		})
	}
}

// workspaceWithOneRun creates a workspace that already holds a run (the v1 fixture), so
// "unchanged" is not trivially empty, and returns its path and its file's sha256.
func workspaceWithOneRun(t *testing.T) (dbPath, sha string) {
	t.Helper()
	dbPath = filepath.Join(t.TempDir(), "workspace.db")
	s := mustOpen(t, dbPath)
	if _, err := s.Import(context.Background(), []string{copyDir(t, "testdata/eal_run_fixture_v1")}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dbPath, fileSHA(t, dbPath)
}

// checkRefusedImport checks what a refused import left: err names every want and is a
// *rundir.VerifyError, the workspace (s, which it closes) still holds its one run, and its
// file at dbPath still has the sha256 before.
func checkRefusedImport(t *testing.T, s *Store, err error, dbPath, before string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	var ve *rundir.VerifyError
	if !errors.As(err, &ve) {
		t.Errorf("error %T is not a *rundir.VerifyError", err)
	}
	runsNow, _ := s.Runs(context.Background())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(runsNow) != 1 {
		t.Errorf("%d runs after the failed import", len(runsNow))
	}
	if after := fileSHA(t, dbPath); after != before {
		t.Errorf("the database file changed: %s -> %s", before, after)
	}
}
