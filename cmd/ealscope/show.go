package main

import (
	"context"
	"io"

	"github.com/ealscope/ealscope/runs"
)

// showFromWorkspace is the shape of the commands that read one answer from the workspace and
// print it (summary, annotate agreement, annotate export): open the existing workspace (a
// missing --db is a typo, not a request for a new one), ask, then print the answer as JSON
// with --json or else as text through the sanitising writer.
func showFromWorkspace[T any](g *Globals, db string, asJSON bool, ask func(context.Context, *runs.Store) (T, error), printText func(io.Writer, T)) error {
	store, err := runs.OpenExisting(db)
	if err != nil {
		return err
	}
	defer store.Close()
	answer, err := ask(context.Background(), store)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(g.Stdout, answer)
	}
	printText(g.text(), answer)
	return nil
}
