package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Row is one parsed JSONL row with its 1-based line number.
type Row struct {
	Line int
	Tree map[string]any
	// Raw is the line as written (without its line end): stored verbatim, so nothing is
	// re-encoded on import.
	Raw []byte
	// RawSHA256 is Raw's sha256 when Hashed (ImportRows computes it on its parser workers:
	// the importer keeps it with each stored row, and the single writer need not hash).
	RawSHA256 [32]byte
	Hashed    bool
}

// Str reads a string field ("" when absent or not a string).
func (r Row) Str(key string) string {
	s, _ := r.Tree[key].(string)
	return s
}

// OptStr reads a nullable string field.
func (r Row) OptStr(key string) *string {
	s, ok := r.Tree[key].(string)
	if !ok {
		return nil
	}
	return &s
}

// Int reads an integer field (0 when absent).
func (r Row) Int(key string) int64 {
	v, _ := engine.Int("", r.Tree[key])
	return v
}

// OptInt reads a nullable integer field.
func (r Row) OptInt(key string) *int64 {
	if r.Tree[key] == nil {
		return nil
	}
	v, err := engine.Int("", r.Tree[key])
	if err != nil {
		return nil
	}
	return &v
}

// Bool reads a boolean field.
func (r Row) Bool(key string) bool {
	b, _ := r.Tree[key].(bool)
	return b
}

// Run is a verified run directory.
type Run struct {
	Dir      string
	Manifest map[string]any
	// ManifestSHA256 is the sha256 of manifest.json's bytes: the run's identity on import.
	ManifestSHA256 string
	Status         string
	Incomplete     bool
	// Files maps artifact name to its parsed rows (only artifacts listed in the manifest). It
	// is nil when the run was opened with Options.Streaming: read rows with Rows, which works
	// either way.
	Files map[string][]Row
	// Unknown lists files in the directory that the manifest does not list (skipped).
	Unknown []string
	// Missing lists manifest entries whose file is absent (only with AllowMissing).
	Missing []string
	// Entries are the manifest's file entries (files.* merged with checkpoint.files.*).
	Entries map[string]FileEntry
	// paths are the resolved paths of the JSONL artifacts whose rows were verified, by
	// artifact name: Rows re-reads them.
	paths map[string]string
}

// Options tune verification.
type Options struct {
	// AllowIncomplete accepts a manifest whose status is not "completed".
	AllowIncomplete bool
	// AllowMissing reports absent files instead of failing (for manifests published without
	// their JSONL files).
	AllowMissing bool
	// ManifestOnly verifies the manifest's shape and file list but reads no artifact.
	ManifestOnly bool
	// Streaming verifies every artifact line by line and keeps none of its rows (Files stays
	// nil): memory is then bounded by the ids the cross-file checks need, not by the run's
	// size. Rows re-reads a verified file and refuses it if it changed since.
	Streaming bool
}

// VerifyError is a verification failure naming the file, line and field.
type VerifyError struct {
	File  string
	Line  int
	Field string
	Msg   string
	// cause is the underlying error when there is one (a *LimitError for a line too long).
	cause error
}

// Unwrap is the underlying error, if any.
func (e *VerifyError) Unwrap() error { return e.cause }

