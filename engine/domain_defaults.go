package engine

import (
	"fmt"
	"strings"
)

// Optional roles with a default: a domain that does not play one gets the behaviour below, so
// the required interface (Domain) stays the least a domain must say. Callers go through the
// functions here rather than asserting the role themselves.

// CaseByCaseReader is the optional role of a domain that reads a corpus case by case, so one
// invalid case does not hide the others.
type CaseByCaseReader interface {
	ParseEach(name string, data []byte) []ParsedCase
}

// ParseEach reads a corpus case by case when the domain can; otherwise it reads the corpus
// strictly (ParseCorpus), which gives one entry per case, or one failed entry for the whole
// file (its line is the first: a strict reader's error names its own line in its text).
func ParseEach(d CorpusReader, name string, data []byte) []ParsedCase {
	if r, ok := d.(CaseByCaseReader); ok {
		return r.ParseEach(name, data)
	}
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		return []ParsedCase{{Line: 1, Err: err}}
	}
	out := make([]ParsedCase, len(cases))
	for i, c := range cases {
		out[i] = ParsedCase{Line: c.Line, CaseID: c.ID, Case: c}
	}
	return out
}

// BlockRenderer is the optional role of a domain with its own rendering of a history block
// (EAL-Bench's presentation profiles).
type BlockRenderer interface {
	// RenderBlock renders one history block as the writer and full-history executor see it.
	RenderBlock(c *Case, index int) string
}

// RenderBlock renders block `index` of the case as the domain does, or, for a domain without
// a rendering of its own, one line per turn: "[turn id] speaker: content".
func RenderBlock(d WriterSurface, c *Case, index int) string {
	if r, ok := d.(BlockRenderer); ok {
		return r.RenderBlock(c, index)
	}
	return RenderTurns(c.Blocks[index])
}

// RenderTurns is the default rendering of a block: one line per turn, "[turn id] speaker:
// content".
func RenderTurns(b Block) string {
	var out strings.Builder
	for _, t := range b.Turns {
		fmt.Fprintf(&out, "[%s] %s: %s\n", t.ID, t.Speaker, t.Content)
	}
	return out.String()
}
