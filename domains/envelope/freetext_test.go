package envelope

import (
	"slices"
	"testing"
)

func TestFreeTextLines(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
		err        string
	}{
		{"empty form", "(none)\r\n\n", nil, ""},
		{"records", "# H\r\n\r\n## A\n- x: 1\n\n", []string{"# H", "", "## A", "- x: 1"}, ""},
		{"header only", "# H", []string{"# H"}, ""},
		{"no header", "## A\n- x: 1", nil, `line 1: expected "# H", the canonical layout's header`},
	} {
		got, err := FreeTextLines(tc.text, "(none)", "# H")
		if gotErr := ""; err != nil {
			gotErr = err.Error()
			if gotErr != tc.err {
				t.Errorf("%s: error %q, want %q", tc.name, gotErr, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("%s: no error, want %q", tc.name, tc.err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: lines %q, want %q", tc.name, got, tc.want)
		}
	}
}
