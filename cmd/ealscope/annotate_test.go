package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/ealscope/ealscope/engine"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// TestAnnotateCommands drives the headless twins end to end on a real run: `run` a scripted
// free-text run, `import` it, `annotate set` two annotators' readings (one accepted),
// `annotate agreement --json`, `annotate export`, then `annotate import` into a second
// workspace, where `summary --json` shows the memory scored from the annotation.
func TestAnnotateCommands(t *testing.T) {
	tmp := t.TempDir()
	runDir := filepath.Join(tmp, "run")
	db, db2 := filepath.Join(tmp, "a.db"), filepath.Join(tmp, "b.db")
	exec := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("ealscope %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	exec("run", "--builtin", "--cases", "ealscope_v1_field_survey_kit", "--conditions", "one_shot_text,faithful_typed", "--seed", "3", "--out", runDir)
	exec("import", runDir, "--db", db)

	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	queue, err := store.AnnotationQueue(context.Background(), runs.QueueAll, "", "")
	store.Close()
	if err != nil || len(queue) == 0 {
		t.Fatalf("queue %v %v", queue, err)
	}
	var mem runs.AnnotationItem
	for _, it := range queue {
		if it.ConditionID == "one_shot_text" {
			mem = it
		}
	}
	// The ledger's exact state at the memory's block, as a state file.
	cases, err := engine.BuiltinCases(procurement.Domain{})
	if err != nil {
		t.Fatal(err)
	}
	var stateFile string
	for _, c := range cases {
		if c.ID == mem.CaseID {
			recs, err := procurement.Domain{}.Replay(c, mem.BlockIndex)
			if err != nil {
				t.Fatal(err)
			}
			stateFile = filepath.Join(tmp, "state.json")
			os.WriteFile(stateFile, []byte(pyjson.MustCanonicalJSON(procurement.Domain{}.TypedPayload(recs))), 0o644)
		}
	}
	out := exec("annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "alice", "--state", stateFile, "--accept", "--json")
	var label annotations.Annotation
	if err := json.Unmarshal([]byte(out), &label); err != nil || label.Status != annotations.AnnotationAccepted || label.SourceContentHash != mem.ContentHash {
		t.Fatalf("set: %v %s", err, out)
	}
	exec("annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "bob", "--state", stateFile)

	var agr annotations.AgreementReport
	if err := json.Unmarshal([]byte(exec("annotate", "agreement", "--db", db, "--json")), &agr); err != nil {
		t.Fatal(err)
	}
	if len(agr.Pairs) != 1 || agr.All.Agreed != agr.All.Units || agr.All.Units == 0 {
		t.Fatalf("agreement %+v", agr)
	}
	if text := exec("annotate", "agreement", "--db", db); !strings.Contains(text, "cohen_kappa") || !strings.Contains(text, "alice") {
		t.Fatalf("agreement text:\n%s", text)
	}

	child := filepath.Join(tmp, "annotations")
	exec("annotate", "export", "--db", db, "--run", queue[0].RunID, "--out", child)
	exec("import", runDir, "--db", db2)
	if text := exec("annotate", "import", child, "--db", db2); !strings.Contains(text, "2 labels (1 accepted, 1 not) by alice, bob") {
		t.Fatalf("import: %s", text)
	}
	var doc runs.SummaryDoc
	if err := json.Unmarshal([]byte(exec("summary", "--db", db2, "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range doc.Memories {
		if m.MemoryID == mem.MemoryID {
			found = m.ScoredFrom == annotations.ScoredFreeTextAnnotation && m.Exact != nil && *m.Exact
		}
	}
	if !found {
		t.Fatal("the imported accepted annotation must score the memory in the second workspace")
	}

	// Bad input names the file and the field, and stores nothing.
	bad := filepath.Join(tmp, "bad.json")
	os.WriteFile(bad, []byte(`{"schema_version":"3","authorizations":[{"authorization_id":"a"}]}`), 0o644)
	var o, e bytes.Buffer
	if code := run([]string{"annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "carol", "--state", bad}, &o, &e); code == 0 ||
		!strings.Contains(e.String(), "bad.json") || !strings.Contains(e.String(), "authorizations[0]") {
		t.Fatalf("bad state: exit %d: %s", code, e.String())
	}
}
