package runs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/ealscope/ealscope/runs/rowchunk"
	"github.com/ealscope/ealscope/runs/rundir"
)

// A run's rows are kept as their verified line bytes (row_json). Rows of plainRowMax bytes or
// more are stored compressed instead: consecutive rows of one artifact share a zstd chunk in
// row_chunks (runs/rowchunk), and the row keeps its chunk, offset, length and sha256, with
// row_json left empty. Every read of such a row decompresses its chunk and checks the hash
// (rowReader). Rows imported before compression existed keep their row_json and read as
// before.

// plainRowMax is the length under which a row stays plain: a short row gains little from
// compression and costs a chunk lookup to read.
const plainRowMax = 256

// ErrCorruptRow is wrapped by the error of every read of a stored row whose bytes do not come
// back as they were imported (a damaged chunk or reference).
var ErrCorruptRow = rowchunk.ErrCorrupt

// rawColumns are the columns, in an INSERT's column list, that hold a row's bytes.
const rawColumns = "row_json, chunk_pk, chunk_offset, chunk_length, row_sha256"

// rawPlaceholders are rawColumns' placeholders.
const rawPlaceholders = "?,?,?,?,?"

// rawSelect names rawColumns of a table alias in a SELECT.
func rawSelect(alias string) string {
	return alias + ".row_json, " + alias + ".chunk_pk, " + alias + ".chunk_offset, " + alias + ".chunk_length, " + alias + ".row_sha256"
}

// openChunk is the chunk an artifact's next large rows go into.
type openChunk struct {
	pk       int64
	runPK    int64
	artifact string
	b        rowchunk.Builder
}

// sealedChunk is a chunk compressed by a worker, waiting to be inserted.
type sealedChunk struct {
	pk, runPK int64
	artifact  string
	rows      int
	rawLen    int
	data      []byte
}

// chunkWriter groups an import transaction's large rows into chunks. Chunk keys are given out
// in order while the transaction holds the write lock, so a row is inserted with its chunk's
// key before the chunk itself, and flush stores every chunk before the commit. Compression
// runs on worker goroutines; only the transaction's own goroutine touches SQLite.
type chunkWriter struct {
	w        *txWriter
	next     int64
	open     map[string]*openChunk
	done     chan sealedChunk
	inflight int
	limit    int
}

