package pyjson

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeTreeBounds: every reader's decoder refuses an integer literal past
// MaxIntegerDigits (naming line, column and field) and invalid UTF-8 (naming line and
// column), and accepts the bound itself, long floats and digits inside strings.
func TestDecodeTreeBounds(t *testing.T) {
	at := strings.Repeat("7", MaxIntegerDigits)
	for _, ok := range []string{
		`{"a": ` + at + `}`, `{"a": -` + at + `}`, `{"a": 1.` + at + at + `}`, `{"a": "` + at + at + `"}`, `[1e5000]`,
		`{"a": "\"` + at + at + `"}`,
	} {
		if _, err := DecodeTree([]byte(ok)); err != nil {
			t.Errorf("%.40s…: %v", ok, err)
		}
	}
	for _, c := range []struct{ doc, want string }{
		{"{\"a\": 1,\n \"scope\": {\"max_amount\": " + at + "9}}", "field scope.max_amount: integer literal of 4,301 digits is longer than the limit of 4300 digits"},
		{"[0, -" + strings.Repeat("1", 1_000_000) + "]", "field [1]: integer literal of 1,000,000 digits"},
		{"{\"a\":\n\"b\xffc\"}", "invalid UTF-8 (byte 0xff at column 3)"},
	} {
		_, err := DecodeTree([]byte(c.doc))
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q…: error %v, want %q", c.doc, err, c.want)
			continue
		}
		if got := FileError("m.json", []byte(c.doc), err).Error(); !strings.HasPrefix(got, "m.json:2: ") && !strings.HasPrefix(got, "m.json:1: field [1]") {
			t.Errorf("FileError: %.120s", got)
		}
	}
}
