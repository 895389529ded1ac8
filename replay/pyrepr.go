package replay

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine/pyjson"
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
		b.WriteString(pyjson.StrRepr(t))
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
			b.WriteString(pyjson.StrRepr(k))
			b.WriteString(": ")
			writeRepr(b, t[k], order)
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, t)
	}
}
