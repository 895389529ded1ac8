package pyjson

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Expected strings in this file were produced by CPython 3.11 json.dumps (see the comments on
// each table); they are the truth the Go encoder must reproduce byte for byte.

// pyFloatCases: a JSON number literal and repr(json.loads(literal)) as json.dumps writes it.
var pyFloatCases = []struct{ lit, want string }{
	{"1.0", "1.0"},
	{"1e16", "1e+16"},
	{"1e15", "1000000000000000.0"},
	{"0.0001", "0.0001"},
	{"1e-05", "1e-05"},
	{"-0.0", "-0.0"},
	{"123456789.123", "123456789.123"},
	{"0.1", "0.1"},
	{"1.5e300", "1.5e+300"},
	{"2.5e-7", "2.5e-07"},
	{"0.3333333333333333", "0.3333333333333333"},
	{"123456789012345.6", "123456789012345.6"},
	{"9999999999999998.0", "9999999999999998.0"},
	{"1E5", "100000.0"},
	{"-1.25", "-1.25"},
	{"5e-324", "5e-324"},
	{"1.7976931348623157e308", "1.7976931348623157e+308"},
	{"100.0", "100.0"},
	{"1e22", "1e+22"},
	{"12345678901234567.0", "1.2345678901234568e+16"},
	{"0.00001234", "1.234e-05"},
}

// pyIntCases: integers stay integers of any size (Python ints are unbounded).
var pyIntCases = []struct{ lit, want string }{
	{"0", "0"},
	{"-0", "0"},
	{"-1", "-1"},
	{"42", "42"},
	{"12345678901234567890123", "12345678901234567890123"},
	{"-9223372036854775809", "-9223372036854775809"},
	{"9007199254740993", "9007199254740993"},
}

// pyDocCases: a JSON document and json.dumps(json.loads(doc), ...) in the four styles:
// canonical (ensure_ascii=False, sort_keys, (",", ":")), row (ensure_ascii=False, sort_keys),
// indented (ensure_ascii=False, indent=2, sort_keys) and row-ASCII (sort_keys only).
var pyDocCases = []struct{ name, doc, canonical, row, indented, ascii string }{
	{"nested", "{\"b\": 1, \"a\": {\"z\": [], \"é\": 1, \"e\": 2, \"Z\": 3, \"😀\": 4, \"ä\": 5, \"！\": 6, \"aa\": {\"y\": [1, {\"k\": null, \"j\": true}], \"x\": false}}, \"\": {}, \"list\": [3, \"x\", [], {}, [[]]]}", "{\"\":{},\"a\":{\"Z\":3,\"aa\":{\"x\":false,\"y\":[1,{\"j\":true,\"k\":null}]},\"e\":2,\"z\":[],\"ä\":5,\"é\":1,\"！\":6,\"😀\":4},\"b\":1,\"list\":[3,\"x\",[],{},[[]]]}", "{\"\": {}, \"a\": {\"Z\": 3, \"aa\": {\"x\": false, \"y\": [1, {\"j\": true, \"k\": null}]}, \"e\": 2, \"z\": [], \"ä\": 5, \"é\": 1, \"！\": 6, \"😀\": 4}, \"b\": 1, \"list\": [3, \"x\", [], {}, [[]]]}", "{\n  \"\": {},\n  \"a\": {\n    \"Z\": 3,\n    \"aa\": {\n      \"x\": false,\n      \"y\": [\n        1,\n        {\n          \"j\": true,\n          \"k\": null\n        }\n      ]\n    },\n    \"e\": 2,\n    \"z\": [],\n    \"ä\": 5,\n    \"é\": 1,\n    \"！\": 6,\n    \"😀\": 4\n  },\n  \"b\": 1,\n  \"list\": [\n    3,\n    \"x\",\n    [],\n    {},\n    [\n      []\n    ]\n  ]\n}", "{\"\": {}, \"a\": {\"Z\": 3, \"aa\": {\"x\": false, \"y\": [1, {\"j\": true, \"k\": null}]}, \"e\": 2, \"z\": [], \"\\u00e4\": 5, \"\\u00e9\": 1, \"\\uff01\": 6, \"\\ud83d\\ude00\": 4}, \"b\": 1, \"list\": [3, \"x\", [], {}, [[]]]}"},
	{"strings", "{\"s\": \"a\\nb\\tc\\u0000d\\u007fe \\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\r \\b \\f \\u001f \\u2028 / </script>\"}", "{\"s\":\"a\\nb\\tc\\u0000d\x7fe é 😀 \\\"q\\\" \\\\ \\r \\b \\f \\u001f \u2028 / </script>\"}", "{\"s\": \"a\\nb\\tc\\u0000d\x7fe é 😀 \\\"q\\\" \\\\ \\r \\b \\f \\u001f \u2028 / </script>\"}", "{\n  \"s\": \"a\\nb\\tc\\u0000d\x7fe é 😀 \\\"q\\\" \\\\ \\r \\b \\f \\u001f \u2028 / </script>\"\n}", "{\"s\": \"a\\nb\\tc\\u0000d\\u007fe \\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\r \\b \\f \\u001f \\u2028 / </script>\"}"},
	{"empty_list", "[]", "[]", "[]", "[]", "[]"},
	{"empty_dict", "{}", "{}", "{}", "{}", "{}"},
	{"scalar_str", "\"x\"", "\"x\"", "\"x\"", "\"x\"", "\"x\""},
	{"null", "null", "null", "null", "null", "null"},
	{"float_in_dict", "{\"t\": 1.0, \"r\": 0.5, \"n\": 3}", "{\"n\":3,\"r\":0.5,\"t\":1.0}", "{\"n\": 3, \"r\": 0.5, \"t\": 1.0}", "{\n  \"n\": 3,\n  \"r\": 0.5,\n  \"t\": 1.0\n}", "{\"n\": 3, \"r\": 0.5, \"t\": 1.0}"},
}

func TestPyFloatRepr(t *testing.T) {
	for _, tc := range pyFloatCases {
		t.Run(tc.lit, func(t *testing.T) {
			// A json.Number leaf (what DecodeTree yields).
			checkDump(t, "json.Number "+tc.lit, json.Number(tc.lit), Canonical, tc.want)
			// A float64 leaf inside a tree.
			f, err := strconv.ParseFloat(tc.lit, 64)
			if err != nil {
				t.Fatal(err)
			}
			checkDump(t, "float64 "+tc.lit+" in a tree", []any{f}, Row, "["+tc.want+"]")
			// The Float type, through encoding/json and through DumpPy.
			checkMarshal(t, "Float("+tc.lit+").MarshalJSON", Float(f), tc.want)
			checkDump(t, "DumpPy(Float("+tc.lit+"))", Float(f), Canonical, tc.want)
		})
	}
}

func TestPyFloatSpecials(t *testing.T) {
	// json.dumps writes NaN / Infinity / -Infinity (allow_nan=True by default) and keeps the
	// sign of zero.
	cases := []struct {
		f    float64
		want string
	}{
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.Copysign(0, -1), "-0.0"},
		{0, "0.0"},
	}
	for _, tc := range cases {
		checkDump(t, fmt.Sprint(tc.f), []any{tc.f}, Canonical, "["+tc.want+"]")
	}
	checkMarshal(t, "Float(-0.0)", Float(math.Copysign(0, -1)), "-0.0")
	// A number literal too large for a float saturates to inf, as Python's float() does.
	checkDump(t, "1e400", json.Number("1e400"), Canonical, "Infinity")
}

