package runs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
)

// txWriter runs the statements of one import transaction, preparing each distinct statement
// once: an import inserts hundreds of thousands of rows through a handful of statements.
type txWriter struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	rows  map[string]int
	// progress, when set, hears the rows written so far every rowProgressEvery rows.
	progress func(rows int)
	written  int
	// chunks gathers the transaction's large rows into compressed chunks (rawrows.go).
	chunks *chunkWriter
}

// rowProgressEvery is how often an import reports the rows it has written (a variable so a
// test can watch a small run report).
var rowProgressEvery = 20000

func newTxWriter(ctx context.Context, tx *sql.Tx) *txWriter {
	return &txWriter{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}, rows: map[string]int{}}
}

func (w *txWriter) stmt(query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(w.ctx, query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = st
	return st, nil
}

// exec runs a prepared statement; table names the row counter it adds to ("" for none).
func (w *txWriter) exec(table, query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	res, err := st.ExecContext(w.ctx, args...)
	if err != nil {
		return nil, err
	}
	if table != "" {
		w.rows[table]++
		w.written++
		if w.progress != nil && w.written%rowProgressEvery == 0 {
			w.progress(w.written)
		}
	}
	return res, nil
}

func (w *txWriter) insertID(table, query string, args ...any) (int64, error) {
	res, err := w.exec(table, query, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// QueryContext runs a read query through the transaction's prepared statement for it: as a
// querier, w prepares a query repeated per chain or per case once.
func (w *txWriter) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// query runs a prepared query and calls fn for each row.
func (w *txWriter) query(fn func(rowScanner) error, query string, args ...any) error {
	return eachRow(w.ctx, w, fn, query, args...)
}

func (w *txWriter) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// jsonText encodes v as compact JSON without HTML escaping (stored text is shown verbatim).
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullBool maps an optional verdict to SQL NULL / 0 / 1.
func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return b2i(*b)
}

func nullStr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// rowScanner is one result row (*sql.Rows or *sql.Row).
type rowScanner = interface{ Scan(...any) error }

// eachRow runs a read query through q (the database or a transaction) and calls fn for each
// row. The rows are closed when it returns, so a transaction can write right after.
func eachRow(ctx context.Context, q querier, fn func(rowScanner) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanOne reads a row of one column.
func scanOne[T any](r rowScanner) (T, error) {
	var v T
	err := r.Scan(&v)
	return v, err
}

// queryAll runs a read query and scans every row with scan; an empty result is an empty,
// non-nil slice so JSON output says [] rather than null.
func queryAll[T any](ctx context.Context, q querier, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	out := []T{}
	err := eachRow(ctx, q, func(r rowScanner) error {
		v, err := scan(r)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
