package freetext

import (
	"errors"
	"slices"
	"strconv"
	"testing"
)

var layout = Layout{Header: "# H", Empty: "# H\n\nNothing.", Heading: "Item "}

func TestWrite(t *testing.T) {
	fields := func(n int, line func(label, value string)) {
		line("Number", strconv.Itoa(n))
		if n > 1 {
			line("Big", "yes")
		}
	}
	id := func(n int) string { return "n" + strconv.Itoa(n) }
	if got := Write(layout, nil, id, fields); got != layout.Empty {
		t.Errorf("no records: %q", got)
	}
	want := "# H\n\n## Item n1\n- Number: 1\n\n## Item n2\n- Number: 2\n- Big: yes"
	if got := Write(layout, []int{1, 2}, id, fields); got != want {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
		err        string
	}{
		{"empty text", "# H\r\n\r\nNothing.\n\n", nil, ""},
		{"records", "# H\r\n\r\n## Item A\n- x: 1\n\n", []string{"# H", "", "## Item A", "- x: 1"}, ""},
		{"header only", "# H", []string{"# H"}, ""},
		{"no header", "## Item A\n- x: 1", nil, `line 1: expected "# H", the canonical layout's header`},
	} {
		got, err := layout.Lines(tc.text)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tc.err {
			t.Errorf("%s: error %q, want %q", tc.name, gotErr, tc.err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: lines %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestScan: blank lines are skipped, headings and fields reach their callbacks with their line
// numbers, a callback's error stops the scan, and any other line is an error naming it.
func TestScan(t *testing.T) {
	var got []string
	heading := func(n int, rest string) error { got = append(got, strconv.Itoa(n)+" heading "+rest); return nil }
	field := func(n int, line string) error {
		if line == "- stop" {
			return errors.New("stopped")
		}
		got = append(got, strconv.Itoa(n)+" field "+line)
		return nil
	}
	lines := []string{"# H", "", "## Item A", "- x: 1", "", "## Item B"}
	if err := layout.Scan(lines, heading, field); err != nil {
		t.Fatal(err)
	}
	want := []string{"3 heading A", "4 field - x: 1", "6 heading B"}
	if !slices.Equal(got, want) {
		t.Errorf("scanned %q, want %q", got, want)
	}
	got = nil
	if err := layout.Scan([]string{"# H", "- a", "- stop", "- b"}, heading, field); err == nil || err.Error() != "stopped" || len(got) != 1 {
		t.Errorf("callback error: %v after %q", err, got)
	}
	for _, stray := range []string{"## Other A", "prose"} {
		want := "line 2: \"" + stray + "\" is not part of the canonical layout"
		if err := layout.Scan([]string{"# H", stray}, heading, field); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", stray, err, want)
		}
	}
}
