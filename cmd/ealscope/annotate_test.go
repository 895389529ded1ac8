package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
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
	runBuiltinCase(t, runDir, "--conditions", "one_shot_text,faithful_typed", "--seed", "3")
	runOK(t, "import", runDir, "--db", db)

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
			stateFile = writeFile(t, filepath.Join(tmp, "state.json"), []byte(pyjson.MustCanonicalJSON(procurement.Domain{}.TypedPayload(recs))))
		}
	}
	out := runOK(t, "annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "alice", "--state", stateFile, "--accept", "--json")
	var label annotations.Annotation
	if err := json.Unmarshal([]byte(out), &label); err != nil || label.Status != annotations.AnnotationAccepted || label.SourceContentHash != mem.ContentHash {
		t.Fatalf("set: %v %s", err, out)
	}
	runOK(t, "annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "bob", "--state", stateFile)

	var agr annotations.AgreementReport
	if err := json.Unmarshal([]byte(runOK(t, "annotate", "agreement", "--db", db, "--json")), &agr); err != nil {
		t.Fatal(err)
	}
	if len(agr.Pairs) != 1 || agr.All.Agreed != agr.All.Units || agr.All.Units == 0 {
		t.Fatalf("agreement %+v", agr)
	}
	if text := runOK(t, "annotate", "agreement", "--db", db); !strings.Contains(text, "cohen_kappa") || !strings.Contains(text, "alice") {
		t.Fatalf("agreement text:\n%s", text)
	}

	child := filepath.Join(tmp, "annotations")
	runOK(t, "annotate", "export", "--db", db, "--run", queue[0].RunID, "--out", child)
	runOK(t, "import", runDir, "--db", db2)
	if text := runOK(t, "annotate", "import", child, "--db", db2); !strings.Contains(text, "2 labels (1 accepted, 1 not) by alice, bob") {
		t.Fatalf("import: %s", text)
	}
	var doc runs.SummaryDoc
	if err := json.Unmarshal([]byte(runOK(t, "summary", "--db", db2, "--json")), &doc); err != nil {
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
	bad := writeFile(t, filepath.Join(tmp, "bad.json"), []byte(`{"schema_version":"3","authorizations":[{"authorization_id":"a"}]}`))
	if _, errs, code := runCLI(t, "annotate", "set", "--db", db, "--memory", mem.MemoryID, "--annotator", "carol", "--state", bad); code == 0 ||
		!strings.Contains(errs, "bad.json") || !strings.Contains(errs, "authorizations[0]") {
		t.Fatalf("bad state: exit %d: %s", code, errs)
	}
}
