package runs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ealscope/ealscope/runs/rundir"
)

// ReferenceLoad is the COMPARISON BASELINE for import speed, not a product path: it does what
// the plain Python loader of the import-speed issue does, and nothing more. It reads a run
// directory's manifest, hashes every file it lists (sha256, compared with the manifest) and
// stores each JSONL row raw, as (file, line, text), into one table of a fresh SQLite database,
// all in one transaction. It checks no row, resolves no reference, derives nothing and builds
// no index: it is the floor a researcher compares ealscope's import against (`ealscope bench
// import`). It uses the same SQLite driver and the same WAL / synchronous=NORMAL settings as
// the workspace, so the two timings differ only in what each loader does. It is meant for the
// runs `ealscope bench import` generates: it does not confine manifest paths to the directory
// or bound file sizes as rundir does.
type ReferenceLoad struct {
	Files int   `json:"files"`
	Rows  int   `json:"rows"`
	Bytes int64 `json:"bytes"`
	// Elapsed is the wall time from opening the database to its close after the commit (the
	// close checkpoints the WAL into the database file), timed as ealscope's import is.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// RunReferenceLoader loads the run directory dir into a new database at dbPath (which must not
// exist) as described on ReferenceLoad.
func RunReferenceLoader(ctx context.Context, dir, dbPath string) (ReferenceLoad, error) {
	var out ReferenceLoad
	start := time.Now()
	if _, err := os.Stat(dbPath); err == nil {
		return out, fmt.Errorf("reference loader: %s exists (it loads into a fresh database)", dbPath)
	}
	files, err := referenceFiles(dir)
	if err != nil {
		return out, err
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return out, err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return out, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE rows (file TEXT NOT NULL, line INTEGER NOT NULL, raw TEXT NOT NULL)`); err != nil {
		return out, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO rows (file, line, raw) VALUES (?,?,?)`)
	if err != nil {
		return out, err
	}
	defer ins.Close()
	if err := referenceReadFiles(ctx, ins, dir, files, &out); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, err
	}
	if err := db.Close(); err != nil {
		return out, fmt.Errorf("reference loader: closing %s: %w", dbPath, err)
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// referenceFiles is the run's manifest entries in path order.
func referenceFiles(dir string) ([]rundir.FileEntry, error) {
	manifestPath := filepath.Join(dir, rundir.ManifestFile)
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, fmt.Errorf("reference loader: %w", err)
	}
	_, entries, err := rundir.ParseManifest(manifestPath, raw)
	if err != nil {
		return nil, err
	}
	files := make([]rundir.FileEntry, 0, len(entries))
	for _, e := range entries {
		files = append(files, e)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// referenceReadFiles reads and hashes every file against the manifest and, when ins is not
// nil, stores its rows. With ins nil it is the reading-and-hashing part of the reference
// load alone (BenchmarkReferenceLoaderParts measures how much of the load that is).
func referenceReadFiles(ctx context.Context, ins *sql.Stmt, dir string, files []rundir.FileEntry, out *ReferenceLoad) error {
	for _, e := range files {
		full := filepath.Join(dir, filepath.FromSlash(e.Path))
		n, size, sum, err := referenceLoadFile(ctx, ins, full, e.Path)
		if err != nil {
			return err
		}
		if sum != e.SHA256 {
			return fmt.Errorf("reference loader: %s: sha256 %s, manifest says %s", full, sum, e.SHA256)
		}
		out.Files++
		out.Rows += n
		out.Bytes += size
	}
	return nil
}

// referenceLoadFile hashes one file while reading it and, for a .jsonl file, inserts each
// non-blank line as it is (counts it only, when ins is nil).
func referenceLoadFile(ctx context.Context, ins *sql.Stmt, full, rel string) (rows int, size int64, sum string, err error) {
	f, err := os.Open(full)
	if err != nil {
		return 0, 0, "", fmt.Errorf("reference loader: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 1<<20)
	jsonl := filepath.Ext(full) == ".jsonl"
	line := 0
	for {
		b, rerr := br.ReadBytes('\n')
		size += int64(len(b))
		if len(b) > 0 {
			line++
			if t := bytes.TrimRight(b, "\r\n"); jsonl && len(bytes.TrimSpace(t)) > 0 {
				if ins != nil {
					if _, err := ins.ExecContext(ctx, rel, line, string(t)); err != nil {
						return 0, 0, "", err
					}
				}
				rows++
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, 0, "", fmt.Errorf("reference loader: %s: %w", full, rerr)
		}
	}
	return rows, size, hex.EncodeToString(h.Sum(nil)), nil
}
