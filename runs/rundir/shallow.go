package rundir

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// Shallow row parsing: the one pass that both validates a row's JSON and decodes only what
// ealscope reads of it. Decoding every row into a generic tree (pyjson.DecodeTree, all of
// encoding/json's interface{} machinery) was most of an import's CPU; most of a row's bytes
// are values nobody reads at import (model messages and tool lists, raw requests and
// responses, candidate payloads), which are stored verbatim through Row.Raw. So a row is
// scanned once by a strict JSON validator that records where each top-level value lies; its
// scalars are decoded directly, its nested values with DecodeTree, except the nested values of
// the keys listed in rawKeys, which stay json.RawMessage (the bytes of the line). The tree
// is then exactly DecodeTree's for every key ealscope inspects: numbers are json.Number with
// the literal's text, strings are unquoted by encoding/json whenever they hold an escape or
// non-UTF-8 bytes, and a repeated key keeps its last value. Whenever the scanner meets
// anything it does not accept (invalid JSON, a top level that is not an object, nesting past
// encoding/json's limit), it gives up and the caller falls back to DecodeTree, so the error a
// broken row gets is the one it always got.

// rawKeys are, per artifact, the top-level keys whose nested (object or array) values no
// check and no importer reads: they are kept as the row's bytes, not decoded. Only nested
// values are kept raw; a scalar under one of these keys is decoded as usual, so a broken row
// is reported as before. Keep this list in step with validateRow, checkBlockIndexes,
// refIndex.add, trialChecks.add and the importer (runs/stream.go).
var rawKeys = map[string]map[string]bool{
	Calls:                   {"request": true, "response": true},
	"writer_calls":          {"request": true, "response": true},
	ExecutorPlan:            {"messages": true, "executor": true, "job_metadata": true},
	MemoryAttempts:          {"candidate_payload": true, "framework": true, "raw_arguments": true},
	Memories:                {"framework": true},
	ModelContexts:           {"messages": true, "tools": true, "tool_choice": true, "model": true, "metadata": true},
	"writer_model_contexts": {"messages": true, "tools": true, "tool_choice": true, "model": true, "metadata": true},
}

// maxShallowDepth is encoding/json's nesting limit: deeper input is left to DecodeTree, which
// refuses it.
const maxShallowDepth = 10000

// shallowTree parses line as a JSON object for artifact name as described above. ok is false
// when the line is not a valid JSON object this scanner accepts; the caller then uses
// DecodeTree. The returned tree may alias line (raw values).
func shallowTree(name string, line []byte) (map[string]any, bool) {
	if !utf8.Valid(line) {
		return nil, false
	}
	raw := rawKeys[name]
	p := shallowParser{b: line}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, false
	}
	m := make(map[string]any, 32)
	if !p.items(0, '}', func() bool {
		key, ok := p.objectKey()
		if !ok {
			return false
		}
		// A scalar, or a nested value not kept raw, is what tree makes of it.
		var v any
		if p.i < len(p.b) && (p.b[p.i] == '{' || p.b[p.i] == '[') && raw[key] {
			vs := p.i
			if !p.value(1) {
				return false
			}
			v = json.RawMessage(p.b[vs:p.i])
		} else if v, ok = p.tree(1); !ok {
			return false
		}
		m[key] = v
		return true
	}) {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	return m, true
}

