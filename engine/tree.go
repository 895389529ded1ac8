package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// FieldError is a validation failure at one field path of a JSON document.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "field " + e.Path + ": " + e.Msg
}

// Errf builds a FieldError.
func Errf(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// JoinPath appends a key or an index to a field path.
func JoinPath(path string, key any) string {
	switch k := key.(type) {
	case int:
		return path + "[" + strconv.Itoa(k) + "]"
	default:
		if path == "" {
			return fmt.Sprint(k)
		}
		return path + "." + fmt.Sprint(k)
	}
}

// Obj reads a JSON object; it fails with a path-named error otherwise.
func Obj(path string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, Errf(path, "expected an object, got %s", jsonKind(v))
	}
	return m, nil
}

// ExactKeys checks that m has every required key and nothing outside required+optional.
func ExactKeys(path string, m map[string]any, required []string, optional ...string) error {
	allowed := map[string]bool{}
	for _, k := range required {
		allowed[k] = true
		if _, ok := m[k]; !ok {
			return Errf(JoinPath(path, k), "required key is missing")
		}
	}
	for _, k := range optional {
		allowed[k] = true
	}
	var unknown []string
	for k := range m {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Errf(JoinPath(path, unknown[0]), "unknown key (allowed: %s)", strings.Join(sortedCopy(append(append([]string{}, required...), optional...)), ", "))
	}
	return nil
}

func sortedCopy(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// Str reads a string.
func Str(path string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", Errf(path, "expected a string, got %s", jsonKind(v))
	}
	return s, nil
}

// NonEmptyStr reads a string that is not empty after trimming.
func NonEmptyStr(path string, v any) (string, error) {
	s, err := Str(path, v)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", Errf(path, "must be a non-empty string")
	}
	return s, nil
}

// NullableStr reads a string or null.
func NullableStr(path string, v any) (*string, error) {
	return nullable(path, v, "a string", Str)
}

// nullable reads null as nil and anything else with read; a value read rejects is reported
// as neither what read wants nor null.
func nullable[T any](path string, v any, what string, read func(string, any) (T, error)) (*T, error) {
	if v == nil {
		return nil, nil
	}
	x, err := read(path, v)
	if err != nil {
		return nil, Errf(path, "expected %s or null, got %s", what, jsonKind(v))
	}
	return &x, nil
}

// Int reads an integer (a JSON number with no fraction or exponent; booleans are not ints).
func Int(path string, v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, Errf(path, "expected an integer, got %s", jsonKind(v))
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			// Never clamped: a value changed without a word would be stored and printed.
			return 0, Errf(path, "integer %s is outside the range ealscope represents (%d to %d)", QuoteLiteral(string(n)), int64(math.MinInt64), int64(math.MaxInt64))
		}
		return 0, Errf(path, "expected an integer, got %s", QuoteLiteral(string(n)))
	}
	return i, nil
}

// QuoteLiteral is a number literal as a message quotes it: whole up to 40 characters, else
// its first 20 and its length.
func QuoteLiteral(lit string) string {
	if len(lit) <= 40 {
		return lit
	}
	return fmt.Sprintf("%s… (%d characters)", lit[:20], len(lit))
}

// NullableInt reads an integer or null.
func NullableInt(path string, v any) (*int64, error) {
	return nullable(path, v, "an integer", Int)
}

// NonNegativeInt reads an integer that is at least 0 (an index or a count).
func NonNegativeInt(path string, v any) (int64, error) {
	i, err := Int(path, v)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, Errf(path, "must be >= 0, got %d", i)
	}
	return i, nil
}

// List reads a JSON array.
func List(path string, v any) ([]any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, Errf(path, "expected a list, got %s", jsonKind(v))
	}
	return l, nil
}

// StrList reads a list of strings.
func StrList(path string, v any) ([]string, error) {
	l, err := List(path, v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for i, item := range l {
		s, err := Str(JoinPath(path, i), item)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// UniqueNonEmpty checks that a list of strings has no empty and no repeated items.
func UniqueNonEmpty(path string, items []string) error {
	seen := map[string]bool{}
	for i, s := range items {
		if strings.TrimSpace(s) == "" {
			return Errf(JoinPath(path, i), "must be a non-empty string")
		}
		if seen[s] {
			return Errf(JoinPath(path, i), "duplicate value %q", s)
		}
		seen[s] = true
	}
	return nil
}

func jsonKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "the number " + string(t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// PyStrip trims what Python's str.strip() trims: Unicode white space plus the information
// separators U+001C..U+001F, which Go's strings.TrimSpace keeps.
func PyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// ClampedInt reads a JSON integer of any size; integers beyond int64 saturate at the int64
// bounds. Python ints are unbounded, and a bound that large decides every comparison the same
// way, so saturating keeps EAL-Bench's verdicts without big-number arithmetic. It is only for
// a model's tool-call arguments, which are scored but never written back (their raw text is
// what is stored); every file reader uses Int, which refuses such a value.
func ClampedInt(path string, v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, Errf(path, "expected an integer, got %s", jsonKind(v))
	}
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return 0, Errf(path, "expected an integer, got %s", s)
	}
	if b.Sign() < 0 {
		return math.MinInt64, nil
	}
	return math.MaxInt64, nil
}
