package pyjson

import (
	"strings"
	"testing"
)

func TestDecodeErrorAtNamesLineAndColumn(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"{\n  \"a\": 1,\n  }\n", "line 3, column 3:"},
		{"{\"block_index\": 0,\n", "line 2, column 1:"},
	} {
		_, err := DecodeTree([]byte(c.text))
		if err == nil {
			t.Fatalf("%q decoded", c.text)
		}
		if got := DecodeErrorAt([]byte(c.text), err); !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: %s, want it to start %q", c.text, got, c.want)
		}
	}
}