func newChunkWriter(w *txWriter) (*chunkWriter, error) {
	cw := &chunkWriter{w: w, open: map[string]*openChunk{}, limit: max(2, runtime.GOMAXPROCS(0))}
	cw.done = make(chan sealedChunk, cw.limit)
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COALESCE(MAX(chunk_pk), 0) + 1 FROM row_chunks`).Scan(&cw.next); err != nil {
		return nil, err
	}
	return cw, nil
}

// raw is the five values of rawColumns for one row of an artifact.
func (w *txWriter) raw(runPK int64, artifact string, r rundir.Row) ([]any, error) {
	text := r.Raw
	if len(text) == 0 { // a row built in memory
		text = []byte(rowJSON(r))
		r.Hashed = false
	}
	if len(text) < plainRowMax {
		return []any{string(text), nil, nil, nil, nil}, nil
	}
	if w.chunks == nil {
		cw, err := newChunkWriter(w)
		if err != nil {
			return nil, err
		}
		w.chunks = cw
	}
	sum := r.RawSHA256
	if !r.Hashed {
		sum = sha256.Sum256(text)
	}
	return w.chunks.add(runPK, artifact, text, sum)
}

// insertRaw runs an INSERT whose last columns are rawColumns, with args and then row r (of
// the artifact) stored plain or compressed.
func (w *txWriter) insertRaw(table, query string, runPK int64, artifact string, r rundir.Row, args ...any) (sql.Result, error) {
	raw, err := w.raw(runPK, artifact, r)
	if err != nil {
		return nil, err
	}
	return w.exec(table, query, append(args, raw...)...)
}

func (cw *chunkWriter) add(runPK int64, artifact string, text []byte, sum [32]byte) ([]any, error) {
	key := itoa(int(runPK)) + "\x00" + artifact
	oc := cw.open[key]
	if oc == nil {
		oc = &openChunk{pk: cw.next, runPK: runPK, artifact: artifact}
		cw.next++
		cw.open[key] = oc
	}
	ref := oc.b.AddHashed(text, sum)
	vals := []any{"", oc.pk, ref.Offset, ref.Length, ref.SHA256[:]}
	if oc.b.Full() {
		if err := cw.seal(oc); err != nil {
			return nil, err
		}
		oc.pk = cw.next
		cw.next++
	}
	return vals, nil
}

// seal hands an open chunk's rows to a compression worker, first storing finished chunks
// while as many are in flight as there are workers.
func (cw *chunkWriter) seal(oc *openChunk) error {
	for cw.inflight >= cw.limit {
		if err := cw.store(<-cw.done); err != nil {
			return err
		}
	}
	if err := cw.drain(); err != nil {
		return err
	}
	rows, raw := oc.b.Rows(), oc.b.Take()
	pk, runPK, artifact := oc.pk, oc.runPK, oc.artifact
	cw.inflight++
	go func() {
		cw.done <- sealedChunk{pk: pk, runPK: runPK, artifact: artifact, rows: rows, rawLen: len(raw), data: rowchunk.Compress(raw)}
	}()
	return nil
}

// drain stores the chunks already compressed, without waiting.
func (cw *chunkWriter) drain() error {
	for {
		select {
		case c := <-cw.done:
			if err := cw.store(c); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

func (cw *chunkWriter) store(c sealedChunk) error {
	cw.inflight--
	_, err := cw.w.exec("", `INSERT INTO row_chunks (chunk_pk, run_pk, artifact, codec, row_count, raw_bytes, data) VALUES (?,?,?,?,?,?,?)`,
		c.pk, c.runPK, c.artifact, rowchunk.Codec, c.rows, c.rawLen, c.data)
	return err
}

// flush seals every open chunk and stores every chunk, waiting for the workers: after it, every
// row written so far can be read back.
func (cw *chunkWriter) flush() error {
	for key, oc := range cw.open {
		if oc.b.Rows() > 0 {
			if err := cw.seal(oc); err != nil {
				return err
			}
		}
		delete(cw.open, key)
	}
	for cw.inflight > 0 {
		if err := cw.store(<-cw.done); err != nil {
			return err
		}
	}
	return nil
}

// flushChunks makes every row written in the transaction readable (see chunkWriter.flush).
func (w *txWriter) flushChunks() error {
	if w.chunks == nil {
		return nil
	}
	return w.chunks.flush()
}

// rawCols receives rawColumns from a query.
type rawCols struct {
	json          string
	chunk         sql.NullInt64
	offset, lenth sql.NullInt64
	sha           []byte
}

// dest is the Scan destinations of rawColumns.
func (c *rawCols) dest() []any {
	return []any{&c.json, &c.chunk, &c.offset, &c.lenth, &c.sha}
}

// rowReader reads stored rows back, keeping the last few chunks it decompressed (the rows a
// view reads are mostly neighbours).
type rowReader struct {
	q     querier
	cache map[int64][]byte
	order []int64
}

const rowReaderChunks = 4

func newRowReader(q querier) *rowReader {
	return &rowReader{q: q, cache: map[int64][]byte{}}
}

// bytes is a stored row's bytes, verified against its sha256 when it was compressed. what
// names the row in an error ("trials.jsonl line 12").
func (rr *rowReader) bytes(ctx context.Context, c *rawCols, what string) ([]byte, error) {
	if !c.chunk.Valid {
		return []byte(c.json), nil
	}
	raw, err := rr.chunk(ctx, c.chunk.Int64)
	if err == nil {
		var sum [32]byte
		if sum, err = rowchunk.SHA256From(c.sha); err == nil {
			var row []byte
			if row, err = rowchunk.Row(raw, rowchunk.Ref{Offset: int(c.offset.Int64), Length: int(c.lenth.Int64), SHA256: sum}); err == nil {
				return row, nil
			}
		}
	}
	return nil, fmt.Errorf("workspace: %s (stored compressed, chunk %d): %w", what, c.chunk.Int64, err)
}

// decodeStored reads the stored row at line of artifact file (file.jsonl, which errors name)
// and decodes it into a T. parsed is false when the row's JSON does not decode into T: the
// readers of single fields (a fault's description, a context's hash or messages) pass such a
// row over rather than fail the view.
func decodeStored[T any](ctx context.Context, rr *rowReader, c *rawCols, file string, line int) (v T, parsed bool, err error) {
	raw, err := rr.bytes(ctx, c, file+".jsonl line "+itoa(line))
	if err != nil {
		return v, false, err
	}
	return v, json.Unmarshal(raw, &v) == nil, nil
}

// text is bytes as a string.
func (rr *rowReader) text(ctx context.Context, c *rawCols, what string) (string, error) {
	b, err := rr.bytes(ctx, c, what)
	return string(b), err
}

func (rr *rowReader) chunk(ctx context.Context, pk int64) ([]byte, error) {
	if raw, ok := rr.cache[pk]; ok {
		return raw, nil
	}
	var codec string
	var rawLen int64
	var data []byte
	err := eachRow(ctx, rr.q, func(r rowScanner) error {
		return r.Scan(&codec, &rawLen, &data)
	}, `SELECT codec, raw_bytes, data FROM row_chunks WHERE chunk_pk = ?`, pk)
	if err != nil {
		return nil, err
	}
	if data == nil && codec == "" {
		return nil, fmt.Errorf("%w: the chunk is missing", rowchunk.ErrCorrupt)
	}
	if codec != rowchunk.Codec {
		return nil, fmt.Errorf("%w: unknown codec %q", rowchunk.ErrCorrupt, codec)
	}
	raw, err := rowchunk.Decompress(data, rawLen)
	if err != nil {
		return nil, err
	}
	if len(rr.order) >= rowReaderChunks {
		delete(rr.cache, rr.order[0])
		rr.order = rr.order[1:]
	}
	rr.cache[pk] = raw
	rr.order = append(rr.order, pk)
	return raw, nil
}
