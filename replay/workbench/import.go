package workbench

import (
	"context"

	"github.com/ealscope/ealscope/runs"
)

// Importing: `ealscope import`, `open` and `demo` bring runs, corpora, diagnoses and writer
// memories into a workspace, and `annotate import` brings annotators' labels, through these
// use cases over the narrow interfaces below.

// Importer imports paths into a workspace (runs.RunImporter, which the store implements).
type Importer interface {
	Import(ctx context.Context, paths []string, opts runs.ImportOptions) (runs.ImportReport, error)
}

// AnnotationImporter files one annotation child run's labels into a workspace.
type AnnotationImporter interface {
	ImportAnnotations(ctx context.Context, dir string, opts runs.ImportAnnotationsOptions) (runs.ImportAnnotationsReport, error)
}

var (
	_ Importer           = runs.RunImporter(nil)
	_ AnnotationImporter = runs.AnnotationWork(nil)
)

// Import brings paths into a workspace: run directories, judge-diagnosis and writer-memories
// files, and corpus files (opts.Corpora come first; a corpus also derives every imported run
// that was waiting for it). The report lists every path done, also when an error stopped the
// import part way (what finished is kept).
func Import(ctx context.Context, store Importer, paths []string, opts runs.ImportOptions) (runs.ImportReport, error) {
	return store.Import(ctx, paths, opts)
}

// ImportAnnotations files the labels of annotation child runs, in order, calling done after
// each; the first error stops it.
func ImportAnnotations(ctx context.Context, store AnnotationImporter, dirs []string, asSubmitted bool, done func(dir string, rep runs.ImportAnnotationsReport)) ([]runs.ImportAnnotationsReport, error) {
	var reps []runs.ImportAnnotationsReport
	for _, dir := range dirs {
		rep, err := store.ImportAnnotations(ctx, dir, runs.ImportAnnotationsOptions{AsSubmitted: asSubmitted})
		if err != nil {
			return reps, err
		}
		reps = append(reps, rep)
		if done != nil {
			done(dir, rep)
		}
	}
	return reps, nil
}
