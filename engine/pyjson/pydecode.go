package pyjson

import (
	"encoding/json"
	"strings"
)

// pyConstMarker tags the bare NaN/Infinity literals json.loads accepts while the JSON text is
// rewritten for Go's decoder; a NUL byte cannot occur in decoded JSON strings unescaped, so
// the marker cannot collide with real content.
const pyConstMarker = "\x00pyconst:"

// DecodePyJSON parses JSON the way Python's json.loads does, including the non-standard
// NaN, Infinity and -Infinity literals (kept as json.Number("NaN") etc.). Model replies are
// parsed with it so tool arguments are judged exactly as EAL-Bench judges them.
func DecodePyJSON(s string) (any, error) {
	if !strings.Contains(s, "NaN") && !strings.Contains(s, "Infinity") {
		return DecodeTree([]byte(s))
	}
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			b.WriteByte(c)
			continue
		}
		replaced := false
		for _, lit := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(s[i:], lit) {
				b.WriteString(`"\u0000pyconst:` + lit + `"`)
				i += len(lit) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			b.WriteByte(c)
		}
	}
	tree, err := DecodeTree([]byte(b.String()))
	if err != nil {
		return nil, err
	}
	return restorePyConsts(tree), nil
}

func restorePyConsts(v any) any {
	switch t := v.(type) {
	case string:
		if lit, ok := strings.CutPrefix(t, pyConstMarker); ok {
			return json.Number(lit)
		}
	case []any:
		for i := range t {
			t[i] = restorePyConsts(t[i])
		}
	case map[string]any:
		for k, item := range t {
			t[k] = restorePyConsts(item)
		}
	}
	return v
}
