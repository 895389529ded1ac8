package pyjson

import (
	"fmt"
	"strings"
	"unicode"
)

// StrRepr is Python's repr() of a str: single quotes unless the text holds a single quote and
// no double quote; backslash, the chosen quote, \n, \r and \t escaped; every other character
// that Python's str.isprintable() rejects written \xhh below U+0100, \uhhhh below U+10000 and
// \Uhhhhhhhh above. EAL-Bench puts such reprs in prompts (a state's Python literal) and in
// error texts, so the bytes must be Python's. Go's unicode.IsPrint and Python's isprintable
// reject the same categories (C*, and Z* except the ASCII space).
func StrRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}