// decodeStr is a string's value from its bytes between the quotes (which str has checked),
// exactly as encoding/json unquotes it: escapes decoded, a lone or broken surrogate and every
// invalid UTF-8 byte replaced by U+FFFD.
func decodeStr(body []byte, escaped bool) (string, bool) {
	if !escaped && utf8.Valid(body) {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 >= len(body) {
				return "", false
			}
			switch e := body[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(body[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if len(body)-i >= 6 && body[i] == '\\' && body[i+1] == 'u' {
						if r2, ok := hex4(body[i+2:]); ok {
							if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
								out = utf8.AppendRune(out, d)
								i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// shallowParser is a strict JSON scanner over one line (RFC 8259, as encoding/json reads it).
type shallowParser struct {
	b []byte
	i int
}

func (p *shallowParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// str scans a string at p.i and returns the bounds of its body and whether it has escapes.
func (p *shallowParser) str() (start, end int, escaped, ok bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return 0, 0, false, false
	}
	p.i++
	start = p.i
	// Jump to the next quote (IndexByte is vectorised), then walk the escapes before it;
	// only an escaped quote sends the search further. Each byte is looked at a bounded
	// number of times, however many escapes the string has.
	q := bytes.IndexByte(p.b[p.i:], '"')
	if q < 0 {
		return 0, 0, false, false
	}
	q += p.i
	for {
		seg := p.b[p.i:q]
		bs := bytes.IndexByte(seg, '\\')
		if bs >= 0 {
			seg = seg[:bs]
		}
		for _, c := range seg {
			if c < 0x20 {
				return 0, 0, false, false
			}
		}
		if bs < 0 {
			end = q
			p.i = q + 1
			return start, end, escaped, true
		}
		p.i += bs
		escaped = true
		if p.i+1 >= len(p.b) {
			return 0, 0, false, false
		}
		switch p.b[p.i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			p.i += 2
		case 'u':
			if p.i+6 > len(p.b) {
				return 0, 0, false, false
			}
			for _, h := range p.b[p.i+2 : p.i+6] {
				if !isHexDigit(h) {
					return 0, 0, false, false
				}
			}
			p.i += 6
		default:
			return 0, 0, false, false
		}
		if p.i > q { // the escape was \" (the quote found): look for the next one
			n := bytes.IndexByte(p.b[p.i:], '"')
			if n < 0 {
				return 0, 0, false, false
			}
			q = p.i + n
		}
	}
}

// items scans the object or array whose opener is at p.i, at nesting depth, to its closer:
// item scans each member or element (p.i at its first byte) and reports whether it was valid.
// Nesting past maxShallowDepth is refused, as encoding/json refuses it.
func (p *shallowParser) items(depth int, closer byte, item func() bool) bool {
	if depth > maxShallowDepth {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == closer {
		p.i++
		return true
	}
	for {
		p.ws()
		if !item() {
			return false
		}
		if more, ok := p.more(closer); !more {
			return ok
		}
	}
}

// objectKey scans an object member's key and its colon (whitespace around both allowed) and
// returns the key as encoding/json decodes it; a plain valid-UTF-8 key is interned, since the
// same few keys recur on every row.
func (p *shallowParser) objectKey() (string, bool) {
	p.ws()
	ks, ke, kesc, ok := p.str()
	if !ok {
		return "", false
	}
	key := ""
	if !kesc && utf8.Valid(p.b[ks:ke]) {
		key = internKey(p.b[ks:ke])
	} else if key, ok = decodeStr(p.b[ks:ke], kesc); !ok {
		return "", false
	}
	return key, p.colon()
}

// colon scans the ':' after an object key with the whitespace either side of it.
func (p *shallowParser) colon() bool {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return false
	}
	p.i++
	p.ws()
	return true
}

// more scans what follows a member or element: whitespace, then ',' (more is true: another
// one follows) or closer (more is false: the container ends). ok is false on anything else.
func (p *shallowParser) more(closer byte) (more, ok bool) {
	p.ws()
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case ',':
			p.i++
			return true, true
		case closer:
			p.i++
			return false, true
		}
	}
	return false, false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// tree scans the value at p.i and builds what DecodeTree (UseNumber) makes of it: maps,
// slices, strings, json.Number, bools and nil.
func (p *shallowParser) tree(depth int) (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	start := p.i
	switch c := p.b[p.i]; c {
	case '"':
		s, e, esc, ok := p.str()
		if !ok {
			return nil, false
		}
		return decodeStr(p.b[s:e], esc)
	case '{':
		m := map[string]any{}
		if !p.items(depth, '}', func() bool {
			key, ok := p.objectKey()
			if !ok {
				return false
			}
			v, ok := p.tree(depth + 1)
			m[key] = v
			return ok
		}) {
			return nil, false
		}
		return m, true
	case '[':
		l := []any{}
		if !p.items(depth, ']', func() bool {
			v, ok := p.tree(depth + 1)
			l = append(l, v)
			return ok
		}) {
			return nil, false
		}
		return l, true
	case 't', 'f', 'n':
		if !p.literal() {
			return nil, false
		}
		switch c {
		case 't':
			return true, true
		case 'f':
			return false, true
		}
		return nil, true
	}
	if !p.number() {
		return nil, false
	}
	return json.Number(p.b[start:p.i]), true
}

// value scans any JSON value at p.i; depth is the nesting of the value being scanned.
func (p *shallowParser) value(depth int) bool {
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		_, _, _, ok := p.str()
		return ok
	case '{':
		return p.items(depth, '}', func() bool {
			_, _, _, ok := p.str()
			return ok && p.colon() && p.value(depth+1)
		})
	case '[':
		return p.items(depth, ']', func() bool { return p.value(depth + 1) })
	case 't', 'f', 'n':
		return p.literal()
	}
	return p.number()
}

func (p *shallowParser) literal() bool {
	for _, lit := range []string{"true", "false", "null"} {
		if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return true
		}
	}
	return false
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *shallowParser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		d := i
		i = skipDigits(b, i)
		// An over-long integer goes to DecodeTree, which refuses it with its field.
		if i-d > pyjson.MaxIntegerDigits && (i >= len(b) || (b[i] != '.' && b[i] != 'e' && b[i] != 'E')) {
			return false
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = skipDigits(b, d); i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = skipDigits(b, d); i == d {
			return false
		}
	}
	p.i = i
	return true
}

// skipDigits is the index of the first byte at or after i that is not an ASCII digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// DecodeValue is pyjson.DecodeTree (same values: json.Number, maps, slices) through the one
// scan above, for the importer's hot paths (rows read back for derivation). Anything the
// scanner does not accept goes to DecodeTree, so errors are DecodeTree's.
func DecodeValue(raw []byte) (any, error) {
	if !utf8.Valid(raw) {
		return pyjson.DecodeTree(raw) // refuses it, as every reader does
	}
	p := shallowParser{b: raw}
	p.ws()
	if v, ok := p.tree(1); ok {
		if p.ws(); p.i == len(p.b) {
			return v, nil
		}
	}
	return pyjson.DecodeTree(raw)
}
