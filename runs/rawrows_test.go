package runs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawTables are the tables holding a run's rows (rawColumns).
var rawTables = []string{"memories", "attempts", "states", "evidence", "trials", "model_contexts", "calls", "executor_plan", "faults", "extra_rows"}

// storedRow is one stored row and where it came from.
type storedRow struct {
	table string
	line  int
	file  string
	cols  rawCols
}

// storedRows lists every row a run stored, with the file it was read from (a compressed row's
// chunk says its artifact; calls and extra rows say theirs).
func storedRows(t *testing.T, s *Store) []storedRow {
	t.Helper()
	var out []storedRow
	for _, table := range rawTables {
		artifact := "(SELECT artifact FROM row_chunks WHERE chunk_pk = x.chunk_pk)"
		if table == "calls" || table == "extra_rows" {
			artifact = "x.artifact"
		}
		err := eachRow(context.Background(), s.db, func(r rowScanner) error {
			sr := storedRow{table: table}
			var art *string
			if err := r.Scan(append([]any{&sr.line, &art}, sr.cols.dest()...)...); err != nil {
				return err
			}
			if art != nil {
				sr.file = *art
			}
			out = append(out, sr)
			return nil
		}, `SELECT x.line, `+artifact+`, `+rawSelect("x")+` FROM `+table+` x`)
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// fileLine is line n (1-based) of a run file without its line end.
func fileLine(t *testing.T, dir, artifact string, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, artifact+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	return bytes.TrimRight(lines[n-1], "\r")
}

// TestCompressedRowsReadBackExactly: every large row of an imported run is stored compressed
// and reads back as the run file's line, byte for byte; small rows stay plain.
func TestCompressedRowsReadBackExactly(t *testing.T) {
	ctx := context.Background()
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: builtinCases(t), freeText: true})
	s, _ := openStore(t)
	res := importOne(t, s, dir)
	// A view reading a compressed memory row: the chain's writer, from its first memory.
	chains, err := s.Chains(ctx, ChainFilter{RunID: res.RunID})
	if err != nil || len(chains) == 0 {
		t.Fatalf("chains: %v %v", chains, err)
	}
	for _, ch := range chains {
		if ch.Memories == 0 {
			continue
		}
		if w, err := s.ChainWriter(ctx, ch.Key); err != nil || w.EALChainID == "" {
			t.Fatalf("chain %s/%s writer: %+v %v", ch.CaseID, ch.ConditionID, w, err)
		}
	}
	rr := newRowReader(s.db)
	compressed, plain := 0, 0
	for _, sr := range storedRows(t, s) {
		if !sr.cols.chunk.Valid {
			plain++
			if len(sr.cols.json) >= plainRowMax {
				t.Errorf("%s line %d: %d bytes stored plain", sr.table, sr.line, len(sr.cols.json))
			}
			continue
		}
		compressed++
		if sr.cols.json != "" {
			t.Errorf("%s line %d: a compressed row also keeps its bytes in row_json", sr.table, sr.line)
		}
		got, err := rr.bytes(ctx, &sr.cols, sr.table)
		if err != nil {
			t.Fatal(err)
		}
		if want := fileLine(t, dir, sr.file, sr.line); !bytes.Equal(got, want) {
			t.Fatalf("%s line %d reads back as\n%s\nnot\n%s", sr.file, sr.line, got, want)
		}
	}
	if compressed < 100 {
		t.Fatalf("only %d rows compressed (%d plain)", compressed, plain)
	}
}