func TestPyInts(t *testing.T) {
	for _, tc := range pyIntCases {
		checkDump(t, tc.lit, json.Number(tc.lit), Canonical, tc.want)
	}
	// Go integer kinds inside a tree.
	checkDump(t, "go ints", map[string]any{"i": 7, "i64": int64(-9223372036854775808), "u": uint64(18446744073709551615)}, Canonical,
		`{"i":7,"i64":-9223372036854775808,"u":18446744073709551615}`)
	if _, err := DumpPy(json.Number("12x"), Canonical); err == nil {
		t.Error("an invalid number literal must be an error")
	}
}

func TestDumpPyStyles(t *testing.T) {
	for _, tc := range pyDocCases {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := DecodeTree([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			for _, style := range []struct {
				name  string
				style PyStyle
				want  string
			}{
				{"canonical", Canonical, tc.canonical},
				{"row", Row, tc.row},
				{"indented", Indented, tc.indented},
				{"row_ascii", RowASCII, tc.ascii},
			} {
				checkDump(t, style.name, tree, style.style, style.want)
			}
			c, err := CanonicalJSON(tree)
			if err != nil || c != tc.canonical {
				t.Errorf("CanonicalJSON: got %q, %v", c, err)
			}
			if m := MustCanonicalJSON(tree); m != tc.canonical {
				t.Errorf("MustCanonicalJSON: got %q", m)
			}
			line, err := RowLine(tree)
			if err != nil || string(line) != tc.row+"\n" {
				t.Errorf("RowLine: got %q, %v", line, err)
			}
		})
	}
}

// goDoc is a Go struct whose JSON keys are declared out of order; Python-style output sorts them.
type goDoc struct {
	Zeta  int    `json:"zeta"`
	Alpha string `json:"alpha"`
	Mid   []any  `json:"mid"`
	Rate  Float  `json:"rate"`
}

