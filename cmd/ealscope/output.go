package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/runs"
)

// text is stdout for human-readable output: every byte goes through the sanitiser the TUI
// uses, since tables and reports interleave our text with untrusted ids, paths and messages.
func (g *Globals) text() io.Writer { return safetext.NewWriter(g.Stdout) }

// textErr is text for stderr messages.
func (g *Globals) textErr() io.Writer { return safetext.NewWriter(g.Stderr) }

// writeJSON prints v as indented JSON followed by a newline. Besides what encoding/json
// escapes (C0 controls, invalid UTF-8, U+2028/2029), C1 controls, DEL and the invisible format
// characters (bidi controls, zero-width characters, U+FEFF) are written as \u escapes: the
// value is the same JSON, but a terminal showing the raw output cannot be steered by it.
func writeJSON(w io.Writer, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, safetext.EscapeJSON(b.String()))
	return err
}

// annotateSetError names the real cause of a failed save: a workspace busy with another
// writer is not a problem of the state file, which is named only for errors about the label.
func annotateSetError(stateFile, workspace string, err error) error {
	var locked *runs.LockedError
	switch {
	case errors.As(err, &locked):
		return err // names the workspace and the wait
	case runs.IsBusy(err):
		return fmt.Errorf("workspace %s: another process is writing to it (an import, an annotator or a re-run): %w", workspace, err)
	}
	return fmt.Errorf("%s: %w", stateFile, err)
}

// openForWriting opens the workspace for a command that writes to it: a write that has to
// wait for another writer (an import holds the lock while it runs) says so on stderr every
// few seconds instead of sitting silent, and gives up after runs.DefaultWriteWait.
func openForWriting(g *Globals, path string, open func(string) (*runs.Store, error)) (*runs.Store, error) {
	store, err := open(path)
	if err != nil {
		return nil, err
	}
	// Writing into a damaged file would bury the damage under new rows.
	if err := store.CheckIntegrity(context.Background()); err != nil {
		store.Close()
		return nil, err
	}
	store.SetWriteWait(0, func(waited time.Duration) {
		fmt.Fprintf(g.textErr(), "ealscope: waiting for another process writing to %s (%s so far, giving up after %s)\n",
			store.Path(), waited.Round(time.Second), runs.DefaultWriteWait)
	})
	return store, nil
}

// cells sanitises each string argument of a table row as one cell (safetext.Line): a line
// break inside an id or a message would otherwise end the row and start a line of the
// file's choosing. Other arguments pass unchanged.
func cells(args ...any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = safetext.Line(s)
		}
	}
	return args
}
