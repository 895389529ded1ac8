// Package pyjson reproduces, byte for byte, the JSON EAL-Bench's Python writes and hashes:
// json.dumps in its canonical and row styles (float repr, ensure_ascii=False, sorted keys),
// content hashes over canonical JSON, the stable-id recipes of its pipeline and writer, and a
// decoder that keeps the number and key facts Python relies on. Every hash and id that must
// match an EAL-Bench run goes through here; it performs no I/O and imports nothing of ours.
package pyjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// PyStyle selects one of the json.dumps configurations EAL-Bench uses.
type PyStyle int

const (
	// Canonical is json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":")).
	Canonical PyStyle = iota
	// Row is json.dumps(v, ensure_ascii=False, sort_keys=True): the JSONL row encoding with
	// Python's default ", " and ": " separators.
	Row
	// Indented is json.dumps(v, ensure_ascii=False, indent=2, sort_keys=True): manifest.json.
	Indented
	// RowASCII is json.dumps(v, sort_keys=True) with Python's default ensure_ascii=True: how
	// procurement renders the executor's current transaction.
	RowASCII
)

// Float is a float64 that always serialises the way Python's repr does (1.0 stays "1.0").
// Use it for struct fields that Python holds as floats (temperatures, rates).
type Float float64

// MarshalJSON writes the Python repr of the float.
func (f Float) MarshalJSON() ([]byte, error) {
	s, err := FloatRepr(float64(f))
	return []byte(s), err
}

// ToTree converts any Go value into the generic JSON tree (map[string]any, []any, string,
// json.Number, bool, nil) that the Python-compatible encoder walks. Values that already are
// trees are returned as they are; everything else goes through encoding/json once and is read
// back with UseNumber, so integers and floats keep their textual identity.
func ToTree(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, json.Number, map[string]any, []any:
		return v, nil
	}
	return reflectTree(reflect.ValueOf(v))
}

// Retree always takes v through encoding/json and back, so every number becomes a
// json.Number: the form the strict payload readers expect.
func Retree(v any) (any, error) {
	raw, err := DumpPy(v, Canonical)
	if err != nil {
		return nil, err
	}
	return DecodeTree(raw)
}

// MustRetree is Retree for values built by this program, which always encode.
func MustRetree(v any) any {
	tree, err := Retree(v)
	if err != nil {
		panic(fmt.Sprintf("retree: %v", err))
	}
	return tree
}

