package workbench

import (
	"context"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// Annotating: the TUI's annotation screen and `ealscope annotate set` read queues and save
// labels through these use cases, so both bind a label to the text it was read from the same
// way.

// AnnotationReader reads what an annotator labels: a queue of memories and one memory's task.
type AnnotationReader interface {
	AnnotationQueue(ctx context.Context, queue, annotator, runID string) ([]runs.AnnotationItem, error)
	AnnotationTaskOf(ctx context.Context, memoryID string) (runs.AnnotationTask, error)
}

// AnnotationSaver stores labels: an annotator's, and an adjudicator's final one.
type AnnotationSaver interface {
	SaveAnnotation(ctx context.Context, in runs.AnnotationInput) (annotations.Annotation, error)
	Adjudicate(ctx context.Context, memoryID, adjudicator string, state any, sourceHash string) (annotations.Annotation, error)
}

// AnnotationStore is everything the annotation screen reads and writes.
type AnnotationStore interface {
	AnnotationReader
	AnnotationSaver
}

var _ AnnotationStore = struct {
	runs.AnnotationLabels
	runs.AnnotationWork
}{}

// AnnotationQueue is the memories of a queue (unannotated, disagreements, mine or all) for an
// annotator, in one run or ("") all.
func AnnotationQueue(ctx context.Context, store AnnotationReader, queue, annotator, runID string) ([]runs.AnnotationItem, error) {
	return store.AnnotationQueue(ctx, queue, annotator, runID)
}

// AnnotationTask is one memory to label: its text, the schema and the labels so far.
func AnnotationTask(ctx context.Context, store AnnotationReader, memoryID string) (runs.AnnotationTask, error) {
	return store.AnnotationTaskOf(ctx, memoryID)
}

// Label is one label to save.
type Label struct {
	MemoryID, Annotator string
	// State is the typed state the annotator reads in the memory.
	State any
	// Status is draft, submitted or accepted.
	Status string
	// Read is the memory text the annotator read: the label binds to its content hash, so a
	// label never scores text it was not made on. Nil leaves the store to bind the label to
	// the memory's current text.
	Read *string
	// Adjudicate makes a submitted label the adjudicator's final one (the disagreements
	// queue); a draft is saved as the adjudicator's own draft.
	Adjudicate bool
	// Origin is where the label was made (annotations.OriginTUI, OriginCLI).
	Origin string
}

// SaveLabel saves one label: an adjudication when asked for and not a draft, else the
// annotator's label.
func SaveLabel(ctx context.Context, store AnnotationSaver, l Label) (annotations.Annotation, error) {
	hash := ""
	if l.Read != nil {
		hash = pyjson.MustContentHash(*l.Read)
	}
	if l.Adjudicate && l.Status != annotations.AnnotationDraft {
		return store.Adjudicate(ctx, l.MemoryID, l.Annotator, l.State, hash)
	}
	return store.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: l.MemoryID, Annotator: l.Annotator, State: l.State,
		Status: l.Status, SourceContentHash: hash, Origin: l.Origin})
}
