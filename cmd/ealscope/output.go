package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/ealscope/ealscope/engine/safetext"
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
