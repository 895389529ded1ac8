package rundir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Reopen continues writing a run directory that Open has verified: every JSONL artifact the
// manifest lists is rewritten with the rows keep accepts (kept lines stay byte-identical),
// and later Appends extend those files, so Finish hashes the whole file. The manifest goes
// back to status "running" until Finish. keep may be nil (keep everything).
func Reopen(run *Run, keep func(name string, row Row) bool) (*Writer, error) {
	w := &Writer{dir: run.Dir, files: map[string]*artifactFile{}, manifest: map[string]any{}}
	for k, v := range run.Manifest {
		w.manifest[k] = v
	}
	var err error
	if w.journal, err = openJournal(run.Dir); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			w.closeJournal()
		}
	}()
	for _, name := range run.Artifacts() {
		keepLine := map[int]bool{}
		if err := run.Rows(name, func(r Row) error {
			keepLine[r.Line] = keep == nil || keep(name, r)
			return nil
		}); err != nil {
			return nil, err
		}
		path := filepath.Join(run.Dir, name+".jsonl")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var kept bytes.Buffer
		count := 0
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 || !keepLine[i+1] {
				continue
			}
			kept.Write(line)
			kept.WriteByte('\n')
			count++
		}
		if err := WriteFileAtomic(path, kept.Bytes()); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		h.Write(kept.Bytes())
		w.files[name] = &artifactFile{f: f, buf: bufio.NewWriterSize(f, 1<<16), hash: h, rows: count, bytes: int64(kept.Len())}
	}
	for name, e := range run.Entries {
		if !strings.HasSuffix(e.Path, ".jsonl") {
			if w.whole == nil {
				w.whole = map[string]FileEntry{}
			}
			w.whole[name] = e
		}
	}
	for _, name := range run.Missing {
		return nil, fmt.Errorf("%s: listed file %s is missing; cannot resume", run.Dir, name)
	}
	for _, name := range run.Unknown {
		if strings.HasSuffix(name, ".jsonl") {
			return nil, fmt.Errorf("%s: %s is not listed in the manifest (a run that stopped without hashing its files cannot be resumed)", run.Dir, name)
		}
	}
	w.manifest["status"] = StatusRunning
	if err := w.writeManifest(); err != nil {
		return nil, err
	}
	// The rewritten files are the first committed unit: a kill from here on recovers to them.
	if err := w.Commit(); err != nil {
		return nil, err
	}
	ok = true
	return w, nil
}
