package runs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriterMemoriesChecks: a writer-memories file whose schema_version is the string "1"
// is told so (not "unknown 1 (ealscope reads 1)"), and two entries for one chain are refused
// instead of becoming two memories at one block.
func TestWriterMemoriesChecks(t *testing.T) {
	raw, err := os.ReadFile("testdata/writer_memories.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	write := func(name string, doc map[string]any) string {
		b, _ := json.Marshal(doc)
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, _ := openStore(t)
	ctx := context.Background()

	doc["schema_version"] = "1"
	_, err = s.Import(ctx, []string{write("string.json", doc)}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), `field schema_version: schema_version is the string "1"; ealscope reads the number 1`) {
		t.Errorf("string schema_version: %v", err)
	}
	doc["schema_version"] = 1
	mems := doc["memories"].([]any)
	doc["memories"] = append(mems, mems[len(mems)-1])
	_, err = s.Import(ctx, []string{write("twice.json", doc)}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "a second memory for the chain of memories[") {
		t.Errorf("two memories for one chain: %v", err)
	}
}
