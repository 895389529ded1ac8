// Package freetext is the canonical free-text memory layout the domains write and read back
// (docs/FORMATS.md 4.3): a header line, then for each record a blank line, a "## " heading naming
// the record and one "- <label>: <value>" line per field; no records at all is the layout's
// empty text. The labels, values and their order are each domain's own.
package freetext

import (
	"fmt"
	"strings"
)

// Layout is one domain's header, empty text and record heading.
type Layout struct {
	Header, Empty string
	// Heading comes between "## " and the record's id ("Authorization " for procurement).
	Heading string
}

// Write renders records in the layout (no trailing newline); fields hands a record's field
// lines, in order, to line.
func Write[R any](l Layout, records []R, id func(R) string, fields func(r R, line func(label, value string))) string {
	if len(records) == 0 {
		return l.Empty
	}
	var b strings.Builder
	b.WriteString(l.Header)
	line := func(label, value string) { b.WriteString("\n- " + label + ": " + value) }
	for _, r := range records {
		b.WriteString("\n\n## " + l.Heading + id(r))
		fields(r, line)
	}
	return b.String()
}

// Scan walks the lines after the header (as Lines returns them): blank lines are skipped, a
// "## " line with the layout's Heading opens a record (heading gets the line number and the
// rest of the line), a "- " line is a field of the open record (field gets the line number and
// the whole line), and any other line is an error naming it. A callback's error stops the scan.
func (l Layout) Scan(lines []string, heading func(n int, rest string) error, field func(n int, line string) error) error {
	prefix := "## " + l.Heading
	for i := 1; i < len(lines); i++ {
		line, n := lines[i], i+1
		var err error
		switch {
		case line == "":
		case strings.HasPrefix(line, prefix):
			err = heading(n, strings.TrimPrefix(line, prefix))
		case strings.HasPrefix(line, "- "):
			err = field(n, line)
		default:
			err = fmt.Errorf("line %d: %q is not part of the canonical layout", n, line)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Lines is the first step of reading the layout back: the text with CRLF line ends folded and
// trailing newlines dropped, split into lines (lines[0] is the header, so line n is
// lines[n-1]). The empty text gives no lines; text that does not start with the header is an
// error on line 1.
func (l Layout) Lines(text string) ([]string, error) {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == l.Empty {
		return nil, nil
	}
	lines := strings.Split(text, "\n")
	if lines[0] != l.Header {
		return nil, fmt.Errorf("line 1: expected %q, the canonical layout's header", l.Header)
	}
	return lines, nil
}
