package safeguards

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// PPMF's canonical argument matching (docs/POLICIES.md, PPMF): which of a record's values
// count as its keys, and how a turn's text is found to carry them.

// keyFieldNames are the fields whose values name what a record grants: the scope fields and
// the validity window (by their last path element, since a domain's fidelity fields and
// schema paths may nest differently).
func keyFieldNames(s engine.RecordSchema) map[string]bool {
	out := map[string]bool{}
	for _, f := range s.Fields {
		if f.Scope || f.Role == engine.RoleValidFrom || f.Role == engine.RoleValidUntil {
			out[f.Name()] = true
		}
	}
	return out
}

func lastPathElement(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// valueTexts are a field value as text can carry it: a string, each item of a list, an
// integer in digits.
func valueTexts(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	case *string:
		if x == nil || *x == "" {
			return nil
		}
		return []string{*x}
	case []string:
		var out []string
		for _, s := range x {
			if s != "" {
				out = append(out, s)
			}
		}
		return out
	case []any:
		var out []string
		for _, s := range x {
			out = append(out, valueTexts(s)...)
		}
		return out
	case int, int64, int32, json.Number:
		return []string{fmt.Sprint(x)}
	case *int64:
		if x == nil {
			return nil
		}
		return []string{strconv.FormatInt(*x, 10)}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	}
	return []string{fmt.Sprint(v)}
}

// normaliseText is the canonical form text is matched in: lower case, digit-group commas
// dropped ("USD 4,800" carries 4800).
func normaliseText(s string) string {
	s = strings.ToLower(s)
	if !strings.Contains(s, ",") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ',' && i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]) {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80
}

// containsToken reports value in text as a whole token (not inside a longer id or number).
func containsToken(text, value string) bool {
	if value == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], value)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(value)
		before := start == 0 || !isWordByte(text[start-1]) || !isWordByte(value[0])
		after := end == len(text) || !isWordByte(text[end]) || !isWordByte(value[len(value)-1])
		if before && after {
			return true
		}
		from = start + 1
	}
}

func containsAll(text string, values []string) bool {
	for _, v := range values {
		if !containsToken(text, v) {
			return false
		}
	}
	return true
}