// TestFlippedByteInChunkIsReported: one byte flipped anywhere inside a stored chunk makes
// every read of a row it changes fail with ErrCorruptRow, naming the row's file and line; no
// read hands back bytes other than the file's line.
func TestFlippedByteInChunkIsReported(t *testing.T) {
	ctx := context.Background()
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: builtinCases(t)[:2]})
	s, _ := openStore(t)
	res := importOne(t, s, dir)
	var chunkPK int64
	var data []byte
	// The trials chunk: derivation and the views read those rows.
	if err := s.db.QueryRow(`SELECT chunk_pk, data FROM row_chunks WHERE artifact = 'trials' ORDER BY chunk_pk LIMIT 1`).Scan(&chunkPK, &data); err != nil {
		t.Fatal(err)
	}
	var affected []storedRow
	for _, sr := range storedRows(t, s) {
		if sr.cols.chunk.Valid && sr.cols.chunk.Int64 == chunkPK {
			affected = append(affected, sr)
		}
	}
	if len(affected) < 2 {
		t.Fatalf("the chunk holds %d rows", len(affected))
	}
	step := max(1, len(data)/97)
	reported := 0
	for pos := 0; pos < len(data); pos += step {
		bad := bytes.Clone(data)
		bad[pos] ^= 0x5a
		if _, err := s.db.Exec(`UPDATE row_chunks SET data = ? WHERE chunk_pk = ?`, bad, chunkPK); err != nil {
			t.Fatal(err)
		}
		rr := newRowReader(s.db)
		for _, sr := range affected {
			what := sr.file + ".jsonl line " + itoa(sr.line)
			got, err := rr.bytes(ctx, &sr.cols, what)
			if err != nil {
				if !errors.Is(err, ErrCorruptRow) || !strings.Contains(err.Error(), what) {
					t.Fatalf("byte %d: %v", pos, err)
				}
				reported++
				continue
			}
			if want := fileLine(t, dir, sr.file, sr.line); !bytes.Equal(got, want) {
				t.Fatalf("byte %d flipped: %s hands back other bytes", pos, what)
			}
		}
	}
	if reported == 0 {
		t.Fatal("no flipped byte was reported")
	}
	// Through the views: re-deriving the run reads every trial back and must refuse the damage.
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 0x5a
	if _, err := s.db.Exec(`UPDATE row_chunks SET data = ? WHERE chunk_pk = ?`, bad, chunkPK); err != nil {
		t.Fatal(err)
	}
	var runPK int64
	var corpusVersion string
	if err := s.db.QueryRow(`SELECT run_pk, corpus_version FROM runs WHERE run_id = ?`, res.RunID).Scan(&runPK, &corpusVersion); err != nil {
		t.Fatal(err)
	}
	_, err := s.inTx(ctx, func(w *txWriter) error {
		if err := clearDerived(w, runPK); err != nil {
			return err
		}
		_, err := s.deriveRun(w, runPK, "procurement", corpusVersion)
		return err
	})
	if !errors.Is(err, ErrCorruptRow) || !strings.Contains(err.Error(), "trials.jsonl line") {
		t.Fatalf("deriving over a damaged chunk: %v", err)
	}
}

// TestMigrationKeepsSearchAndPlainRows: a workspace made before compressed rows (schema 130)
// keeps its corpus searchable after the migration rebuilds the search index over the turns
// themselves, and rows stored plain (as every row was before) read as they are.
func TestMigrationKeepsSearchAndPlainRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	migrationCap = 130
	old, err := Open(path)
	migrationCap = 0
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.SchemaVersion(ctx); v != 130 {
		t.Fatalf("old workspace at schema %d", v)
	}
	if _, err := old.Import(ctx, []string{"testdata/corpus_fixture_v1.jsonl"}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := old.Search(ctx, "contractor", 100)
	if err != nil || len(before) == 0 {
		t.Fatalf("search before: %d hits, %v", len(before), err)
	}
	old.Close()
	s := mustOpen(t, path)
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v < 180 {
		t.Fatalf("migrated to %d", v)
	}
	after, err := s.Search(ctx, "contractor", 100)
	if err != nil || len(after) != len(before) {
		t.Fatalf("search after the migration: %d hits (before %d), %v", len(after), len(before), err)
	}
	rr := newRowReader(s.db)
	plain := rawCols{json: `{"a": 1}`}
	if got, err := rr.text(ctx, &plain, "x"); err != nil || got != plain.json {
		t.Fatalf("plain row: %q %v", got, err)
	}
}

// TestNoDirectRowJSONReads: a query reading row_json itself would get "" for every compressed
// row. Rows are read through rawSelect and rowReader; only rawrows.go names the column.
func TestNoDirectRowJSONReads(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "rawrows.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(strings.ReplaceAll(line, "source_row_json", ""), "row_json") {
				t.Errorf("%s:%d names row_json: read rows through rawSelect and rowReader (rawrows.go)", f, i+1)
			}
		}
	}
}