// DecodeTree parses one JSON document into a tree with json.Number leaves.
// Invalid UTF-8 and integer literals past MaxIntegerDigits are refused (an *InputError), so
// every reader built on it applies the same bounds.
func DecodeTree(raw []byte) (any, error) {
	if err := checkInput(raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return out, nil
}

// DumpPy encodes v exactly as Python's json.dumps would with the given style.
func DumpPy(v any, style PyStyle) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeTree(&buf, v, style, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CanonicalJSON is EAL-Bench's canonical_json.
func CanonicalJSON(v any) (string, error) {
	b, err := DumpPy(v, Canonical)
	return string(b), err
}

// MustCanonicalJSON is CanonicalJSON for values built by this program, which always encode.
func MustCanonicalJSON(v any) string {
	s, err := CanonicalJSON(v)
	if err != nil {
		panic(fmt.Sprintf("canonical json: %v", err))
	}
	return s
}

// ContentHash is EAL-Bench's content_hash: strings are hashed raw, anything else as its
// canonical JSON.
func ContentHash(v any) (string, error) {
	if s, ok := v.(string); ok {
		return SHA256Hex([]byte(s)), nil
	}
	c, err := CanonicalJSON(v)
	if err != nil {
		return "", err
	}
	return SHA256Hex([]byte(c)), nil
}

// MustContentHash is ContentHash for values built by this program.
func MustContentHash(v any) string {
	h, err := ContentHash(v)
	if err != nil {
		panic(fmt.Sprintf("content hash: %v", err))
	}
	return h
}

// SHA256Hex is the lowercase hex sha256 of b.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RowLine is one JSONL row as EAL-Bench writes it, newline included.
func RowLine(v any) ([]byte, error) {
	b, err := DumpPy(v, Row)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func encodeTree(buf *bytes.Buffer, v any, style PyStyle, depth int) error {
	switch t := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case string:
		writeString(buf, t, style)
	case json.Number:
		s, err := pyNumber(string(t))
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case float64:
		s, err := FloatRepr(t)
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case int:
		buf.WriteString(strconv.Itoa(t))
	case int64:
		buf.WriteString(strconv.FormatInt(t, 10))
	case []any:
		return writeItems(buf, style, depth, '[', ']', len(t), func(i int) error {
			return encodeTree(buf, t[i], style, depth+1)
		})
	case map[string]any:
		// Go compares strings bytewise; for valid UTF-8 that is code point order, which is
		// what Python's sort_keys uses.
		keys := slices.Sorted(maps.Keys(t))
		return writeItems(buf, style, depth, '{', '}', len(keys), func(i int) error {
			writeKey(buf, keys[i], style)
			return encodeTree(buf, t[keys[i]], style, depth+1)
		})
	case float32:
		s, err := FloatRepr(float64(t))
		if err != nil {
			return err
		}
		buf.WriteString(s)
	default:
		// Structs, typed maps, slices and other scalars: encoded directly, floats kept.
		return encodeValue(buf, reflect.ValueOf(v), style, depth)
	}
	return nil
}

// writeItems writes a list or a dict of n items as json.dumps lays it out: "[]" or "{}" when
// empty, else the items between open and close, separated in the style's way and, when
// indented, each on a line of its own one level deeper. item writes the i-th item (a dict
// item with its key).
func writeItems(buf *bytes.Buffer, style PyStyle, depth int, open, close byte, n int, item func(i int) error) error {
	buf.WriteByte(open)
	if n == 0 {
		buf.WriteByte(close)
		return nil
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			writeItemSep(buf, style)
		}
		writeIndent(buf, style, depth+1)
		if err := item(i); err != nil {
			return err
		}
	}
	writeIndent(buf, style, depth)
	buf.WriteByte(close)
	return nil
}

func writeItemSep(buf *bytes.Buffer, style PyStyle) {
	switch style {
	case Row, RowASCII:
		buf.WriteString(", ")
	default:
		buf.WriteByte(',')
	}
}

func writeIndent(buf *bytes.Buffer, style PyStyle, depth int) {
	if style != Indented {
		return
	}
	buf.WriteByte('\n')
	for i := 0; i < depth; i++ {
		buf.WriteString("  ")
	}
}

// writeString quotes s as json.dumps does in the style: non-ASCII kept, or escaped in RowASCII.
func writeString(buf *bytes.Buffer, s string, style PyStyle) {
	if style == RowASCII {
		writeASCIIString(buf, s)
	} else {
		writePyString(buf, s)
	}
}

// asciiEscapes holds json.dumps' escape of each ASCII character that has one, in both of its
// ensure_ascii modes: the quote, the backslash, the two-character forms of \n \r \t \b \f,
// and \u00XX for the other C0 control characters.
var asciiEscapes = func() (t [utf8.RuneSelf]string) {
	for c := range 0x20 {
		t[c] = fmt.Sprintf(`\u%04x`, c)
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = `\n`, `\r`, `\t`, `\b`, `\f`
	return t
}()

// writePyString quotes s like json.dumps(..., ensure_ascii=False): only the quote, backslash
// and C0 control characters are escaped; everything else, DEL and non-ASCII included, is kept.
func writePyString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if esc := asciiEscapes[c]; esc != "" {
				buf.WriteString(esc)
			} else {
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Invalid UTF-8 cannot come from Python text; write the replacement character
			// rather than an invalid byte.
			buf.WriteString("\ufffd")
		} else {
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}

// writeASCIIString quotes s like json.dumps with ensure_ascii=True: everything outside
// printable ASCII becomes a \uXXXX escape (surrogate pairs above the BMP).
func writeASCIIString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && asciiEscapes[r] != "":
			buf.WriteString(asciiEscapes[r])
		case r >= 0x20 && r <= 0x7e:
			buf.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(buf, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(buf, `\u%04x`, r)
		}
	}
	buf.WriteByte('"')
}

// pyNumber renders a JSON number literal the way Python would after json.loads: integers
// stay integers (normalised), anything with a fraction or exponent becomes a float repr.
func pyNumber(lit string) (string, error) {
	switch lit { // json.loads' non-standard literals (see DecodePyJSON)
	case "NaN", "Infinity", "-Infinity":
		return lit, nil
	}
	if !strings.ContainsAny(lit, ".eE") {
		n, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			return "", fmt.Errorf("invalid number %q", lit)
		}
		return n.String(), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Python's float() saturates to inf, which json.dumps would write as Infinity.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return FloatRepr(f)
		}
		return "", fmt.Errorf("invalid number %q", lit)
	}
	return FloatRepr(f)
}

// FloatRepr is Python's repr(float): the shortest round-tripping digits, fixed notation for
// decimal exponents in [-4, 16), scientific with a signed two-digit exponent otherwise.
func FloatRepr(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		return "NaN", nil
	case math.IsInf(f, 1):
		return "Infinity", nil
	case math.IsInf(f, -1):
		return "-Infinity", nil
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0", nil
		}
		return "0.0", nil
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+06
	neg := strings.HasPrefix(sci, "-")
	if neg {
		sci = sci[1:]
	}
	mant, expPart, _ := strings.Cut(sci, "e")
	exp, err := strconv.Atoi(expPart)
	if err != nil {
		return "", err
	}
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp >= -4 && exp < 16 {
		if exp >= 0 {
			intLen := exp + 1
			if len(digits) <= intLen {
				out = digits + strings.Repeat("0", intLen-len(digits)) + ".0"
			} else {
				out = digits[:intLen] + "." + digits[intLen:]
			}
		} else {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		}
	} else {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		out = fmt.Sprintf("%se%s%02d", m, sign, exp)
	}
	if neg {
		out = "-" + out
	}
	return out, nil
}
