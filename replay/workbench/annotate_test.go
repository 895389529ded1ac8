package workbench_test

// The annotation use cases against a real workspace: a label binds to the text the annotator
// read, an adjudicator's submitted label becomes the accepted one, and an import of labels
// stops at the first directory it cannot read.

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// freeTextTask is the first memory of a scripted run's unannotated queue whose text the
// automatic reading understands, with that reading as a valid state to save.
func freeTextTask(t *testing.T) (*runs.Store, runs.AnnotationTask) {
	t.Helper()
	ctx := context.Background()
	store, runID, _ := scriptedWorkspace(t, replay.ScriptedRun{Domain: "procurement", Corpus: replay.BuiltinCorpus,
		Conditions: "all", Seed: 20260821, Version: "test", Concurrency: 2})
	queue, err := workbench.AnnotationQueue(ctx, store, runs.QueueUnannotated, "ann", runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range queue {
		task, err := workbench.AnnotationTask(ctx, store, it.MemoryID)
		if err != nil {
			t.Fatal(err)
		}
		if task.Prefill != nil && task.Item.Text != "" {
			return store, task
		}
	}
	t.Fatalf("none of %d queued memories has an automatic reading", len(queue))
	return nil, runs.AnnotationTask{}
}

func TestSaveLabelBindsToTheTextRead(t *testing.T) {
	ctx := context.Background()
	store, task := freeTextTask(t)
	id := task.Item.MemoryID
	other := task.Item.Text + " (edited since)"
	a, err := workbench.SaveLabel(ctx, store, workbench.Label{MemoryID: id, Annotator: "ann", State: task.Prefill,
		Status: annotations.AnnotationSubmitted, Read: &other, Origin: annotations.OriginTUI})
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceContentHash != pyjson.MustContentHash(other) || !a.Stale || a.Origin != annotations.OriginTUI {
		t.Errorf("a label read from other text: hash %s stale %v origin %s; want the other text's hash, stale, tui",
			a.SourceContentHash, a.Stale, a.Origin)
	}
	read := task.Item.Text
	a, err = workbench.SaveLabel(ctx, store, workbench.Label{MemoryID: id, Annotator: "ann", State: task.Prefill,
		Status: annotations.AnnotationSubmitted, Read: &read, Origin: annotations.OriginTUI})
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceContentHash != pyjson.MustContentHash(read) || a.Stale {
		t.Errorf("a label read from the memory's text: hash %s stale %v", a.SourceContentHash, a.Stale)
	}
	// No text read (the CLI's `annotate set`): the store binds the label to the current text.
	a, err = workbench.SaveLabel(ctx, store, workbench.Label{MemoryID: id, Annotator: "cli", State: task.Prefill,
		Status: annotations.AnnotationDraft, Origin: annotations.OriginCLI})
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceContentHash != pyjson.MustContentHash(read) || a.Status != annotations.AnnotationDraft {
		t.Errorf("a label with no text read: hash %s status %s", a.SourceContentHash, a.Status)
	}
}

func TestSaveLabelAdjudicatesOnlyFinalLabels(t *testing.T) {
	ctx := context.Background()
	store, task := freeTextTask(t)
	read := task.Item.Text
	for _, c := range []struct{ status, wantStatus, wantOrigin string }{
		{annotations.AnnotationDraft, annotations.AnnotationDraft, annotations.OriginTUI},
		{annotations.AnnotationSubmitted, annotations.AnnotationAccepted, annotations.OriginAdjudication},
	} {
		a, err := workbench.SaveLabel(ctx, store, workbench.Label{MemoryID: task.Item.MemoryID, Annotator: "adj", State: task.Prefill,
			Status: c.status, Read: &read, Adjudicate: true, Origin: annotations.OriginTUI})
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != c.wantStatus || a.Origin != c.wantOrigin {
			t.Errorf("an adjudicator's %s label: status %s origin %s, want %s by %s", c.status, a.Status, a.Origin, c.wantStatus, c.wantOrigin)
		}
	}
}

// TestImportAnnotationsStopsAtTheFirstError: the labels of an exported annotation run are
// filed and reported; a missing directory after it stops the import with an error.
func TestImportAnnotationsStopsAtTheFirstError(t *testing.T) {
	ctx := context.Background()
	store, task := freeTextTask(t)
	read := task.Item.Text
	if _, err := workbench.SaveLabel(ctx, store, workbench.Label{MemoryID: task.Item.MemoryID, Annotator: "ann", State: task.Prefill,
		Status: annotations.AnnotationSubmitted, Read: &read, Origin: annotations.OriginTUI}); err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(t.TempDir(), "labels")
	if _, err := store.ExportAnnotations(ctx, task.Item.RunID, exported, "test"); err != nil {
		t.Fatal(err)
	}
	var done []string
	missing := filepath.Join(t.TempDir(), "no-such-run")
	reps, err := workbench.ImportAnnotations(ctx, store, []string{exported, missing, exported}, false,
		func(dir string, _ runs.ImportAnnotationsReport) { done = append(done, dir) })
	if err == nil || len(reps) != 1 || len(done) != 1 || done[0] != exported || reps[0].Rows == 0 {
		t.Errorf("import of an exported run, then a missing one: reports %+v, done %v, error %v", reps, done, err)
	}
}
