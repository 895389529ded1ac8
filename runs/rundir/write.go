package rundir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// Manifest statuses.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// FileEntry is a manifest files.<name> entry.
type FileEntry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// Writer writes a run directory: JSONL artifacts row by row (hashed as they are written) and
// manifest.json, rewritten atomically at every status change.
type Writer struct {
	dir      string
	mu       sync.Mutex
	files    map[string]*artifactFile
	manifest map[string]any
	// whole are files written whole (not JSONL artifacts), listed with their sha256.
	whole map[string]FileEntry
	// journal is the locked JournalFile Commit appends to (nil once finished).
	journal *os.File
}

type artifactFile struct {
	f     *os.File
	buf   *bufio.Writer
	hash  hash.Hash
	rows  int
	bytes int64
}

// Create starts a new run directory; the directory must not exist or be empty. The manifest
// is written at once with status "running".
func Create(dir string, manifest map[string]any) (*Writer, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: run directory is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, files: map[string]*artifactFile{}, manifest: map[string]any{}}
	for k, v := range manifest {
		w.manifest[k] = v
	}
	var err error
	if w.journal, err = openJournal(dir); err != nil {
		return nil, err
	}
	w.manifest["status"] = StatusRunning
	if err := w.writeManifest(); err != nil {
		w.closeJournal()
		return nil, err
	}
	return w, nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes rows to <name>.jsonl in EAL-Bench's row encoding (sorted keys, Python's
// default separators, non-ASCII kept).
func (w *Writer) Append(name string, rows ...any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	af, err := w.file(name)
	if err != nil {
		return err
	}
	for _, row := range rows {
		line, err := pyjson.RowLine(row)
		if err != nil {
			return fmt.Errorf("%s.jsonl row %d: %w", name, af.rows+1, err)
		}
		if err := af.write(line); err != nil {
			return err
		}
	}
	return nil
}

// write adds one encoded row to the file: its bytes, hash, row and byte counts.
func (af *artifactFile) write(line []byte) error {
	if _, err := af.buf.Write(line); err != nil {
		return err
	}
	af.hash.Write(line)
	af.rows++
	af.bytes += int64(len(line))
	return nil
}

// AppendRaw writes pre-encoded lines (each must end in "\n"); calls.jsonl uses it because
// EAL-Bench writes that file in insertion order rather than sorted.
func (w *Writer) AppendRaw(name string, line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	af, err := w.file(name)
	if err != nil {
		return err
	}
	return af.write(line)
}

func (w *Writer) file(name string) (*artifactFile, error) {
	if af, ok := w.files[name]; ok {
		return af, nil
	}
	f, err := os.OpenFile(filepath.Join(w.dir, name+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	af := &artifactFile{f: f, buf: bufio.NewWriterSize(f, 1<<16), hash: sha256.New()}
	w.files[name] = af
	return af, nil
}

// AddFile writes a file that is not a JSONL artifact (an audience sidecar) into the run
// directory, atomically, and lists it in the manifest as files.<name> with its sha256.
func (w *Writer) AddFile(name, path string, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := WriteFileAtomic(filepath.Join(w.dir, path), data); err != nil {
		return err
	}
	if w.whole == nil {
		w.whole = map[string]FileEntry{}
	}
	sum := sha256.Sum256(data)
	w.whole[name] = FileEntry{Path: path, SHA256: hex.EncodeToString(sum[:])}
	return nil
}

// Set records a manifest key (written at the next status change).
func (w *Writer) Set(key string, value any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.manifest[key] = value
}

// Rows is how many rows were written to an artifact so far.
func (w *Writer) Rows(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if af, ok := w.files[name]; ok {
		return af.rows
	}
	return 0
}

// Finish flushes every artifact, records its sha256 and row count in files/counts, sets the
// final status and rewrites manifest.json atomically.
func (w *Writer) Finish(status string, extra map[string]any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := map[string]any{}
	counts := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(w.files)) {
		af := w.files[name]
		if err := af.buf.Flush(); err != nil {
			return err
		}
		if err := af.f.Sync(); err != nil {
			return err
		}
		if err := af.f.Close(); err != nil {
			return err
		}
		files[name] = FileEntry{Path: name + ".jsonl", SHA256: hex.EncodeToString(af.hash.Sum(nil)), Rows: af.rows}
		counts[name] = af.rows
	}
	w.files = map[string]*artifactFile{}
	for name, e := range w.whole {
		files[name] = e
	}
	w.manifest["files"] = files
	w.manifest["counts"] = counts
	w.manifest["status"] = status
	for k, v := range extra {
		w.manifest[k] = v
	}
	if err := w.writeManifest(); err != nil {
		return err
	}
	w.closeJournal()
	return nil
}

func (w *Writer) writeManifest() error {
	b, err := pyjson.DumpPy(w.manifest, pyjson.Indented)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return WriteFileAtomic(filepath.Join(w.dir, "manifest.json"), append(b, '\n'))
}

// WriteFileAtomic writes a file through a temporary sibling and a rename, so readers never see
// a half-written file.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return os.Rename(name, path)
}