func TestDumpPyGoValues(t *testing.T) {
	// Inside a struct every float Python holds as a float must be a Float (see
	// TestFloatTopLevelBug for plain float64).
	v := goDoc{Zeta: 1, Alpha: "é", Mid: []any{true, nil, map[string]any{"b": 2.5, "a": Float(1)}}, Rate: 1}
	// python3: v = {"zeta": 1, "alpha": "é", "mid": [True, None, {"b": 2.5, "a": 1.0}], "rate": 1.0}
	cases := []struct {
		style PyStyle
		want  string
	}{
		{Canonical, `{"alpha":"é","mid":[true,null,{"a":1.0,"b":2.5}],"rate":1.0,"zeta":1}`},
		{Row, `{"alpha": "é", "mid": [true, null, {"a": 1.0, "b": 2.5}], "rate": 1.0, "zeta": 1}`},
		{RowASCII, `{"alpha": "\u00e9", "mid": [true, null, {"a": 1.0, "b": 2.5}], "rate": 1.0, "zeta": 1}`},
		{Indented, "{\n  \"alpha\": \"é\",\n  \"mid\": [\n    true,\n    null,\n    {\n      \"a\": 1.0,\n      \"b\": 2.5\n    }\n  ],\n  \"rate\": 1.0,\n  \"zeta\": 1\n}"},
	}
	for _, tc := range cases {
		checkDump(t, fmt.Sprintf("style %d", tc.style), v, tc.style, tc.want)
	}
	// The same struct nested in a generic tree goes through encoding/json once.
	checkDump(t, "nested struct", map[string]any{"doc": v, "list": []string{"b", "a"}}, Canonical,
		`{"doc":{"alpha":"é","mid":[true,null,{"a":1.0,"b":2.5}],"rate":1.0,"zeta":1},"list":["b","a"]}`)
	// Typed Go maps are sorted too.
	checkDump(t, "typed map", map[string]int{"b": 1, "a": 2, "é": 3, "Z": 4}, Row, `{"Z": 4, "a": 2, "b": 1, "é": 3}`)
}

// TestFloatTopLevelBug: Python writes every float with a fraction or exponent, so json.dumps(1.0)
// is "1.0". DumpPy keeps that for a float64 leaf inside []any / map[string]any, but a bare
// float64 value (or one inside a typed slice, typed map or anywhere inside a struct) goes through
// encoding/json first and loses its float identity.
func TestFloatTopLevelBug(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{1.0, "1.0"},
		{[]float64{1.0, 0.5}, "[1.0,0.5]"},
		{map[string]float64{"t": 1}, `{"t":1.0}`},
		{struct {
			T float64 `json:"t"`
		}{1}, `{"t":1.0}`},
		{struct {
			L []any `json:"l"`
		}{[]any{1.0}}, `{"l":[1.0]}`},
	}
	for _, tc := range cases {
		checkDump(t, fmt.Sprintf("%T", tc.v), tc.v, Canonical, tc.want)
	}
}

