package rundir

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestLineLimitIsExact: a row of exactly MaxLineBytes (line end not counted, LF or CRLF)
// is read; one byte more is refused with the line limit's message.
func TestLineLimitIsExact(t *testing.T) {
	row := func(n int) []byte {
		pad := n - len(`{"x": ""}`)
		return []byte(`{"x": "` + strings.Repeat("a", pad) + `"}`)
	}
	for _, end := range []string{"\n", "\r\n"} {
		data := append(append([]byte("{}\n"), row(MaxLineBytes)...), end...)
		if rows, err := ParseRows("ok.jsonl", "other", data); err != nil || len(rows) != 2 {
			t.Fatalf("a row of exactly the limit (%q): %d rows, %v", end, len(rows), err)
		}
		data = append(append([]byte("{}\n"), row(MaxLineBytes+1)...), end...)
		_, err := ParseRows("big.jsonl", "other", data)
		wantErr(t, err, "big.jsonl:2: line longer than the limit of 16777216 bytes")
	}
}

// TestLongIntegersInRows: a row holding an integer literal past pyjson.MaxIntegerDigits is
// refused at its line and field, by the full parser and by the importer's shallow one.
func TestLongIntegersInRows(t *testing.T) {
	long := strings.Repeat("9", pyjson.MaxIntegerDigits+1)
	data := []byte("{}\n{\"scope\": {\"max_amount\": " + long + "}}\n")
	_, err := ParseRows("m.jsonl", "other", data)
	wantErr(t, err, "m.jsonl:2: field scope.max_amount: integer literal of 4,301 digits is longer than the limit of 4300 digits")
	if _, ok := shallowTree(Memories, bytes.TrimSpace(data[3:])); ok {
		t.Error("the shallow parser accepted an over-long integer")
	}
}
