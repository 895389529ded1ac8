package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/rundir"
)

// TestCorpusAfterRun imports a run before its corpus, labels one of its free-text memories
// while the corpus is missing, then imports the corpus: everything the run was waiting for is
// derived then, and the workspace summarizes exactly as one where run, corpus and label came
// in the other order.
func TestCorpusAfterRun(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	corpus, data := generatedCorpus(t, tmp, 12, 7)
	cases, err := dom.ParseCorpus(corpus, data)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(tmp, "run")
	scriptedRun(t, runDir, corpus, nil, "all")
	ref := CorpusRef{DomainID: "procurement", CorpusVersion: procurement.GeneratedCorpusVersion}

	// The run first: stored, waiting for its corpus.
	later, _ := openStore(t)
	waiting := importOne(t, later, runDir)
	runID := waiting.RunID
	if m := waiting.MissingCorpora; len(m) != 1 || m[0] != ref {
		t.Fatalf("missing corpora %+v", m)
	}
	chains, err := later.Chains(ctx, ChainFilter{RunID: runID})
	if err != nil || len(chains) == 0 {
		t.Fatalf("chains %d %v", len(chains), err)
	}
	for _, c := range chains {
		if c.FirstFalseAuthorityBlock != nil || c.UnscoredReason != "missing_corpus:"+ref.String() {
			t.Fatalf("chain before its corpus: %+v", c)
		}
	}
	// A label saved while the corpus is missing: it must apply once the corpus arrives.
	queue, err := later.AnnotationQueue(ctx, QueueAll, "", runID)
	if err != nil {
		t.Fatal(err)
	}
	var item AnnotationItem
	for _, it := range queue {
		if it.ConditionID == "one_shot_text" {
			item = it
			break
		}
	}
	if item.MemoryID == "" {
		t.Fatalf("no one-shot free-text memory among %d queued", len(queue))
	}
	label := AnnotationInput{MemoryID: item.MemoryID, Annotator: "alice", State: broadened(t, findCase(t, cases, item.CaseID), item.BlockIndex), Status: annotations.AnnotationAccepted}
	if _, err := later.SaveAnnotation(ctx, label); err != nil {
		t.Fatal(err)
	}
	// The corpus, given with --corpus on a later import.
	rep, err := later.Import(ctx, nil, ImportOptions{Corpora: []string{corpus}})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results[0]
	if !reflect.DeepEqual(res.DerivedRuns, []string{runID}) {
		t.Fatalf("derived runs %v, want [%s]", res.DerivedRuns, runID)
	}
	wantNote := "derived 1 run that was waiting for " + ref.String()
	if !strings.Contains(strings.Join(res.Notes, "\n"), wantNote) {
		t.Errorf("notes %q do not say %q", res.Notes, wantNote)
	}
	if res.Rows["chain_blocks"] == 0 || res.Rows["formation"] == 0 {
		t.Errorf("rows written while deriving: %v", res.Rows)
	}

	// Corpus and run together, the label after.
	together, _ := openStore(t)
	if _, err := together.Import(ctx, []string{corpus, runDir}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := together.SaveAnnotation(ctx, label); err != nil {
		t.Fatal(err)
	}

	a, b := summaryJSON(t, later), summaryJSON(t, together)
	if !bytes.Equal(a, b) {
		t.Fatalf("the workspaces differ:\nrun, label, then corpus: %.2000s\ncorpus, run, then label: %.2000s", a, b)
	}
	runsNow, _ := later.Runs(ctx)
	if len(runsNow[0].MissingCorpora) != 0 {
		t.Errorf("the run still says a corpus is missing: %+v", runsNow[0].MissingCorpora)
	}
	chains, _ = later.Chains(ctx, ChainFilter{RunID: runID})
	forming := 0
	for _, c := range chains {
		if c.UnscoredReason != "" {
			t.Errorf("chain %s/%s still unscored: %s", c.CaseID, c.ConditionID, c.UnscoredReason)
		}
		if c.FirstFalseAuthorityBlock != nil {
			forming++
		}
	}
	if forming == 0 {
		t.Error("no chain has a first false-authority block after the corpus arrived")
	}
	h, err := later.Chain(ctx, chains[0].Key)
	if err != nil || h.MissingCorpus != nil || h.CaseKey == 0 {
		t.Errorf("chain header %+v %v", h, err)
	}
	if _, err := later.ProbesAt(ctx, chains[0].Key, 0); err != nil {
		t.Errorf("ProbesAt after the corpus arrived: %v", err)
	}
	if got := scoreAt(t, later, item.MemoryID, item.BlockIndex); got.scoredFrom != annotations.ScoredFreeTextAnnotation || got.forms.Int64 != 1 {
		t.Errorf("the label saved before the corpus does not apply: %+v", got)
	}
	// Importing the corpus again finds nobody waiting and changes nothing.
	rep, err = later.Import(ctx, []string{corpus}, ImportOptions{})
	if err != nil || rep.Results[0].Status != StatusAlreadyImported || len(rep.Results[0].DerivedRuns) != 0 {
		t.Fatalf("corpus again: %+v %v", rep.Results, err)
	}
}

func summaryJSON(t testing.TB, s *Store) []byte {
	t.Helper()
	doc, err := s.Summary(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFileChangedAfterVerification: a file that changes between verification and import is
// caught while it is read again for import, the run's transaction is abandoned, and the
// database file is unchanged.
func TestFileChangedAfterVerification(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func([]byte) []byte
	}{
		{"same length", func(b []byte) []byte {
			return bytes.Replace(b, []byte("naturalistic_v1"), []byte("naturalistic_v2"), 1)
		}},
		{"a row appended", func(b []byte) []byte { return append(append([]byte(nil), b...), b[:bytes.IndexByte(b, '\n')+1]...) }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dbPath, before := workspaceWithOneRun(t)
			dir := copyDir(t, "testdata/eal_run")
			changed := ""
			afterVerify := func(run *rundir.Run) {
				// The evidence file: read (and partly stored) before the import notices.
				changed = filepath.Join(run.Dir, run.Entries[rundir.Evidence].Path)
				b, err := os.ReadFile(changed)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(changed, tc.change(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := mustOpen(t, dbPath)
			_, err := s.Import(ctx, []string{dir}, ImportOptions{afterVerify: afterVerify})
			if err == nil {
				s.Close()
				t.Fatal("a run whose file changed after verification was imported")
			}
			checkRefusedImport(t, s, err, dbPath, before, []string{changed, "files.evidence.sha256", "changed after it was verified"})
		})
	}
}

// TestStreamingOpenMatchesOpen: a run opened streaming reads back, through Rows, exactly the
// rows Open keeps in Files.
func TestStreamingOpenMatchesOpen(t *testing.T) {
	kept, err := rundir.Open("testdata/eal_run", rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := rundir.Open("testdata/eal_run", rundir.Options{Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if streamed.Files != nil {
		t.Fatal("a streaming Open kept rows")
	}
	if !reflect.DeepEqual(kept.Artifacts(), streamed.Artifacts()) || len(kept.Artifacts()) != len(kept.Files) {
		t.Fatalf("artifacts %v / %v", kept.Artifacts(), streamed.Artifacts())
	}
	for _, name := range streamed.Artifacts() {
		var got []rundir.Row
		if err := streamed.Rows(name, func(r rundir.Row) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(kept.Files[name]) {
			t.Fatalf("%s: %d rows streamed, %d kept", name, len(got), len(kept.Files[name]))
		}
		for i, r := range got {
			k := kept.Files[name][i]
			if r.Line != k.Line || !bytes.Equal(r.Raw, k.Raw) || pyjson.MustCanonicalJSON(r.Tree) != pyjson.MustCanonicalJSON(k.Tree) {
				t.Fatalf("%s row %d differs", name, i)
			}
		}
	}
}
