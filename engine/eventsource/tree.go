package eventsource

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine/pyjson"
)

func intOf(v any) (int, error) {
	switch t := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(string(t))
		if err != nil {
			return 0, fmt.Errorf("expected an integer, got %s", t)
		}
		return i, nil
	case int:
		return t, nil
	case int64:
		return int(t), nil
	default:
		return 0, fmt.Errorf("expected an integer")
	}
}

// pyStr is Python's str() of a JSON value, which EAL-Bench's reducer applies to ids, status
// and supersedes values: strings are themselves, numbers print as Python prints the int or
// float json.loads made of them, and containers print as their repr.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a JSON value (dict keys in insertion order, which for a tree
// decoded here is not known: they are sorted, the best a Go map can give).
func pyRepr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return pyjson.StrRepr(t)
	case json.Number:
		return pyNumber(string(t))
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		s, err := pyjson.FloatRepr(t)
		if err != nil {
			return fmt.Sprint(t)
		}
		return s
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = pyRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []string:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = pyjson.StrRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyjson.StrRepr(k) + ": " + pyRepr(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(t)
	}
}

// pyNumber prints a JSON number literal as Python prints the value json.loads makes of it:
// an integer literal is an int (any size), anything with a fraction or exponent a float.
func pyNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if b, ok := new(big.Int).SetString(lit, 10); ok {
			return b.String()
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return lit
	}
	s, err := pyjson.FloatRepr(f)
	if err != nil {
		return lit
	}
	return s
}

// pyTypeName is Python's type name of a JSON value, for TypeError texts.
func pyTypeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if strings.ContainsAny(string(t), ".eE") {
			return "float"
		}
		return "int"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// pyTruthy is Python's bool() of a JSON value.
func pyTruthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		return err != nil || f != 0
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	default:
		return true
	}
}

func canonical(v any) (string, error) { return pyjson.CanonicalJSON(v) }
