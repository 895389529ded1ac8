// Package safetext makes untrusted text (corpus turns, memories, model replies, file names,
// provider errors) safe to print to a terminal, to a shell and in JSON: the one sanitiser the
// TUI and every human-readable CLI output share. It imports nothing of ours and no terminal
// library, so the CLI can use it without the TUI's packages.
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Placeholders shown where sanitize removed something, so a reader sees that the source held
// control data instead of silently losing it.
const (
	escPlaceholder  = "␛" // a whole escape sequence (CSI, OSC, DCS, SOS, PM, APC, two-byte ESC x)
	ctrlPlaceholder = "�" // a lone C0/C1 control or an invalid UTF-8 byte
)

// Text makes untrusted text (history turns, memories, tool arguments, model replies) safe
// to hand to the terminal. Every escape sequence is removed whole, whether introduced by ESC
// (7-bit) or by a C1 code point (8-bit), because a partial strip can leave a still-live tail
// (e.g. "]52;c;..." after dropping only ESC). OSC, DCS, SOS, PM and APC strings run to their
// terminator (BEL or ST); an unterminated one is cut to the end of the text, since a
// terminal would swallow everything after it too. All other C0/C1 controls except newline and
// tab, DEL, and invalid UTF-8 become a placeholder. CR is a control here: it lets text
// overwrite the start of a line and so fake what the screen shows. Invisible format
// characters (bidi embeddings, overrides and isolates, zero-width characters, U+FEFF) become a
// visible <U+XXXX> placeholder: they reorder or hide what a reader sees ("Trojan Source").
func Text(s string) string {
	if isClean(s) {
		return s // the common case allocates nothing
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(ctrlPlaceholder)
			i++
		case r == 0x1b:
			i += escLen(s[i:])
			b.WriteString(escPlaceholder)
		case r >= 0x80 && r <= 0x9f:
			i += c1Len(r, s[i+size:]) + size
			b.WriteString(escPlaceholder)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case IsInvisibleFormat(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
			i += size
		case r < 0x20 || r == 0x7f:
			b.WriteString(ctrlPlaceholder)
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// isClean reports whether s needs no change: valid UTF-8, no controls but \n and \t.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				continue // checked below as runes
			}
			return false
		}
	}
	for _, r := range s {
		if r == utf8.RuneError || r >= 0x80 && r <= 0x9f || IsInvisibleFormat(r) {
			return false
		}
	}
	return true
}

// IsInvisibleFormat reports the format characters that change or hide what a terminal shows
// without showing themselves: bidi marks, embeddings, overrides and isolates (U+061C,
// U+200E-200F, U+202A-202E, U+2066-2069), zero-width characters (U+200B-200D, U+2060-2064,
// U+180E) and the byte-order mark U+FEFF.
func IsInvisibleFormat(r rune) bool {
	switch {
	case r == 0x061c, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2060 && r <= 0x2064:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escLen is the byte length of the escape sequence starting at s[0] == ESC.
func escLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then one final byte 0x40-0x7e
		return 2 + csiBody(s[2:])
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: a string up to BEL or ST
		return 2 + stringBody(s[2:])
	default:
		// ESC followed by intermediates (0x20-0x2f) and one final byte: nF/Fp/Fe/Fs forms such
		// as ESC c (full reset) or ESC ( B (charset).
		j := 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	}
}

// c1Len is the byte length of what follows an 8-bit C1 introducer r.
func c1Len(r rune, rest string) int {
	switch r {
	case 0x9b: // CSI
		return csiBody(rest)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return stringBody(rest)
	}
	return 0
}

func csiBody(s string) int {
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c >= 0x40 && c <= 0x7e {
			return j + 1
		}
		if c < 0x20 || c >= 0x7f {
			return j // malformed: stop before the stray byte, which is handled on its own
		}
	}
	return len(s)
}

// stringBody runs to BEL, ESC \ or the 8-bit ST (U+009C), inclusive.
func stringBody(s string) int {
	for j := 0; j < len(s); j++ {
		switch {
		case s[j] == 0x07:
			return j + 1
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		case s[j] == 0x1b:
			return j // a new sequence starts: the string was cut short
		case s[j] == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c:
			return j + 2
		}
	}
	return len(s)
}

// Line is Text for one-line cells: newlines and tabs become spaces so a table row stays one
// row.
func Line(s string) string {
	s = Text(s)
	// U+2028 and U+2029 are line breaks to some terminals and every editor.
	if strings.ContainsAny(s, "\n\t\u2028\u2029") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ", "\u2028", " ", "\u2029", " ").Replace(s)
	}
	return s
}

// TabWidth is the tab stop ExpandTabs uses.
const TabWidth = 8

// ExpandTabs replaces each tab with the spaces up to the next tab stop (counting runes from
// the line start), so text drawn inside a box keeps the box's right border in place: a raw
// tab's width is the terminal's choice, not the layout's.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// Print is Text with tabs expanded: for CLI text output (check, summary, render, import).
func Print(s string) string { return ExpandTabs(Text(s)) }

// ShellQuote quotes s for a POSIX shell so that the quoted form is printable and shows
// exactly what is pasted: words of safe characters as they are, printable text in single
// quotes, and anything holding a control, invisible format character, quote or invalid UTF-8
// in ANSI-C $'...' quoting (bash, zsh, ksh, POSIX.1-2024 sh) with every such byte or rune
// written as an escape. What the status line shows is then the very string copied.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	plain := utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\'' || IsInvisibleFormat(r)
	}) < 0
	if plain {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString("\\n")
		case r == '\t':
			b.WriteString("\\t")
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x80 && r <= 0x9f || IsInvisibleFormat(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// Writer passes everything written to it through Print: for a stream of human-readable
// output that interleaves our text with untrusted strings (a CLI table, a report), so no
// print statement can forget to sanitise. Each Write is sanitised on its own; a sequence cut
// between two writes is still neutralised (its ESC goes with the first part).
type Writer struct{ W io.Writer }

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

func (s *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.W, Print(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// EscapeJSON rewrites valid JSON text so that DEL, C1 controls and invisible format
// characters appear as \uXXXX escapes. Those characters only occur inside JSON strings, where
// the escape means the same character, so the document's value is unchanged.
func EscapeJSON(js string) string {
	if strings.IndexFunc(js, needsJSONEscape) < 0 {
		return js
	}
	var b strings.Builder
	b.Grow(len(js) + 16)
	for _, r := range js {
		if needsJSONEscape(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsJSONEscape(r rune) bool {
	return r == 0x7f || r >= 0x80 && r <= 0x9f || IsInvisibleFormat(r)
}
