package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// fixtureCopy copies runs/testdata/eal_run into a temporary directory.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../testdata/eal_run")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// rewrite replaces an artifact and records its new sha256 and row count in the manifest, so
// that what verification meets is the rows themselves.
func rewrite(t *testing.T, dir, name string, fn func(lines [][]byte) [][]byte) {
	t.Helper()
	p := filepath.Join(dir, name+".jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := fn(bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")))
	out := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, ManifestFile)
	raw, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	e := tree.(map[string]any)["files"].(map[string]any)[name].(map[string]any)
	e["sha256"], e["rows"] = pyjson.SHA256Hex(out), len(lines)
	mb, err := pyjson.DumpPy(tree, pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, mb, 0o644); err != nil {
		t.Fatal(err)
	}
}

func reencode(t *testing.T, line []byte, edit func(map[string]any)) []byte {
	t.Helper()
	tree, err := pyjson.DecodeTree(line)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(tree.(map[string]any))
	}
	b, err := pyjson.DumpPy(tree, pyjson.Canonical) // sorted keys, no spaces: other bytes, same content
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRepeatedIDs: a repeated id is tolerated when the rows are the same (byte for byte, or
// as canonical JSON) and refused, at the repeating line, when they differ, kept or streamed.
func TestRepeatedIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		line func(t *testing.T, first []byte) []byte
		want string
	}{
		{"byte-identical", func(t *testing.T, first []byte) []byte { return first }, ""},
		{"same content, other bytes", func(t *testing.T, first []byte) []byte { return reencode(t, first, nil) }, ""},
		{"different content", func(t *testing.T, first []byte) []byte {
			return reencode(t, first, func(m map[string]any) { m["origin"] = "writer" })
		}, "memories.jsonl:5: field memory_id: memory_id"},
	} {
		for _, streaming := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				dir := fixtureCopy(t)
				rewrite(t, dir, Memories, func(lines [][]byte) [][]byte { return append(lines, tc.line(t, lines[0])) })
				run, err := Open(dir, Options{Streaming: streaming})
				if tc.want != "" {
					if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "repeats line 1 with different content") {
						t.Fatalf("streaming=%v: error %v, want %q", streaming, err, tc.want)
					}
					return
				}
				if err != nil {
					t.Fatalf("streaming=%v: %v", streaming, err)
				}
				n := 0
				if err := run.Rows(Memories, func(Row) error { n++; return nil }); err != nil || n != 5 {
					t.Fatalf("streaming=%v: %d rows, %v", streaming, n, err)
				}
			})
		}
	}
}

// TestReferenceResolvedLater: a reference into a file read later (evidence -> memories) or
// further down its own file (a parent after its child) resolves; one that never does is
// reported at its own line.
func TestReferenceResolvedLater(t *testing.T) {
	dir := fixtureCopy(t)
	rewrite(t, dir, Memories, func(lines [][]byte) [][]byte {
		// Children before parents: reverse the file.
		out := make([][]byte, len(lines))
		for i, l := range lines {
			out[len(lines)-1-i] = l
		}
		return out
	})
	if _, err := Open(dir, Options{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	rewrite(t, dir, Evidence, func(lines [][]byte) [][]byte {
		lines[1] = reencode(t, lines[1], func(m map[string]any) { m["memory_id"] = "mem_nowhere" })
		return lines
	})
	_, err := Open(dir, Options{Streaming: true})
	if err == nil || !strings.Contains(err.Error(), `evidence.jsonl:2: field memory_id: memory_id "mem_nowhere" is not in memories.jsonl`) {
		t.Fatalf("error %v", err)
	}
}

// TestRowsRefusesAChangedFile: Rows re-reads a streamed run's file and refuses it if it is not
// the file verified.
func TestRowsRefusesAChangedFile(t *testing.T) {
	dir := fixtureCopy(t)
	run, err := Open(dir, Options{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "trials.jsonl")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(b, []byte(`"decision": "`), []byte(`"decision":  "`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = run.Rows(Trials, func(Row) error { n++; return nil })
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Field != "files.trials.sha256" || !strings.Contains(err.Error(), "changed after it was verified") {
		t.Fatalf("error %v after %d rows", err, n)
	}
}

type scannedLine struct {
	n    int
	line string
	last bool
}

// scanLines collects what next returns until the end, numbered as the scanner numbers them.
func scanLines(t *testing.T, sc *lineScanner, next func() ([]byte, bool, bool, error)) []scannedLine {
	t.Helper()
	var lines []scannedLine
	for {
		line, last, ok, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return lines
		}
		lines = append(lines, scannedLine{sc.line, string(line), last})
	}
}

// TestLineScanner: LF and CRLF ends, blank and white-space-only lines counted (returned by
// next, skipped by nextRow and LineReader.NextRow), a final line without a line end, and a
// line longer than the read buffer.
func TestLineScanner(t *testing.T) {
	long := `{"x": "` + strings.Repeat("a", 3<<20) + `"}`
	data := "{\"a\": 1}\r\n\n" + long + "\n \t\r\n{\"b\": 2}"
	wantRows := []scannedLine{{1, `{"a": 1}`, false}, {3, long, false}, {5, `{"b": 2}`, true}}
	var sc *lineScanner
	for _, tc := range []struct {
		name string
		next func() ([]byte, bool, bool, error)
		want []scannedLine
	}{
		{"next", func() ([]byte, bool, bool, error) { return sc.next() },
			[]scannedLine{{1, `{"a": 1}`, false}, {2, "", false}, {3, long, false}, {4, " \t", false}, {5, `{"b": 2}`, true}}},
		{"nextRow", func() ([]byte, bool, bool, error) { return sc.nextRow() }, wantRows},
	} {
		sc = newLineScanner(strings.NewReader(data), "test.jsonl")
		lines := scanLines(t, sc, tc.next)
		if len(lines) != len(tc.want) {
			t.Fatalf("%s: %d lines", tc.name, len(lines))
		}
		for i := range tc.want {
			if lines[i] != tc.want[i] {
				t.Errorf("%s: line %d: %d %.40q last=%v", tc.name, i, lines[i].n, lines[i].line, lines[i].last)
			}
		}
	}
	lr := NewLineReader(strings.NewReader(data), "test.jsonl")
	for _, want := range wantRows {
		line, n, ok, err := lr.NextRow()
		if err != nil || !ok || n != want.n || string(line) != want.line {
			t.Errorf("LineReader.NextRow: %d %.40q ok=%v err=%v, want line %d", n, line, ok, err, want.n)
		}
	}
	if _, _, ok, err := lr.NextRow(); ok || err != nil {
		t.Errorf("LineReader.NextRow after the last row: ok=%v err=%v", ok, err)
	}
	if sc.sum() != pyjson.SHA256Hex([]byte(data)) {
		t.Error("the scanner's sha256 is not the data's")
	}
	rows, err := ParseRows("x.jsonl", "x", []byte(data))
	if err != nil || len(rows) != 3 || rows[2].Line != 5 {
		t.Fatalf("ParseRows: %d rows, %v", len(rows), err)
	}
}
