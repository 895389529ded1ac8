package rundir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"sort"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// lineScanner yields the lines of a JSONL file (LF or CRLF) with their 1-based numbers,
// hashing every byte it reads: one pass over the file both verifies its sha256 and parses it,
// holding one line at a time.
type lineScanner struct {
	br   *bufio.Reader
	hash hash.Hash
	// line is the number of the line next returned last.
	line int
	acc  []byte
	eof  bool
	// file names the input in a LimitError; maxLine bounds one line (MaxLineBytes).
	file    string
	maxLine int
}

func newLineScanner(r io.Reader, file string) *lineScanner {
	h := sha256.New()
	return &lineScanner{br: bufio.NewReaderSize(io.TeeReader(r, h), 1<<20), hash: h, file: file, maxLine: MaxLineBytes}
}

// tooLong is the error for the line being read when it passes maxLine: a VerifyError (file
// and line) like every other bad row, whose cause is a LimitError.
func (s *lineScanner) tooLong() error {
	le := &LimitError{File: s.file, Line: s.line + 1, What: "line", Limit: int64(s.maxLine)}
	return &VerifyError{File: s.file, Line: s.line + 1, Msg: fmt.Sprintf("line longer than the limit of %d bytes", s.maxLine), cause: le}
}

// nextRow is next past blank (white-space only) lines, which no JSONL reader counts as rows.
func (s *lineScanner) nextRow() (line []byte, last, ok bool, err error) {
	for {
		line, last, ok, err = s.next()
		if err != nil || !ok || len(bytes.TrimSpace(line)) > 0 {
			return line, last, ok, err
		}
	}
}

// next returns the next line without its line end (trailing CRs dropped). last reports the
// file's final segment, which had no line end; ok is false once the file is exhausted. The
// line is valid until the next call.
func (s *lineScanner) next() (line []byte, last, ok bool, err error) {
	if s.eof {
		return nil, false, false, nil
	}
	s.acc = s.acc[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		switch err {
		case bufio.ErrBufferFull:
			if len(s.acc)+len(chunk) > s.maxLine+1 { // +1: a CR before the LF
				return nil, false, false, s.tooLong()
			}
			s.acc = append(s.acc, chunk...)
			continue
		case io.EOF:
			s.eof, last = true, true
		case nil:
			chunk = chunk[:len(chunk)-1]
		default:
			return nil, false, false, err
		}
		if len(s.acc)+len(chunk) > s.maxLine+1 { // +1: a CR before the LF
			return nil, false, false, s.tooLong()
		}
		line = chunk
		if len(s.acc) > 0 {
			s.acc = append(s.acc, chunk...)
			line = s.acc
		}
		// The limit counts the line without its end (LF, CRLF): exactly maxLine bytes pass.
		if line = bytes.TrimRight(line, "\r"); len(line) > s.maxLine {
			return nil, false, false, s.tooLong()
		}
		s.line++
		return line, last, true, nil
	}
}

// drain reads (and hashes) the rest of the file.
func (s *lineScanner) drain() error {
	s.eof = true
	_, err := io.Copy(io.Discard, s.br)
	return err
}

// sum is the hex sha256 of everything read so far (of the whole file after drain or once
// next has reported the end).
func (s *lineScanner) sum() string { return hex.EncodeToString(s.hash.Sum(nil)) }

// Has reports whether the run has verified rows of an artifact (a listed JSONL file that was
// present and parsed).
func (r *Run) Has(name string) bool {
	if _, ok := r.Files[name]; ok {
		return true
	}
	_, ok := r.paths[name]
	return ok
}

