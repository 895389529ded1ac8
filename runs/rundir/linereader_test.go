package rundir

import (
	"strings"
	"testing"
)

// TestLineReaderNextRow: NextRow skips blank and white-space-only lines (LF or CRLF) and
// numbers the lines it returns as the file numbers them.
func TestLineReaderNextRow(t *testing.T) {
	lr := NewLineReader(strings.NewReader("\n{\"a\":1}\r\n  \t\n\r\n{\"b\":2}\n \n{\"c\":3}"), "x.jsonl")
	type got struct {
		line string
		no   int
	}
	var rows []got
	for {
		line, no, ok, err := lr.NextRow()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		rows = append(rows, got{string(line), no})
	}
	want := []got{{`{"a":1}`, 2}, {`{"b":2}`, 5}, {`{"c":3}`, 7}}
	if len(rows) != len(want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %v, want %v", i, rows[i], want[i])
		}
	}
}
