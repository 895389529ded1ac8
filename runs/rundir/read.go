package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Row is one parsed JSONL row with its 1-based line number.
type Row struct {
	Line int
	Tree map[string]any
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
	// Files maps artifact name to its parsed rows (only artifacts listed in the manifest).
	Files map[string][]Row
	// Unknown lists files in the directory that the manifest does not list (skipped).
	Unknown []string
	// Missing lists manifest entries whose file is absent (only with AllowMissing).
	Missing []string
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
}

// VerifyError is a verification failure naming the file, line and field.
type VerifyError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

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

// Open reads and verifies a run directory: manifest status, every listed file's sha256 and row
// count (checkpoint entries too), row parsing and schema versions, paths kept inside the
// directory, and the references between artifacts. Nothing is returned unless all of it holds.
func Open(dir string, opts Options) (*Run, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	realDir, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	manifestPath := filepath.Join(realDir, "manifest.json")
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, verr(manifestPath, 0, "", "missing: a run directory needs manifest.json")
		}
		return nil, err
	}
	tree, err := engine.DecodeTree(raw)
	if err != nil {
		return nil, verr(manifestPath, 0, "", "invalid JSON: %v", err)
	}
	manifest, ok := tree.(map[string]any)
	if !ok {
		return nil, verr(manifestPath, 0, "", "the manifest must be a JSON object")
	}
	run := &Run{Dir: realDir, Manifest: manifest, ManifestSHA256: engine.SHA256Hex(raw), Files: map[string][]Row{}}
	run.Status, _ = manifest["status"].(string)
	if run.Status != StatusCompleted {
		if !opts.AllowIncomplete {
			return nil, verr(manifestPath, 0, "status", "run status is %q, not \"completed\" (import it with --allow-incomplete to inspect it anyway)", run.Status)
		}
		run.Incomplete = true
	}
	entries, err := fileEntries(manifestPath, manifest)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{"manifest.json": true}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		full, err := safePath(realDir, manifestPath, name, e.Path)
		if err != nil {
			return nil, err
		}
		listed[filepath.ToSlash(e.Path)] = true
		data, err := os.ReadFile(full)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if opts.AllowMissing {
					run.Missing = append(run.Missing, e.Path)
					continue
				}
				return nil, verr(manifestPath, 0, "files."+name, "listed file %s is missing", e.Path)
			}
			return nil, err
		}
		if got := engine.SHA256Hex(data); got != e.SHA256 {
			return nil, verr(full, 0, "", "sha256 %s does not match the manifest's %s (files.%s.sha256)", got, e.SHA256, name)
		}
		if opts.ManifestOnly {
			continue
		}
		rows, err := parseRows(full, name, data)
		if err != nil {
			return nil, err
		}
		if len(rows) != e.Rows {
			return nil, verr(full, 0, "", "%d rows, the manifest says %d (files.%s.rows)", len(rows), e.Rows, name)
		}
		if !strings.HasSuffix(e.Path, ".jsonl") {
			continue
		}
		run.Files[name] = rows
	}
	if err := unknownFiles(realDir, listed, run); err != nil {
		return nil, err
	}
	if !opts.ManifestOnly {
		if err := checkReferences(run); err != nil {
			return nil, err
		}
	}
	return run, nil
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
		for name, raw := range m {
			field := section + "." + name
			em, ok := raw.(map[string]any)
			if !ok {
				return verr(manifestPath, 0, field, "expected {path, sha256, rows}")
			}
			p, ok1 := em["path"].(string)
			sha, ok2 := em["sha256"].(string)
			rows, err := engine.Int(field+".rows", em["rows"])
			if !ok1 || p == "" {
				return verr(manifestPath, 0, field+".path", "missing or not a string")
			}
			if !ok2 || len(sha) != 64 {
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
	if cp, ok := manifest["checkpoint"].(map[string]any); ok {
		if err := read("checkpoint.files", cp["files"]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// safePath resolves a manifest path and refuses anything that leaves the run directory:
// absolute paths, "..", and symlinks pointing outside.
func safePath(realDir, manifestPath, name, p string) (string, error) {
	field := "files." + name + ".path"
	slash := filepath.ToSlash(p)
	if filepath.IsAbs(p) || strings.HasPrefix(slash, "/") {
		return "", verr(manifestPath, 0, field, "absolute path %q is not allowed", p)
	}
	clean := path.Clean(slash)
	if clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(slash, "/../") || strings.HasPrefix(slash, "../") {
		return "", verr(manifestPath, 0, field, "path %q leaves the run directory", p)
	}
	full := filepath.Join(realDir, filepath.FromSlash(clean))
	resolved, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return full, nil
		}
		return "", err
	}
	if resolved != realDir && !strings.HasPrefix(resolved, realDir+string(filepath.Separator)) {
		return "", verr(manifestPath, 0, field, "path %q is a symlink out of the run directory", p)
	}
	return resolved, nil
}

// parseRows splits a JSONL file (LF or CRLF) and parses every non-blank line as an object
// with a known schema_version.
func parseRows(file, name string, data []byte) ([]Row, error) {
	want, versioned := SchemaVersions[name]
	var rows []Row
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		tree, err := engine.DecodeTree(line)
		if err != nil {
			return nil, verr(file, i+1, "", "invalid JSON: %v", err)
		}
		m, ok := tree.(map[string]any)
		if !ok {
			return nil, verr(file, i+1, "", "a row must be a JSON object")
		}
		if versioned {
			v, err := engine.Int("schema_version", m["schema_version"])
			if err != nil {
				return nil, verr(file, i+1, "schema_version", "missing or not an integer")
			}
			if int(v) != want {
				return nil, verr(file, i+1, "schema_version", "unknown schema_version %d for %s (ealscope reads %d)", v, name, want)
			}
		}
		rows = append(rows, Row{Line: i + 1, Tree: m})
	}
	return rows, nil
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

// checkReferences resolves the ids artifacts point at: memory parents, attempt and state
// memory ids, evidence to memories, trials to evidence, contexts to calls.
func checkReferences(run *Run) error {
	ids := func(name, key string) map[string]bool {
		out := map[string]bool{}
		for _, r := range run.Files[name] {
			if s := r.Str(key); s != "" {
				out[s] = true
			}
		}
		return out
	}
	memories := ids(Memories, "memory_id")
	evidence := ids(Evidence, "evidence_id")
	calls := ids(Calls, "call_id")
	file := func(name string) string { return filepath.Join(run.Dir, name+".jsonl") }
	check := func(name, key string, known map[string]bool, target string) error {
		if _, present := run.Files[target]; !present {
			return nil // the target artifact is absent from this run: nothing to resolve against
		}
		for _, r := range run.Files[name] {
			if s := r.OptStr(key); s != nil && !known[*s] {
				return verr(file(name), r.Line, key, "%s %q is not in %s.jsonl", key, *s, target)
			}
		}
		return nil
	}
	for _, c := range []struct{ name, key string }{
		{Memories, "parent_memory_id"}, {MemoryAttempts, "accepted_memory_id"}, {MemoryAttempts, "retained_memory_id"},
		{MemoryStates, "current_memory_id"}, {Evidence, "memory_id"}, {Trials, "memory_id"},
	} {
		if err := check(c.name, c.key, memories, Memories); err != nil {
			return err
		}
	}
	if err := check(Trials, "evidence_id", evidence, Evidence); err != nil {
		return err
	}
	if err := check(ModelContexts, "call_id", calls, Calls); err != nil {
		return err
	}
	return nil
}