func TestFloatMarshal(t *testing.T) {
	cases := []struct {
		f    Float
		want string
	}{
		{1, "1.0"}, {0.5, "0.5"}, {100, "100.0"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {2.0 / 3.0, "0.6666666666666666"},
	}
	for _, tc := range cases {
		checkMarshal(t, fmt.Sprintf("Float(%v)", float64(tc.f)), tc.f, tc.want)
	}
	type params struct {
		Temperature Float `json:"temperature"`
		MaxTokens   int   `json:"max_tokens"`
	}
	checkDump(t, "struct with Float", params{Temperature: 1, MaxTokens: 4096}, Row, `{"max_tokens": 4096, "temperature": 1.0}`)
}

func TestDecodeTree(t *testing.T) {
	tree, err := DecodeTree([]byte(` {"a": [1, 2.0, "x", null, true]} `))
	if err != nil {
		t.Fatal(err)
	}
	list := tree.(map[string]any)["a"].([]any)
	if n, ok := list[0].(json.Number); !ok || n != "1" {
		t.Errorf("integers decode as json.Number: %#v", list[0])
	}
	if n, ok := list[1].(json.Number); !ok || n != "2.0" {
		t.Errorf("floats keep their literal: %#v", list[1])
	}
	for _, bad := range []string{``, `{"a":1} {"b":2}`, `{"a":1}x`, `{`, `NaN`} {
		if _, err := DecodeTree([]byte(bad)); err == nil {
			t.Errorf("DecodeTree(%q) must fail", bad)
		}
	}
	// ToTree leaves trees alone and converts other values through encoding/json.
	type s struct {
		N int `json:"n"`
	}
	got, err := ToTree(s{3})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := got.(map[string]any); !ok || m["n"] != json.Number("3") {
		t.Errorf("ToTree(struct): %#v", got)
	}
	got, err = Retree(map[string]any{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if m := got.(map[string]any); m["n"] != json.Number("3") {
		t.Errorf("Retree makes every number a json.Number: %#v", m["n"])
	}
	if m := MustRetree(map[string]any{"n": 3}).(map[string]any); m["n"] != json.Number("3") {
		t.Errorf("MustRetree makes every number a json.Number: %#v", m["n"])
	}
}

// TestMustRetreePanicsOnWhatCannotEncode: MustRetree is for values this program builds, so a
// value JSON cannot hold is a programming error and panics with Retree's error.
func TestMustRetreePanicsOnWhatCannotEncode(t *testing.T) {
	defer func() {
		r := recover()
		if msg, ok := r.(string); !ok || !strings.Contains(msg, "cannot encode chan int") {
			t.Errorf("recovered %#v, want Retree's error", r)
		}
	}()
	MustRetree(map[string]any{"c": make(chan int)})
}

func TestContentHash(t *testing.T) {
	// python3: hashlib.sha256(s.encode()).hexdigest(): strings are hashed raw, not JSON-quoted.
	raw := []struct{ s, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"é😀", "1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76"},
		{"{\"a\":1}", "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"},
	}
	for _, tc := range raw {
		got, err := ContentHash(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("ContentHash(%q) = %s, want %s", tc.s, got, tc.want)
		}
		if SHA256Hex([]byte(tc.s)) != tc.want {
			t.Errorf("SHA256Hex(%q) differs", tc.s)
		}
		if MustContentHash(tc.s) != tc.want {
			t.Errorf("MustContentHash(%q) differs", tc.s)
		}
	}
	// A string is not hashed as its JSON form: sha256('"abc"') differs.
	if h := MustContentHash("abc"); h == "6cc43f858fbb763301637b5af970e2a46b46f461f27e5a0f41e009c59b827b25" {
		t.Error("ContentHash must not JSON-quote strings")
	}
	// Anything else is hashed as its canonical JSON
	// (python3: sha256(canonical_json(json.loads(pyDocCases[0].doc)))).
	tree, err := DecodeTree([]byte(pyDocCases[0].doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := MustContentHash(tree); got != "0b254dc23076855edcdce6f47e5e3690ed6d35470a0a713ca33572d951a73ef4" {
		t.Errorf("ContentHash(tree) = %s", got)
	}
	// A list of strings (e.g. planned call ids) is a JSON array, not a string.
	if got, want := MustContentHash([]string{"a", "b"}), SHA256Hex([]byte(`["a","b"]`)); got != want {
		t.Errorf("ContentHash(list) = %s, want %s", got, want)
	}
}

func TestStableIDs(t *testing.T) {
	// python3: prefix + "_" + sha256("\x1f".join(parts)).hexdigest() and
	//          prefix + "_" + sha256("\0".join(parts)).hexdigest()[:24]
	cases := []struct {
		parts      []string
		id64, id24 string
	}{
		{[]string{"trial", "procurement", "evidence_x", "probe_y", "907945a6c03f738899e366e86cd54f6fbf8171fed9b88581dabcda97dda66b0d"}, "trial_454562cc8e98d9162a679d8df5ed513a685830b42480c6fef67c69286c3f793f", "trial_6f76eaa1721086430b15738b"},
		{[]string{"chain"}, "chain_e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "chain_e3b0c44298fc1c149afbf4c8"},
		{[]string{"mem", "a", "", "3", "h"}, "mem_c86c1696c0ac45a482a27697dfb5058ed71706b2432647d083aeb6d8319eccd3", "mem_caf7c0d91a25d648f2e139c9"},
		{[]string{"x", "é😀", "b"}, "x_c099e1e8bc64dffb821caa1097d21eabf2c01f9599124e3d8388ed587f51eed4", "x_b6a604011bc1986dd1577465"},
	}
	for _, tc := range cases {
		if got := StableID64(tc.parts[0], tc.parts[1:]...); got != tc.id64 {
			t.Errorf("StableID64(%q) = %s, want %s", tc.parts, got, tc.id64)
		}
		if got := StableID24(tc.parts[0], tc.parts[1:]...); got != tc.id24 {
			t.Errorf("StableID24(%q) = %s, want %s", tc.parts, got, tc.id24)
		}
		if !strings.HasPrefix(tc.id64, tc.parts[0]+"_") || len(tc.id64) != len(tc.parts[0])+65 {
			t.Errorf("bad fixture %s", tc.id64)
		}
	}
}
