package tablefile

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

var testColumns = []Column{{"id", String}, {"n", Int64}, {"ok", Bool}, {"rate", Float64}}

// hostile is untrusted text as a model may write it: a terminal escape, quotes, a comma,
// CR LF, a lone CR, a NUL-free control and non-ASCII.
const hostile = "\x1b]0;owned\x07 \"quoted\", line\r\nnext\rcarriage \x01 é"

func TestCSVIsRFC4180AndKeepsTextAsData(t *testing.T) {
	var buf bytes.Buffer
	w, err := New(FormatCSV, &buf, testColumns)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]any{{hostile, int64(-3), true, 0.25}, {nil, nil, nil, nil}} {
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "id,n,ok,rate\r\n") {
		t.Fatalf("header and CRLF: %q", buf.String())
	}
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// encoding/csv's reader turns a quoted CR LF into LF (other RFC 4180 readers keep it); the
	// bytes written are checked below.
	wantText := strings.ReplaceAll(hostile, "\r\n", "\n")
	if len(recs) != 3 || recs[1][0] != wantText || recs[1][1] != "-3" || recs[1][2] != "true" || recs[1][3] != "0.25" {
		t.Fatalf("rows read back: %q", recs)
	}
	if strings.Join(recs[2], "|") != "|||" {
		t.Fatalf("nulls are empty fields: %q", recs[2])
	}
	if want := `"` + strings.ReplaceAll(hostile, `"`, `""`) + `",-3,true,0.25` + "\r\n"; !strings.Contains(buf.String(), want) {
		t.Fatalf("the text was altered: a table keeps untrusted text as data, byte for byte\n%q", buf.String())
	}
}

func TestRowsThatDoNotMatchTheColumnsAreRefused(t *testing.T) {
	for _, format := range []string{FormatCSV, FormatParquet} {
		w, err := New(format, io.Discard, testColumns)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write([]any{"a", "not a number", true, 1.0}); err == nil || !strings.Contains(err.Error(), "column n") {
			t.Errorf("%s: a string in an int64 column: %v", format, err)
		}
		if err := w.Write([]any{"a"}); err == nil {
			t.Errorf("%s: a short row was accepted", format)
		}
	}
	if _, err := New("xlsx", io.Discard, testColumns); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestParquetRoundTripsValuesAndNulls(t *testing.T) {
	var buf bytes.Buffer
	w, err := New(FormatParquet, &buf, testColumns)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*batchRows + 7 // several batches
	for i := range n {
		row := []any{hostile, int64(i), i%2 == 0, float64(i) / 4}
		if i == 5 {
			row = []any{nil, nil, nil, nil}
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != n {
		t.Fatalf("rows: %d, want %d", f.NumRows(), n)
	}
	r := parquet.NewReader(f)
	defer r.Close()
	idx := map[string]int{}
	for i, c := range f.Schema().Columns() {
		idx[c[0]] = i
	}
	rows := make([]parquet.Row, n)
	got, err := r.ReadRows(rows)
	if err != nil && err != io.EOF || got != n {
		t.Fatalf("read %d rows: %v", got, err)
	}
	for i, row := range rows[:got] {
		id, num, ok, rate := row[idx["id"]], row[idx["n"]], row[idx["ok"]], row[idx["rate"]]
		if i == 5 {
			if !id.IsNull() || !num.IsNull() || !ok.IsNull() || !rate.IsNull() {
				t.Fatalf("row 5 should be all null: %v", row)
			}
			continue
		}
		if string(id.ByteArray()) != hostile || num.Int64() != int64(i) || ok.Boolean() != (i%2 == 0) || rate.Double() != float64(i)/4 {
			t.Fatalf("row %d read back as %v", i, row)
		}
	}
}
