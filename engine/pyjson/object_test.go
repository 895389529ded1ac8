package pyjson

import (
	"strings"
	"testing"
)

// TestReadObjectKeepsOrderAndBytes: keys come back in file order (not sorted), values byte for
// byte (spacing, escapes and number spelling kept); what is not one object is refused.
func TestReadObjectKeepsOrderAndBytes(t *testing.T) {
	fs, err := ReadObject([]byte(`{"z": 1.50, "a": {"k" : [1,2]}, "m": "\u00e9"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Key+"="+string(f.Raw))
	}
	if want := `z=1.50 a={"k" : [1,2]} m="\u00e9"`; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	for _, bad := range []string{`[1, 2]`, `{"a": 1} {"b": 2}`, `{"a": 1`, ``} {
		if _, err := ReadObject([]byte(bad)); err == nil {
			t.Errorf("%q was read as one object", bad)
		}
	}
}