func (e *VerifyError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func verr(file string, line int, field, format string, args ...any) error {
	return &VerifyError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ManifestFile is the manifest's file name inside a run directory.
const ManifestFile = "manifest.json"

// Open reads and verifies a run directory: manifest status, every listed file's sha256 and row
// count (checkpoint entries too), row parsing, required fields and schema versions, memory
// content hashes, paths kept inside the directory, and the references between artifacts.
// Nothing is returned unless all of it holds; every failure is a *VerifyError naming the file,
// the line (for rows) and the field. Each file is read once, line by line; only the ids the
// uniqueness and reference checks need are kept across files (and, unless opts.Streaming, the
// rows themselves in Files).
func Open(dir string, opts Options) (*Run, error) {
	realDir, err := runDirectory(dir)
	if err != nil {
		return nil, err
	}
	manifestPath := filepath.Join(realDir, ManifestFile)
	resolvedManifest, err := confinedManifest(realDir)
	if err != nil {
		return nil, err
	}
	raw, err := ReadRegularFile(resolvedManifest, MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	manifest, entries, err := ParseManifest(manifestPath, raw)
	if err != nil {
		return nil, err
	}
	run := &Run{Dir: realDir, Manifest: manifest, ManifestSHA256: pyjson.SHA256Hex(raw), Entries: entries, paths: map[string]string{}}
	if !opts.Streaming {
		run.Files = map[string][]Row{}
	}
	run.Status, _ = manifest["status"].(string)
	if run.Status != StatusCompleted {
		if !opts.AllowIncomplete {
			return nil, verr(manifestPath, 0, "status", "run status is %q, not \"completed\" (import it with --allow-incomplete to inspect it anyway)", run.Status)
		}
		run.Incomplete = true
	}
	listed := map[string]bool{ManifestFile: true}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	var missing []string
	var firstMissing string
	idx := newRefIndex()
	for _, name := range names {
		e := entries[name]
		listed[path.Clean(filepath.ToSlash(e.Path))] = true
		present, err := run.verifyListed(realDir, manifestPath, name, e, opts, idx)
		if err != nil {
			return nil, err
		}
		if !present {
			if firstMissing == "" {
				firstMissing = name
			}
			missing = append(missing, e.Path)
		}
	}
	if len(missing) > 0 {
		if !opts.AllowMissing {
			return nil, verr(manifestPath, 0, "files."+firstMissing, "%d listed file(s) missing from the run directory: %s", len(missing), strings.Join(missing, ", "))
		}
		run.Missing = missing
	}
	if err := unknownFiles(realDir, listed, run); err != nil {
		return nil, err
	}
	if !opts.ManifestOnly {
		if err := idx.checkUnique(run); err != nil {
			return nil, err
		}
		if err := idx.checkReferences(run); err != nil {
			return nil, err
		}
		if err := idx.trials.check(run); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// ParseManifest decodes manifest.json and its file entries (files.* and checkpoint.files.*).
// It checks shapes only; the files themselves are checked by Open.
func ParseManifest(manifestPath string, raw []byte) (map[string]any, map[string]FileEntry, error) {
	if err := CheckUTF8(manifestPath, 1, raw); err != nil {
		return nil, nil, err
	}
	tree, err := pyjson.DecodeTree(raw)
	if err != nil {
		return nil, nil, verr(manifestPath, 0, "", "invalid JSON: %v", err)
	}
	manifest, ok := tree.(map[string]any)
	if !ok {
		return nil, nil, verr(manifestPath, 0, "", "the manifest must be a JSON object")
	}
	if v, present := manifest["status"]; present {
		if _, ok := v.(string); !ok {
			return nil, nil, verr(manifestPath, 0, "status", "expected a string")
		}
	} else {
		return nil, nil, verr(manifestPath, 0, "status", "missing: the manifest does not say whether the run completed")
	}
	for _, key := range []string{"domain_id", "corpus_version", "study", "started_at"} {
		if v, present := manifest[key]; present && v != nil {
			if _, ok := v.(string); !ok {
				return nil, nil, verr(manifestPath, 0, key, "expected a string")
			}
		}
	}
	if v, present := manifest["artifact_schema_versions"]; present && v != nil {
		if _, ok := v.(map[string]any); !ok {
			return nil, nil, verr(manifestPath, 0, "artifact_schema_versions", "expected an object")
		}
	}
	entries, err := fileEntries(manifestPath, manifest)
	if err != nil {
		return nil, nil, err
	}
	return manifest, entries, nil
}

// checkDeclaredVersion compares the manifest's artifact_schema_versions.<name> (when declared)
// with the version the rows carry.
func checkDeclaredVersion(manifestPath string, manifest map[string]any, name string) error {
	want, versioned := SchemaVersions[name]
	if !versioned {
		return nil
	}
	decl, _ := manifest["artifact_schema_versions"].(map[string]any)
	v, present := decl[name]
	if !present || v == nil {
		return nil
	}
	n, err := engine.Int("", v)
	if err != nil {
		if s, ok := v.(string); ok && s == fmt.Sprint(want) {
			return nil
		}
		return verr(manifestPath, 0, "artifact_schema_versions."+name, "expected an integer, got %v", v)
	}
	if int(n) != want {
		return verr(manifestPath, 0, "artifact_schema_versions."+name, "unknown schema_version %d for %s (ealscope reads %d)", n, name, want)
	}
	return nil
}

// fileEntries collects files.* and checkpoint.files.*; an entry listed in both must agree.
func fileEntries(manifestPath string, manifest map[string]any) (map[string]FileEntry, error) {
	out := map[string]FileEntry{}
	read := func(section string, v any) error {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return verr(manifestPath, 0, section, "expected an object")
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, name := range keys {
			field := section + "." + name
			em, ok := m[name].(map[string]any)
			if !ok {
				return verr(manifestPath, 0, field, "expected {path, sha256, rows}")
			}
			p, ok1 := em["path"].(string)
			sha, ok2 := em["sha256"].(string)
			rows, err := engine.Int(field+".rows", em["rows"])
			if !ok1 || p == "" {
				return verr(manifestPath, 0, field+".path", "missing or not a string")
			}
			if !ok2 || !isHex64(sha) {
				return verr(manifestPath, 0, field+".sha256", "missing or not a sha256 hex digest")
			}
			if err != nil || rows < 0 {
				return verr(manifestPath, 0, field+".rows", "missing or not a non-negative integer")
			}
			entry := FileEntry{Path: p, SHA256: strings.ToLower(sha), Rows: int(rows)}
			if prev, dup := out[name]; dup && prev != entry {
				return verr(manifestPath, 0, field, "disagrees with files.%s", name)
			}
			out[name] = entry
		}
		return nil
	}
	if err := read("files", manifest["files"]); err != nil {
		return nil, err
	}
	if cpv, present := manifest["checkpoint"]; present && cpv != nil {
		cp, ok := cpv.(map[string]any)
		if !ok {
			return nil, verr(manifestPath, 0, "checkpoint", "expected an object")
		}
		if err := read("checkpoint.files", cp["files"]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// safePath resolves a manifest path and refuses anything that leaves the run directory:
// absolute paths, "..", and symlinks pointing outside (dangling ones too).
func safePath(realDir, manifestPath, name, p string) (string, error) {
	field := "files." + name + ".path"
	slash := filepath.ToSlash(p)
	if filepath.IsAbs(p) || strings.HasPrefix(slash, "/") || filepath.VolumeName(p) != "" {
		return "", verr(manifestPath, 0, field, "absolute path %q is not allowed", p)
	}
	for _, part := range strings.Split(slash, "/") {
		if part == ".." {
			return "", verr(manifestPath, 0, field, "path %q leaves the run directory", p)
		}
	}
	clean := path.Clean(slash)
	full := filepath.Join(realDir, filepath.FromSlash(clean))
	resolved, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if fi, lerr := os.Lstat(full); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				return "", verr(manifestPath, 0, field, "path %q is a symlink whose target does not exist", p)
			}
			return full, nil
		}
		// EvalSymlinks names no path in its errors ("EvalSymlinks: too many links").
		return "", verr(manifestPath, 0, field, "path %q cannot be resolved: %v (a symlink loop?)", p, err)
	}
	if resolved != realDir && !strings.HasPrefix(resolved, realDir+string(filepath.Separator)) {
		return "", verr(manifestPath, 0, field, "path %q is a symlink out of the run directory (to %s)", p, resolved)
	}
	return resolved, nil
}

// ParseRows splits a JSONL file (LF or CRLF) and parses every non-blank line as an object
// with a known schema_version and the fields ealscope relies on. `name` is the artifact name
// (file stem) that decides which checks apply.
func ParseRows(file, name string, data []byte) ([]Row, error) {
	sc := newLineScanner(bytes.NewReader(data), file)
	var rows []Row
	for {
		line, last, ok, err := sc.nextRow()
		if err != nil {
			return nil, err
		}
		if !ok {
			return rows, nil
		}
		row, err := parseRow(file, name, sc.line, line, last, false)
		if err != nil {
			return nil, err
		}
		row.Raw = bytes.Clone(line)
		rows = append(rows, row)
	}
}

// parseRow parses one non-blank line (without its line end) as a row of artifact `name`: a
// JSON object with a known schema_version whose fields pass validateRow. last says the line
// is the file's final one and had no line end, so bad JSON there is a truncated write. Row.Raw
// is left to the caller (the line's buffer may be reused). With shallow, the row's tree is
// shallowTree's (only what the checks read is decoded; it may alias line), for rows that are
// checked and dropped.
func parseRow(file, name string, lineNo int, line []byte, last, shallow bool) (Row, error) {
	if err := CheckUTF8(file, lineNo, line); err != nil {
		return Row{}, err
	}
	var m map[string]any
	if shallow {
		m, shallow = shallowTree(name, line)
	}
	if !shallow {
		tree, err := pyjson.DecodeTree(line)
		var ie *pyjson.InputError
		if errors.As(err, &ie) {
			return Row{}, verr(file, lineNo, ie.Field, "%s", ie.Msg)
		}
		if err != nil {
			if last {
				return Row{}, verr(file, lineNo, "", "truncated line (no line end, and the JSON is incomplete: %v)", err)
			}
			return Row{}, verr(file, lineNo, "", "invalid JSON: %v", err)
		}
		var ok bool
		if m, ok = tree.(map[string]any); !ok {
			return Row{}, verr(file, lineNo, "", "a row must be a JSON object")
		}
	}
	if want, versioned := SchemaVersions[name]; versioned {
		v, err := engine.Int("schema_version", m["schema_version"])
		if err != nil {
			if s, ok := m["schema_version"].(string); ok {
				return Row{}, verr(file, lineNo, "schema_version", "unknown schema_version %q for %s (ealscope reads %d)", s, name, want)
			}
			return Row{}, verr(file, lineNo, "schema_version", "missing or not an integer")
		}
		if int(v) != want {
			return Row{}, verr(file, lineNo, "schema_version", "unknown schema_version %d for %s (ealscope reads %d)", v, name, want)
		}
	}
	row := Row{Line: lineNo, Tree: m}
	if err := validateRowBounds(name, row); err != nil {
		var fe *engine.FieldError
		if errors.As(err, &fe) {
			return Row{}, verr(file, lineNo, fe.Path, "%s", fe.Msg)
		}
		return Row{}, verr(file, lineNo, "", "%v", err)
	}
	return row, nil
}

// artifactCheck is what reading one listed file found.
type artifactCheck struct {
	sha256 string
	// rows counts the non-blank lines (parsed files only).
	rows int
	// rowErr is the first row that failed to parse or validate; it is reported only if the
	// file's hash matches the manifest (a different file is reported as that).
	rowErr error
}

// verifyArtifact reads one listed file line by line, hashing every byte. With parse, each
// non-blank line is parsed and validated (until the first failure; the rest is only hashed),
// its ids go to idx, and keep (when not nil) collects the rows. err is an I/O error.
func verifyArtifact(r io.Reader, file, name string, parse bool, keep *[]Row, idx *refIndex) (artifactCheck, error) {
	var res artifactCheck
	sc := newLineScanner(r, file)
	if !parse {
		if err := sc.drain(); err != nil {
			return res, err
		}
		res.sha256 = sc.sum()
		return res, nil
	}
	// Rows are parsed on every core (parseLines) and indexed here in file order; after the
	// first bad row the rest of the file is only hashed.
	err := parseLines(sc, true, func(no int, raw []byte, last bool) (Row, error) {
		return parseRow(file, name, no, raw, last, keep == nil)
	}, func(l pipeLine, row Row, perr error) error {
		if res.rowErr != nil {
			return nil
		}
		res.rows++
		if perr != nil {
			res.rowErr = perr
			return nil
		}
		idx.add(name, row, l.raw)
		if keep != nil {
			row.Raw = l.raw
			*keep = append(*keep, row)
		}
		return nil
	}, func(err error) error {
		if res.rowErr != nil {
			return nil // the rest of the file is only hashed, as before
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.sha256 = sc.sum()
	return res, nil
}

func unknownFiles(realDir string, listed map[string]bool, run *Run) error {
	entries, err := os.ReadDir(realDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !listed[e.Name()] && !strings.HasPrefix(e.Name(), ".") {
			run.Unknown = append(run.Unknown, e.Name())
		}
	}
	sort.Strings(run.Unknown)
	return nil
}
