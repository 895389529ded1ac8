package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxIntegerDigits bounds the digits of one integer literal in any JSON ealscope reads.
// Converting a decimal literal of n digits costs more than linear time (a 16 M-digit
// literal took minutes), and no value ealscope reads needs more than 19 digits; Python's
// own int() stops at the same 4,300 digits (sys.int_info.default_max_str_digits).
const MaxIntegerDigits = 4300

// InputError is a JSON document that is well-formed but holds what no reader accepts:
// invalid UTF-8, or an integer literal past MaxIntegerDigits. Line and Column locate it in
// the document (1-based); Field is its dotted path when known.
type InputError struct {
	Line, Column int
	Field        string
	Msg          string
}

func (e *InputError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("field %s: %s", e.Field, e.Msg)
	}
	return e.Msg
}

// FileError is err, from decoding text read from file, as "file:line: field F: message"
// (the form every reader's errors take); errors that are not an InputError keep
// DecodeErrorAt's line and column.
func FileError(file string, text []byte, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("%s:%d: %s", file, ie.Line, ie.Error())
	}
	return fmt.Errorf("%s: %s", file, DecodeErrorAt(text, err))
}

// checkInput refuses invalid UTF-8 and over-long integer literals in raw before it is
// decoded: encoding/json would turn a bad byte into U+FFFD without a word, and a huge literal
// costs its readers superlinear time. It is one linear pass.
func checkInput(raw []byte) error {
	if !utf8.Valid(raw) {
		at := 0
		for at < len(raw) {
			r, size := utf8.DecodeRune(raw[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		line, col := position(raw, at)
		return &InputError{Line: line, Column: col, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x at column %d)", raw[at], col)}
	}
	if at, digits := longInteger(raw); at >= 0 {
		line, col := position(raw, at)
		return &InputError{Line: line, Column: col, Field: longIntegerField(raw),
			Msg: fmt.Sprintf("integer literal of %s digits is longer than the limit of %d digits", groupThousands(digits), MaxIntegerDigits)}
	}
	return nil
}

// longInteger finds the first integer literal (outside strings, without fraction or
// exponent) of more than MaxIntegerDigits digits: its byte offset and digit count, or -1.
func longInteger(raw []byte) (int, int) {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			continue
		}
		start := i
		if c == '-' {
			i++
		}
		d := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		digits := i - d
		isFloat := i < len(raw) && (raw[i] == '.' || raw[i] == 'e' || raw[i] == 'E')
		for i < len(raw) && isNumberByte(raw[i]) {
			i++
		}
		if digits > MaxIntegerDigits && !isFloat {
			return start, digits
		}
		i--
	}
	return -1, 0
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// longIntegerField names the field holding the first over-long integer: the document is
// decoded (linear) and walked; "" when it does not decode.
func longIntegerField(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return ""
	}
	path, _ := findLong(tree, "")
	return path
}

func findLong(v any, path string) (string, bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t := v.(type) {
	case json.Number:
		s := string(t)
		if len(s) > 0 && s[0] == '-' {
			s = s[1:]
		}
		return path, len(s) > MaxIntegerDigits && !bytes.ContainsAny([]byte(s), ".eE")
	case []any:
		for i, x := range t {
			if p, ok := findLong(x, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, true
			}
		}
	case map[string]any:
		// Keys in sorted order, so the field named does not vary between runs.
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, ok := findLong(t[k], join(k)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// position is the 1-based line and byte column of offset at in raw.
func position(raw []byte, at int) (int, int) {
	at = max(0, min(at, len(raw)))
	return 1 + bytes.Count(raw[:at], []byte("\n")), at - bytes.LastIndexByte(raw[:at], '\n')
}

// groupThousands writes n with comma separators (1,000,000).
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
