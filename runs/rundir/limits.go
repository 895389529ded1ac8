package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/ealscope/ealscope/engine"
)

// Documented input limits (README "Limits"). A file or line past its limit is refused with an
// error naming the file, the line and the limit, so a hostile or broken input (a symlink to
// /dev/zero, a 10 GB row) ends in an error instead of unbounded memory or disk.
const (
	// MaxLineBytes bounds one JSONL row (of a run artifact or a corpus case). The largest row
	// EAL-Bench writes (a model context with a full history) is well under 1 MiB.
	MaxLineBytes = engine.MaxLineBytes
	// MaxArtifactBytes bounds one listed artifact file of a run directory.
	MaxArtifactBytes = 16 << 30
	// MaxManifestBytes bounds manifest.json.
	MaxManifestBytes = 16 << 20
	// MaxInputFileBytes bounds a file read whole: a corpus, a writer-memories file, a config.
	MaxInputFileBytes = 1 << 30
)

// LimitError is an input past one of the documented limits.
type LimitError struct {
	File  string
	Line  int
	What  string // "line", "file"
	Limit int64
}

func (e *LimitError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s longer than the limit of %d bytes", e.File, e.Line, e.What, e.Limit)
	}
	return fmt.Sprintf("%s: %s larger than the limit of %d bytes", e.File, e.What, e.Limit)
}

// fileKind names what a non-regular file is, for the refusal message.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// NotRegularError refuses a path that is not a regular file: reading a FIFO blocks forever and
// a device never ends.
type NotRegularError struct {
	Path string
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file: refusing to read it", e.Path, e.Kind)
}

// OpenRegular opens path for reading only if it is (or, through symlinks, resolves to) a
// regular file of at most limit bytes. It checks with Stat before opening and again on the
// open descriptor, and opens with O_NONBLOCK, so a FIFO swapped in between the two cannot make
// the open block.
func OpenRegular(path string, limit int64) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Kind: fileKind(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: fileKind(st.Mode())}
	}
	if limit > 0 && st.Size() > limit {
		f.Close()
		return nil, nil, &LimitError{File: path, What: "file", Limit: limit}
	}
	return f, st, nil
}

// ReadRegularFile is os.ReadFile for untrusted input: a regular file only (OpenRegular), at
// most limit bytes even if it grows while being read.
func ReadRegularFile(path string, limit int64) ([]byte, error) {
	f, st, err := OpenRegular(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(boundedReader(f, path, limit)); err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return buf.Bytes(), nil
}

// confinedManifest resolves realDir/manifest.json and refuses it when it is a symlink out of
// the run directory (as listed files are, in safePath) or not a regular file.
func confinedManifest(realDir string) (string, error) {
	p := filepath.Join(realDir, ManifestFile)
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				return "", verr(p, 0, "", "a symlink whose target does not exist")
			}
			return "", verr(p, 0, "", "missing: a run directory needs %s", ManifestFile)
		}
		return "", err
	}
	if resolved != p && !strings.HasPrefix(resolved, realDir+string(filepath.Separator)) {
		return "", verr(p, 0, "", "a symlink out of the run directory (to %s): the manifest must be inside the run it describes", resolved)
	}
	return resolved, nil
}

// CheckUTF8 refuses text that is not valid UTF-8 (EAL-Bench writes UTF-8 JSON; a stray byte
// would be stored raw and reach every reader), naming the line and byte column of the first
// bad byte. firstLine is the number of data's first line.
func CheckUTF8(file string, firstLine int, data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	line, col := firstLine, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return verr(file, line, "", "invalid UTF-8 (byte 0x%02x at column %d)", data[i], col)
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += size
		}
		i += size
	}
	return nil
}

// boundedReader reads r and fails with a LimitError once more than limit bytes came (a file
// that grows while it is read, or one whose size Stat cannot tell).
func boundedReader(r io.Reader, file string, limit int64) io.Reader {
	return &limitReader{r: r, file: file, left: limit, limit: limit}
}

type limitReader struct {
	r           io.Reader
	file        string
	left, limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &LimitError{File: l.file, What: "file", Limit: l.limit}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, &LimitError{File: l.file, What: "file", Limit: l.limit}
	}
	return n, err
}

// LineReader yields the lines of a text file one at a time (LF or CRLF, line ends and
// trailing CRs dropped) within MaxLineBytes, hashing what it reads: for inputs read in one
// pass without holding the file, such as a corpus.
type LineReader struct{ sc *lineScanner }

// NewLineReader reads r, naming file in errors.
func NewLineReader(r io.Reader, file string) *LineReader {
	return &LineReader{sc: newLineScanner(r, file)}
}

// Next returns the next line and its 1-based number; ok is false at the end. The line is
// valid until the next call.
func (l *LineReader) Next() (line []byte, lineNo int, ok bool, err error) {
	line, _, ok, err = l.sc.next()
	return line, l.sc.line, ok, err
}

// NextRow is Next past blank (white-space only) lines, which JSONL readers skip.
func (l *LineReader) NextRow() (line []byte, lineNo int, ok bool, err error) {
	line, _, ok, err = l.sc.nextRow()
	return line, l.sc.line, ok, err
}

// SHA256 is the hex sha256 of everything read so far (the whole file once Next said ok=false).
func (l *LineReader) SHA256() string { return l.sc.sum() }
