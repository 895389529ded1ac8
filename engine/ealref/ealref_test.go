package ealref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadGateCases reads a file of the gate cases' shape (a hand-written one: EAL-Bench's own
// file is only ever read from EALSCOPE_EAL_DATA, by the tests that compare against it).
func TestReadGateCases(t *testing.T) {
	path := filepath.Join(t.TempDir(), GateCasesFile)
	doc := `{"schema_version": "1",
 "rows": [{"row_kind": "faithful_per_block", "domain_id": "finance", "case_id": "c1",
   "memory_ref": "faithful:0", "through_block_index": 0, "memory": {"a": [1, 2.0]},
   "result": {"removed_record_count": 0}},
  {"row_kind": "writer_memory", "domain_id": "finance", "case_id": "c1", "memory_ref": "w",
   "writer": "langmem", "through_block_index": null, "memory": {}, "result": {}, "error": null}],
 "edge_rows": [{"row_kind": "edge", "domain_id": "procurement", "case_id": "c2",
   "memory_ref": "edge:bad", "through_block_index": 3, "memory": "x", "error": "ValueError: bad"}],
 "case_source_authority": {}}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGateCases(path)
	if err != nil {
		t.Fatal(err)
	}
	all := g.All()
	if len(g.Rows) != 2 || len(g.EdgeRows) != 1 || len(all) != 3 {
		t.Fatalf("%d rows, %d edge rows, %d in all", len(g.Rows), len(g.EdgeRows), len(all))
	}
	first, writer, edge := all[0], all[1], all[2]
	if first.RowKind != "faithful_per_block" || first.DomainID != "finance" || first.CaseID != "c1" ||
		first.MemoryRef != "faithful:0" || first.Through == nil || *first.Through != 0 {
		t.Errorf("first row %+v", first)
	}
	// The raw fields keep the file's bytes, so a test can compare them byte for byte.
	if string(first.Memory) != `{"a": [1, 2.0]}` || string(first.Result) != `{"removed_record_count": 0}` {
		t.Errorf("raw memory %s, result %s", first.Memory, first.Result)
	}
	if writer.Writer != "langmem" || writer.Through != nil || writer.Refused() {
		t.Errorf("writer row %+v refused=%v", writer, writer.Refused())
	}
	if edge.MemoryRef != "edge:bad" || !edge.Refused() || len(edge.Result) != 0 || first.Refused() {
		t.Errorf("edge row %+v refused=%v", edge, edge.Refused())
	}
}

// TestReadGateCasesErrors: a missing file and bad JSON are errors naming the file, the bad JSON
// with its line.
func TestReadGateCasesErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadGateCases(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	for name, doc := range map[string]string{
		"syntax.json": "{\"rows\": [\n  {\"row_kind\": }]}",
		"type.json":   "{\"rows\": [\n  {\"through_block_index\": \"3\"}]}",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadGateCases(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": line 2, column ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestDataFolderMustBeAbsolute: the skip message asks for an absolute path, and a relative
// one is refused with a message saying why.
func TestDataFolderMustBeAbsolute(t *testing.T) {
	if msg := skipMessage("x"); !strings.Contains(msg, "absolute path") || strings.Contains(msg, "set it to ../shared") {
		t.Errorf("skip message: %q", msg)
	}
	if err := checkDir("../shared/eal/data"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative folder: %v", err)
	}
	if err := checkDir("/work/shared/eal/data"); err != nil {
		t.Error(err)
	}
}
