package replay

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// pyRepr renders a JSON tree the way Python's repr() prints the dict trustcall interpolates
// into the writer's system message: single-quoted strings (double quotes when the text has a
// single quote and no double quote), None/True/False, ", " and ": " separators. Object keys
// follow `order` when the key is listed there (pydantic field order), then sorted.
func pyRepr(v any, order []string) string {
	var b strings.Builder
	writeRepr(&b, v, order)
	return b.String()
}

func writeRepr(b *strings.Builder, v any, order []string) {
	switch t := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if t {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyStrRepr(t))
	case json.Number:
		b.WriteString(string(t))
	case []any:
		b.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x, order)
		}
		b.WriteByte(']')
	case map[string]any:
		rank := map[string]int{}
		for i, k := range order {
			rank[k] = i + 1
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			ri, rj := rank[keys[i]], rank[keys[j]]
			if ri != rj && ri > 0 && rj > 0 {
				return ri < rj
			}
			if (ri > 0) != (rj > 0) {
				return ri > 0
			}
			return keys[i] < keys[j]
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyStrRepr(k))
			b.WriteString(": ")
			writeRepr(b, t[k], order)
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, t)
	}
}

// pyStrRepr is Python's repr(str).
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r > 0xff:
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
