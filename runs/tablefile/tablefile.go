// Package tablefile writes analysis tables (docs/TABLES.md) as Parquet or CSV files, one row at
// a time, so a table of any length is written in bounded memory. It knows columns and values,
// never where the rows come from: the runs package reads the workspace and hands rows here.
package tablefile

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Type is a column's value type. Every column may be null (Parquet OPTIONAL); CSV writes a
// null as an empty field.
type Type int

// The column types a table uses: Parquet's BYTE_ARRAY (UTF-8), INT64, BOOLEAN and DOUBLE.
const (
	String Type = iota
	Int64
	Bool
	Float64
)

func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	case Float64:
		return "double"
	}
	return "string"
}

// Column is one column of a table.
type Column struct {
	Name string
	Type Type
}

// Writer takes a table's rows in order and finishes the file on Close.
type Writer interface {
	// Write takes one row: a value per column, in column order, each nil or of the column's
	// Go type (string, int64, bool, float64).
	Write(row []any) error
	Close() error
}

// Formats the export writes.
const (
	FormatParquet = "parquet"
	FormatCSV     = "csv"
)

// Extension is the file name suffix of a format.
func Extension(format string) string { return "." + format }

// New starts a table of the given format on w.
func New(format string, w io.Writer, columns []Column) (Writer, error) {
	switch format {
	case FormatParquet:
		return newParquet(w, columns), nil
	case FormatCSV:
		return newCSV(w, columns)
	}
	return nil, fmt.Errorf("table format %q: must be %q or %q", format, FormatParquet, FormatCSV)
}

// checkRow reports a row whose length or value types do not match the columns: a mistake in
// a table's definition, caught before a wrong file is written.
func checkRow(columns []Column, row []any) error {
	if len(row) != len(columns) {
		return fmt.Errorf("row has %d values for %d columns", len(row), len(columns))
	}
	for i, v := range row {
		if v == nil {
			continue
		}
		ok := false
		switch columns[i].Type {
		case String:
			_, ok = v.(string)
		case Int64:
			_, ok = v.(int64)
		case Bool:
			_, ok = v.(bool)
		case Float64:
			_, ok = v.(float64)
		}
		if !ok {
			return fmt.Errorf("column %s (%s): got a %T", columns[i].Name, columns[i].Type, v)
		}
	}
	return nil
}

// csvWriter writes RFC 4180: a header row, CRLF after every record, a field quoted when it
// holds a comma, quote, CR or LF, its quotes doubled. Fields are written byte for byte:
// encoding/csv's writer drops a lone CR in CRLF mode, and a table keeps untrusted text as data
// (a control character in a model's output stays in the field for the reader to judge).
type csvWriter struct {
	w       *bufio.Writer
	columns []Column
	fields  []string
}

func newCSV(w io.Writer, columns []Column) (*csvWriter, error) {
	c := &csvWriter{w: bufio.NewWriterSize(w, 64*1024), columns: columns, fields: make([]string, len(columns))}
	for i, col := range columns {
		c.fields[i] = col.Name
	}
	return c, c.record()
}

func (c *csvWriter) record() error {
	for i, f := range c.fields {
		if i > 0 {
			c.w.WriteByte(',')
		}
		if !strings.ContainsAny(f, ",\"\r\n") {
			c.w.WriteString(f)
			continue
		}
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
		c.w.WriteByte('"')
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvWriter) Write(row []any) error {
	if err := checkRow(c.columns, row); err != nil {
		return err
	}
	for i, v := range row {
		switch v := v.(type) {
		case nil:
			c.fields[i] = ""
		case string:
			c.fields[i] = v
		case int64:
			c.fields[i] = strconv.FormatInt(v, 10)
		case bool:
			c.fields[i] = strconv.FormatBool(v)
		case float64:
			c.fields[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return c.record()
}

func (c *csvWriter) Close() error { return c.w.Flush() }

// parquetWriter buffers rows in a small batch and flushes a row group every rowGroupRows, so
// memory stays bounded whatever the table's length.
type parquetWriter struct {
	w       *parquet.Writer
	columns []Column
	// leaf is each column's index among the schema's leaves (parquet-go orders a group's
	// fields by name).
	leaf  []int
	batch []parquet.Row
}

const (
	rowGroupRows = 64 * 1024
	batchRows    = 512
)

func newParquet(w io.Writer, columns []Column) *parquetWriter {
	group := parquet.Group{}
	for _, c := range columns {
		group[c.Name] = parquet.Optional(columnNode(c.Type))
	}
	schema := parquet.NewSchema("ealscope", group)
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.Name
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	leaf := make([]int, len(columns))
	for i, n := range names {
		leaf[i], _ = slices.BinarySearch(sorted, n)
	}
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.CreatedBy("ealscope", "", ""))
	return &parquetWriter{w: pw, columns: columns, leaf: leaf}
}

func columnNode(t Type) parquet.Node {
	switch t {
	case Int64:
		return parquet.Int(64)
	case Bool:
		return parquet.Leaf(parquet.BooleanType)
	case Float64:
		return parquet.Leaf(parquet.DoubleType)
	}
	return parquet.String()
}

func (p *parquetWriter) Write(row []any) error {
	if err := checkRow(p.columns, row); err != nil {
		return err
	}
	out := make(parquet.Row, len(row))
	for i, v := range row {
		var val parquet.Value
		def := 1
		switch v := v.(type) {
		case nil:
			val, def = parquet.NullValue(), 0
		case string:
			val = parquet.ByteArrayValue([]byte(v))
		case int64:
			val = parquet.Int64Value(v)
		case bool:
			val = parquet.BooleanValue(v)
		case float64:
			val = parquet.DoubleValue(v)
		}
		out[p.leaf[i]] = val.Level(0, def, p.leaf[i])
	}
	p.batch = append(p.batch, out)
	if len(p.batch) >= batchRows {
		return p.flush()
	}
	return nil
}

func (p *parquetWriter) flush() error {
	if len(p.batch) == 0 {
		return nil
	}
	_, err := p.w.WriteRows(p.batch)
	clear(p.batch)
	p.batch = p.batch[:0]
	return err
}

func (p *parquetWriter) Close() error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.w.Close()
}
