package pyjson

import "testing"

// TestTreeValues: an absent optional is null, a present one its value; a nil string list is
// null and an empty one [], as the canonical form tells them apart.
func TestTreeValues(t *testing.T) {
	n, s := int64(7), "x"
	var none *string
	for _, tc := range []struct {
		v    any
		want string
	}{
		{OrNull(&n), "7"},
		{OrNull(&s), `"x"`},
		{OrNull(none), "null"},
		{StringList(nil), "null"},
		{StringList([]string{}), "[]"},
		{StringList([]string{"a", "b"}), `["a","b"]`},
	} {
		if got := MustCanonicalJSON(tc.v); got != tc.want {
			t.Errorf("%#v: %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestCloneTree: the copy is equal and shares no object or list with the original at any
// depth; a nil object stays nil.
func TestCloneTree(t *testing.T) {
	orig, err := DecodeTree([]byte(`{"a": [1, {"b": "x"}, []], "c": {"d": null, "e": 1.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	before := MustCanonicalJSON(orig)
	cp := CloneTree(orig)
	if MustCanonicalJSON(cp) != before {
		t.Fatalf("copy %s, want %s", MustCanonicalJSON(cp), before)
	}
	m := cp.(map[string]any)
	m["c"].(map[string]any)["d"] = "changed"
	list := m["a"].([]any)
	list[1].(map[string]any)["b"] = "changed"
	list[0] = 2
	m["new"] = true
	if got := MustCanonicalJSON(orig); got != before {
		t.Errorf("changing the copy changed the original: %s", got)
	}
	if CloneObject(nil) != nil {
		t.Error("CloneObject(nil) is not nil")
	}
}
