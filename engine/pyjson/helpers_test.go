package pyjson

import (
	"encoding/json"
	"testing"
)

// checkDump checks that DumpPy writes v in the style exactly as want; what names the value
// in a failure.
func checkDump(t *testing.T, what string, v any, style PyStyle, want string) {
	t.Helper()
	got, err := DumpPy(v, style)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(got) != want {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// checkMarshal checks that encoding/json writes v exactly as want.
func checkMarshal(t *testing.T, what string, v any, want string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(b) != want {
		t.Errorf("%s: got %s, want %s", what, b, want)
	}
}
