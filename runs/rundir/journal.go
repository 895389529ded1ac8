package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// JournalFile is the hidden file a run keeps while it is written: one line per committed
// unit (a writer chain, a trial), giving each artifact's length in bytes and rows at that
// point. A run killed hard (SIGKILL, power loss of the process, a full disk) leaves its
// manifest at status "running" with no files listed; the journal says how far every file is
// consistent, so Recover can cut the files back to the last whole unit and list them. The
// writer holds an exclusive flock on it, so a run still being written is never recovered
// under its writer. It is removed when the manifest lists the files (Finish).
const JournalFile = ".ealscope-journal"

// journalMark is one artifact's committed length.
type journalMark struct {
	Bytes int64 `json:"bytes"`
	Rows  int   `json:"rows"`
}

// openJournal creates (truncating) the run's journal and takes its lock.
func openJournal(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockJournal(f, dir); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func lockJournal(f *os.File, dir string) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%s: another ealscope process is writing this run (it holds %s); wait for it to end", dir, JournalFile)
		}
		return fmt.Errorf("%s: lock %s: %w", dir, JournalFile, err)
	}
	return nil
}

// Commit marks a unit boundary: every artifact is flushed to the kernel and the journal
// records each one's length. A process killed after Commit returns loses nothing written
// before it. Commit does not fsync (a kill, unlike a power cut, keeps what was written).
func (w *Writer) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.journal == nil {
		return nil
	}
	marks := map[string]journalMark{}
	for name, af := range w.files {
		if err := af.buf.Flush(); err != nil {
			return fmt.Errorf("%s.jsonl: %w", name, err)
		}
		marks[name] = journalMark{Bytes: af.bytes, Rows: af.rows}
	}
	line, err := json.Marshal(marks)
	if err != nil {
		return err
	}
	if _, err := w.journal.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("%s: %w", JournalFile, err)
	}
	return nil
}

// closeJournal removes the journal once the manifest lists every file.
func (w *Writer) closeJournal() {
	if w.journal == nil {
		return
	}
	os.Remove(w.journal.Name())
	w.journal.Close()
	w.journal = nil
}

// Recovery says what Recover cut from each artifact.
type Recovery struct {
	// Dropped is, per artifact, how many bytes past the last committed unit were removed
	// (a torn last line, or whole lines of the unit being written when the run stopped).
	Dropped map[string]int64
}

// Recover makes a run that stopped without finishing (manifest status "running", files not
// listed) resumable: each artifact is cut back to the journal's last complete line, an
// artifact the journal does not know is removed, and the manifest is rewritten listing the
// files with their sha256 and rows, at status "cancelled". It returns nil, nil when the run
// needs no recovery; it refuses a run whose writer is still alive (the journal is locked).
func Recover(dir string) (*Recovery, error) {
	raw, err := ReadRegularFile(filepath.Join(dir, ManifestFile), MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	manifest, _, err := ParseManifest(filepath.Join(dir, ManifestFile), raw)
	if err != nil {
		return nil, err
	}
	if manifest["status"] != StatusRunning {
		return nil, nil
	}
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: the run stopped while running and has no %s (written by an ealscope that kept none); it cannot be resumed", dir, JournalFile)
		}
		return nil, err
	}
	defer f.Close()
	if err := lockJournal(f, dir); err != nil {
		return nil, err
	}
	marks, err := lastJournalLine(f)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, JournalFile, err)
	}
	rec := &Recovery{Dropped: map[string]int64{}}
	files := map[string]any{}
	counts := map[string]any{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		mark, known := marks[name]
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file; cannot recover the run", path)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !known {
			rec.Dropped[name] = st.Size()
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			continue
		}
		if st.Size() < mark.Bytes {
			return nil, fmt.Errorf("%s: %d bytes, shorter than the %d the journal committed; cannot recover the run", path, st.Size(), mark.Bytes)
		}
		if st.Size() > mark.Bytes {
			rec.Dropped[name] = st.Size() - mark.Bytes
			if err := os.Truncate(path, mark.Bytes); err != nil {
				return nil, err
			}
		}
		sum, rows, err := hashLines(path)
		if err != nil {
			return nil, err
		}
		if rows != mark.Rows {
			return nil, fmt.Errorf("%s: %d rows where the journal committed %d; cannot recover the run", path, rows, mark.Rows)
		}
		files[name] = FileEntry{Path: e.Name(), SHA256: sum, Rows: rows}
		counts[name] = rows
	}
	manifest["files"], manifest["counts"], manifest["status"] = files, counts, StatusCancelled
	b, err := pyjson.DumpPy(manifest, pyjson.Indented)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n')); err != nil {
		return nil, err
	}
	return rec, os.Remove(f.Name())
}

// maxJournalTail is how much of the journal's end Recover reads: a line lists each
// artifact's two counters, far below this.
const maxJournalTail = 64 << 10

// lastJournalLine is the journal's last complete line (a torn last line is the commit that
// was being written: the one before it stands). An empty journal commits nothing.
func lastJournalLine(f *os.File) (map[string]journalMark, error) {
	marks := map[string]journalMark{}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-maxJournalTail, 0)
	tail := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil {
		return nil, err
	}
	end := bytes.LastIndexByte(tail, '\n')
	if end < 0 {
		return marks, nil
	}
	tail = tail[:end]
	last := tail[bytes.LastIndexByte(tail, '\n')+1:]
	if err := json.Unmarshal(last, &marks); err != nil {
		return nil, fmt.Errorf("last line: %v", err)
	}
	return marks, nil
}

// hashLines is a file's sha256 and its count of newline-terminated lines.
func hashLines(path string) (string, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	rows := 0
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		rows += bytes.Count(buf[:n], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", 0, err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), rows, nil
}
