package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
)

// TestImportTellsJSONByContent: a cybersecurity or finance corpus written as FILE.json is
// imported as a corpus (not read as writer memories), and a JSON document of no known kind is
// refused naming the keys it has.
func TestImportTellsJSONByContent(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []string{"cybersecurity", "finance"} {
		d, err := domains.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		_, data := d.BuiltinCorpus()
		path := filepath.Join(dir, id+"_corpus.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := s.Import(context.Background(), []string{path}, ImportOptions{})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if r := rep.Results[0]; r.Kind != KindCorpus || r.Rows["cases"] == 0 {
			t.Errorf("%s corpus as .json: %+v", id, r)
		}
	}
	odd := filepath.Join(dir, "odd.json")
	if err := os.WriteFile(odd, []byte(`{"hello":1,"world":[2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Import(context.Background(), []string{odd}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "keys [hello, world]") || strings.Contains(err.Error(), "schema_version") {
		t.Errorf("a JSON document of no known kind: %v", err)
	}
}
