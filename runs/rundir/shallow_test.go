package rundir

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// shallowSeeds are lines whose shallow parse must agree with DecodeTree: valid rows with
// escapes, non-ASCII text, repeated keys, numbers of every shape and nesting, and broken
// ones that must be refused (so the caller falls back to DecodeTree and its error).
var shallowSeeds = []string{
	`{"a":1,"b":"x","c":true,"d":false,"e":null,"f":-0.5e+3,"g":[1,{"h":"i"}],"j":{}}`,
	` { "k" : "v\"q\\u00e9\u00e9" , "n" : 10 } `,
	`{"dup":1,"dup":{"x":2}}`,
	`{"emoji":"😀","esc":"\ud83d\ude00","slash":"\/"}`,
	`{}`,
	`{"a":[]}`,
	`{"a":"bad \x escape"}`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":-}`,
	`{"a":1e}`,
	`{"a":tru}`,
	`{"a":truex}`,
	`{"a":1}x`,
	`{"a":1,}`,
	`{"a" 1}`,
	`{"a":[1,]}`,
	`{"a":{"b":1,}}`,
	`[1,2]`,
	`"just a string"`,
	`{"a":"unterminated}`,
	"{\"a\":\"tab\there\"}",
	`{"a":"\u12"}`,
	`{"messages":[{"role":"user","content":"hi"}],"call_id":"c1","n":3}`,
	`{"a":1} {"b":2}`,
	`{"big":12345678901234567890123,"f":1E-7}`,
	`{"lone":"\ud83d","then":"\ud83dx","pair":"\ud83d\u0041","low":"\ude00\ud83d\ude00"}`,
	"{\"bad\":\"\xff\xfe ok \\n \xe2\x82\"}",
	`{"ctl":"\b\f\n\r\t\/\\","U":"\u00E9\u00e9"}`,
}

// checkShallow compares shallowTree with DecodeTree for one line of artifact name: when
// DecodeTree fails (or the line is no object) the scanner must refuse it; otherwise it must
// either refuse it (the caller then decodes) or give the same tree, raw keys aside, whose
// bytes must decode to DecodeTree's values.
func checkShallow(t *testing.T, name, line string) {
	t.Helper()
	got, ok := shallowTree(name, []byte(line))
	tree, err := pyjson.DecodeTree([]byte(line))
	if v, verr := DecodeValue([]byte(line)); (verr == nil) != (err == nil) || !reflect.DeepEqual(v, tree) {
		t.Fatalf("%q: DecodeValue %#v, %v; DecodeTree %#v, %v", line, v, verr, tree, err)
	}
	want, isObj := tree.(map[string]any)
	if err != nil || !isObj {
		if ok {
			t.Fatalf("%q: shallowTree accepted what DecodeTree refuses (%v)", line, err)
		}
		return
	}
	if !ok {
		return // refusing is always safe: the caller decodes with DecodeTree
	}
	for k, v := range got {
		if rm, raw := v.(json.RawMessage); raw {
			if !rawKeys[name][k] {
				t.Fatalf("%q: key %s kept raw but not listed", line, k)
			}
			dv, err := pyjson.DecodeTree(rm)
			if err != nil {
				t.Fatalf("%q: raw %s does not decode: %v", line, k, err)
			}
			got[k] = dv
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nshallow %#v\ndecode  %#v", line, got, want)
	}
}

func TestShallowTreeAgreesWithDecodeTree(t *testing.T) {
	for _, name := range []string{Trials, ModelContexts} {
		for _, s := range shallowSeeds {
			checkShallow(t, name, s)
		}
	}
	// Valid rows are parsed by the scanner, not left to the fallback.
	for _, s := range shallowSeeds[:6] {
		if _, ok := shallowTree(ModelContexts, []byte(s)); !ok {
			t.Errorf("%q: refused", s)
		}
	}
}

func FuzzShallowTree(f *testing.F) {
	for _, s := range shallowSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkShallow(t, ModelContexts, line)
	})
}

// benchRowLine is a model_contexts-like row: a few ids and a large nested messages/tools part.
func benchRowLine() []byte {
	msgs := make([]any, 0, 8)
	for i := range 8 {
		msgs = append(msgs, map[string]any{"role": "user", "content": strings.Repeat("memory text \"quoted\" é ", 20+i)})
	}
	row := map[string]any{"context_id": "ctx_0123456789abcdef", "call_id": "call_0123456789abcdef", "stage": "executor",
		"block_index": json.Number("3"), "messages": msgs, "tools": []any{map[string]any{"type": "function", "name": "submit_order"}},
		"metadata": map[string]any{"k": "v"}, "schema_version": json.Number("1")}
	b, err := pyjson.DumpPy(row, pyjson.Canonical)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkRowParse compares the two ways a row is parsed at import.
func BenchmarkRowParse(b *testing.B) {
	line := benchRowLine()
	b.Run("DecodeTree", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if _, err := pyjson.DecodeTree(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shallowTree", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if _, ok := shallowTree(ModelContexts, line); !ok {
				b.Fatal("refused")
			}
		}
	})
}