// Artifacts are the names of the artifacts with verified rows, sorted.
func (r *Run) Artifacts() []string {
	set := map[string]bool{}
	for name := range r.Files {
		set[name] = true
	}
	for name := range r.paths {
		set[name] = true
	}
	out := make([]string, 0, len(set))
	for name := range set {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Rows calls fn with each row of a verified artifact, in file order, stopping at fn's first
// error. Rows kept in Files are served from memory; otherwise the file is read again line by
// line, and a file that no longer is the one verified (its sha256 at the end, or a line that
// no longer parses, or more rows than verified) fails with a *VerifyError saying so. fn may
// have seen rows of the changed file by then: callers that write rows do so inside a
// transaction they abandon on error.
func (r *Run) Rows(name string, fn func(Row) error) error {
	if rows, ok := r.Files[name]; ok {
		for _, row := range rows {
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	}
	return r.Lines(name, func(line int, raw []byte) error {
		tree, err := pyjson.DecodeTree(raw)
		m, ok := tree.(map[string]any)
		if err != nil || !ok {
			return r.changed(name, fmt.Sprintf("line %d no longer parses as a JSON object", line))
		}
		return fn(Row{Line: line, Tree: m, Raw: bytes.Clone(raw)})
	})
}

// ImportRows is Rows for the importer: the same rows with the same checks, but each parsed
// by shallowTree, so the nested values the importer never reads (rawKeys) are left as the
// row's bytes rather than decoded, and parsed on every core (parseLines) while fn, on the
// caller's goroutine, gets them in file order. Rows kept in Files are served as they are.
func (r *Run) ImportRows(name string, fn func(Row) error) error {
	if _, ok := r.Files[name]; ok {
		return r.Rows(name, fn)
	}
	return r.readVerified(name, func(sc *lineScanner, countRow func() error, readErr func(error) error) error {
		return parseLines(sc, false, func(no int, raw []byte, _ bool) (Row, error) {
			m, ok := shallowTree(name, raw)
			if !ok {
				tree, err := pyjson.DecodeTree(raw)
				if m, ok = tree.(map[string]any); err != nil || !ok {
					return Row{}, r.changed(name, fmt.Sprintf("line %d no longer parses as a JSON object", no))
				}
			}
			return Row{Line: no, Tree: m, Raw: raw, RawSHA256: sha256.Sum256(raw), Hashed: true}, nil
		}, func(l pipeLine, row Row, perr error) error {
			if err := countRow(); err != nil {
				return err
			}
			if perr != nil {
				return perr
			}
			return fn(row)
		}, readErr)
	})
}

// Lines calls fn with the number and bytes (without line end) of each non-blank line of a
// verified artifact, with the same checks as Rows. raw is valid only during the call: Lines
// is for passes that pick a few fields out of each row (see Rows for whole rows).
func (r *Run) Lines(name string, fn func(line int, raw []byte) error) error {
	if rows, ok := r.Files[name]; ok {
		for _, row := range rows {
			raw := row.Raw
			if len(raw) == 0 { // a row built in memory, not read from a file
				s, err := pyjson.CanonicalJSON(row.Tree)
				if err != nil {
					return err
				}
				raw = []byte(s)
			}
			if err := fn(row.Line, raw); err != nil {
				return err
			}
		}
		return nil
	}
	return r.readVerified(name, func(sc *lineScanner, countRow func() error, readErr func(error) error) error {
		for {
			line, _, ok, err := sc.nextRow()
			if err != nil {
				return readErr(err)
			}
			if !ok {
				return nil
			}
			if err := countRow(); err != nil {
				return err
			}
			if err := fn(sc.line, line); err != nil {
				return err
			}
		}
	})
}

// readVerified opens a verified artifact's file again and runs scan over it with a scanner
// that hashes what it reads, countRow, to call once per row (it fails once the file has more
// rows than verified), and readErr, which names the file in a read error (a *VerifyError is
// left as it is). After scan, the bytes read must still hash to the verified sha256 and the
// rows counted must be the verified count.
func (r *Run) readVerified(name string, scan func(sc *lineScanner, countRow func() error, readErr func(error) error) error) error {
	full, ok := r.paths[name]
	if !ok {
		return fmt.Errorf("%s: artifact %s has no verified rows (not listed, missing, not JSONL, or opened ManifestOnly)", r.Dir, name)
	}
	f, _, err := OpenRegular(full, MaxArtifactBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	want := r.Entries[name]
	sc := newLineScanner(boundedReader(f, full, MaxArtifactBytes), full)
	rows := 0
	countRow := func() error {
		if rows++; rows > want.Rows {
			return r.changed(name, fmt.Sprintf("it now has more than the %d verified rows", want.Rows))
		}
		return nil
	}
	readErr := func(err error) error {
		if _, named := err.(*VerifyError); named {
			return err
		}
		return fmt.Errorf("%s: %w", full, err)
	}
	if err := scan(sc, countRow, readErr); err != nil {
		return err
	}
	if got := sc.sum(); got != want.SHA256 {
		return r.changed(name, fmt.Sprintf("its sha256 is now %s, not the verified %s", got, want.SHA256))
	}
	if rows != want.Rows {
		return r.changed(name, fmt.Sprintf("it now has %d rows, not the verified %d", rows, want.Rows))
	}
	return nil
}

// changed is the error for a verified file that is no longer the file verified.
func (r *Run) changed(name, detail string) error {
	return verr(r.paths[name], 0, "files."+name+".sha256", "the file changed after it was verified (%s): refusing to use it", detail)
}

// refIndex keeps, while the artifacts are read one after another, what the cross-file checks
// need and nothing more: each id's first line and a hash of its bytes (uniqueness), the id
// sets references resolve against, and the references that did not resolve when read (their
// target may come in a later file, or later in the same file).
type refIndex struct {
	// first maps artifact -> id -> where the id first appeared.
	first map[string]map[idKey]idSeen
	// repeats are later rows repeating an id with different bytes, by artifact, in line
	// order: whether their content differs is decided after reading (canonical JSON).
	repeats map[string][]idRepeat
	// bundleMemories and calls are id sets that only references use.
	bundleMemories, calls map[idKey]struct{}
	// pending are unresolved references, by check, in line order.
	pending map[refCheck][]pendingRef
	// trials are the one-trial-once and known-case checks of trials.jsonl.
	trials *trialChecks
}

type idSeen struct {
	line int
	sum  idKey // of the row's bytes
}

// idKey is how the index keeps an id (and a row's bytes): the first 16 bytes of its sha256.
// The index holds every id of the run until the last file is read, so it grows with the run
// (about 600,000 ids at 5,000 cases); strings as keys made it most of a large import's heap.
// Two different ids share a key with probability about n²/2¹²⁹: nil for any run.
type idKey [16]byte

func keyOf(b []byte) idKey {
	sum := sha256.Sum256(b)
	return idKey(sum[:16])
}

func keyOfString(s string) idKey { return keyOf([]byte(s)) }

type idRepeat struct {
	id          string
	first, line int
}

// refCheck is one reference kind: artifact name's field key must resolve in target.
type refCheck struct{ name, key, target string }

type pendingRef struct {
	line  int
	field string
	value string
}

// uniqueKeys are the artifacts whose rows carry an id that others refer to (checkUnique).
var uniqueKeys = []struct{ name, key string }{
	{Memories, "memory_id"}, {MemoryAttempts, "attempt_id"}, {MemoryStates, "state_id"},
	{Evidence, "evidence_id"}, {ModelContexts, "context_id"},
}

// refChecks are the references resolved, in the order failures are reported.
var refChecks = []refCheck{
	{Memories, "parent_memory_id", Memories}, {MemoryAttempts, "accepted_memory_id", Memories},
	{MemoryAttempts, "retained_memory_id", Memories}, {MemoryAttempts, "parent_memory_id", Memories},
	{MemoryStates, "current_memory_id", Memories}, {Evidence, "memory_id", Memories}, {Trials, "memory_id", Memories},
	{Trials, "evidence_id", Evidence}, {ModelContexts, "call_id", Calls},
	{MemoryStates, "attempt_ids", MemoryAttempts},
}

func newRefIndex() *refIndex {
	x := &refIndex{first: map[string]map[idKey]idSeen{}, repeats: map[string][]idRepeat{},
		bundleMemories: map[idKey]struct{}{}, calls: map[idKey]struct{}{}, pending: map[refCheck][]pendingRef{}, trials: newTrialChecks()}
	for _, u := range uniqueKeys {
		x.first[u.name] = map[idKey]idSeen{}
	}
	return x
}

func (x *refIndex) known(target, id string) bool {
	k := keyOfString(id)
	switch target {
	case Memories:
		if _, ok := x.first[Memories][k]; ok {
			return true
		}
		_, ok := x.bundleMemories[k]
		return ok
	case Calls:
		_, ok := x.calls[k]
		return ok
	}
	_, ok := x.first[target][k]
	return ok
}

// add records one verified row (raw is its line).
func (x *refIndex) add(name string, r Row, raw []byte) {
	x.trials.add(name, r)
	for _, u := range uniqueKeys {
		if u.name != name {
			continue
		}
		id := r.Str(u.key)
		k, sum := keyOfString(id), keyOf(raw)
		if prev, dup := x.first[name][k]; dup {
			if prev.sum != sum {
				x.repeats[name] = append(x.repeats[name], idRepeat{id: id, first: prev.line, line: r.Line})
			}
		} else {
			x.first[name][k] = idSeen{line: r.Line, sum: sum}
		}
	}
	switch name {
	case "writer_bundle_memories":
		if s := r.Str("memory_id"); s != "" {
			x.bundleMemories[keyOfString(s)] = struct{}{}
		}
	case Calls:
		if s := r.Str("call_id"); s != "" {
			x.calls[keyOfString(s)] = struct{}{}
		}
	}
	for _, c := range refChecks {
		if c.name != name {
			continue
		}
		if c.key == "attempt_ids" {
			list, _ := r.Tree["attempt_ids"].([]any)
			for i, v := range list {
				if s, _ := v.(string); !x.known(c.target, s) {
					x.pending[c] = append(x.pending[c], pendingRef{line: r.Line, field: fmt.Sprintf("attempt_ids[%d]", i), value: s})
				}
			}
			continue
		}
		if s := r.OptStr(c.key); s != nil && !x.known(c.target, *s) {
			x.pending[c] = append(x.pending[c], pendingRef{line: r.Line, field: c.key, value: *s})
		}
	}
}

// checkUnique refuses two different rows with the same id: references to them would be
// ambiguous. Byte-identical repeats are tolerated (the importer stores one), and so are
// repeats whose canonical JSON is identical, which re-reads the two lines to decide.
func (x *refIndex) checkUnique(run *Run) error {
	for _, u := range uniqueKeys {
		reps := x.repeats[u.name]
		if len(reps) == 0 {
			continue
		}
		want := map[int]bool{}
		for _, rp := range reps {
			want[rp.first], want[rp.line] = true, true
		}
		canon := map[int]string{}
		err := run.Rows(u.name, func(r Row) error {
			if want[r.Line] {
				s, err := pyjson.CanonicalJSON(r.Tree)
				if err != nil {
					return err
				}
				canon[r.Line] = s
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, rp := range reps {
			if canon[rp.first] != canon[rp.line] {
				return verr(filepath.Join(run.Dir, run.Entries[u.name].Path), rp.line, u.key, "%s %q repeats line %d with different content", u.key, rp.id, rp.first)
			}
		}
	}
	return nil
}

// checkReferences resolves the ids artifacts point at: memory parents, attempt and state
// memory ids, state attempt ids, evidence to memories, trials to evidence and memories,
// contexts to calls. A reference into an artifact the run does not have is not checked.
func (x *refIndex) checkReferences(run *Run) error {
	for _, c := range refChecks {
		if !run.Has(c.target) {
			continue
		}
		for _, p := range x.pending[c] {
			if x.known(c.target, p.value) {
				continue
			}
			file := filepath.Join(run.Dir, run.Entries[c.name].Path)
			if c.key == "attempt_ids" {
				return verr(file, p.line, p.field, "attempt %q is not in %s", p.value, run.Entries[c.target].Path)
			}
			return verr(file, p.line, p.field, "%s %q is not in %s", c.key, p.value, run.Entries[c.target].Path)
		}
	}
	return nil
}
