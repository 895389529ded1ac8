package runs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ImportOptions tune Import.
type ImportOptions struct {
	// Corpora are corpus files imported before the paths (the CLI's --corpus).
	Corpora []string
	// AllowIncomplete imports runs whose manifest status is not "completed"; they are marked
	// incomplete wherever they show.
	AllowIncomplete bool
	// Progress, when set, is called after each path with the paths done and the total.
	Progress func(done, total int)
	// RowProgress, when set, is called while a run directory is written with the rows
	// stored so far and the rows its manifest lists (derived rows come on top, so written
	// can pass listed near the end): a large run shows movement, not a frozen "2/3".
	RowProgress func(path string, written, listed int)
	// afterVerify, set by this package's tests only, runs between a run's verification and
	// its import: the window in which a file that changes must still be caught. It belongs
	// to one import, so tests that set it cannot reach each other's.
	afterVerify func(run *rundir.Run)
}

// Kinds of import paths.
const (
	KindRun            = "run"
	KindCorpus         = "corpus"
	KindWriterMemories = "writer_memories"
)

// Statuses of an import path.
const (
	StatusImported        = "imported"
	StatusAlreadyImported = "already_imported"
)

// PathResult reports what one path contributed.
type PathResult struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
	// RunID identifies an imported run (runs and writer-memories files).
	RunID      string `json:"run_id,omitempty"`
	Incomplete bool   `json:"incomplete,omitempty"`
	// Rows counts the rows written per table (empty when nothing was written).
	Rows map[string]int `json:"rows"`
	// Unknown lists files of a run directory its manifest does not list (skipped).
	Unknown []string `json:"unknown_files"`
	// RescoreDisagreements counts trials whose stored decision our scorer does not reproduce.
	RescoreDisagreements int `json:"rescore_disagreements"`
	// MissingCorpora are the corpora a run needs and the workspace lacks: ledger-dependent
	// views of those chains say so until the corpus is imported, which derives them.
	MissingCorpora []CorpusRef `json:"missing_corpora"`
	// Corpora reports corpus files.
	Corpora []CorpusResult `json:"corpora,omitempty"`
	// DerivedRuns are the runs imported earlier without this corpus whose derived facts were
	// computed now that it is here (corpus files).
	DerivedRuns []string `json:"derived_runs,omitempty"`
	// Notes are other things worth telling (entries skipped, and why).
	Notes []string `json:"notes"`
}

// ImportReport is the result of Import.
type ImportReport struct {
	Results []PathResult `json:"results"`
}

// Import imports corpus files, run directories and writer-memories files, in any mix. Each run
// is verified in full before anything is written and then written in one transaction, so a
// failure leaves the workspace as it was. Paths are processed corpora first (so runs find their
// cases), then in the order given; the first failure stops the import and is returned with the
// results of the paths already done. A corpus that brings new cases also derives, one
// transaction per run, every run imported earlier that was waiting for it.
func (s *Store) Import(ctx context.Context, paths []string, opts ImportOptions) (ImportReport, error) {
	var report ImportReport
	type job struct {
		path, kind string
	}
	var jobs []job
	for _, p := range opts.Corpora {
		jobs = append(jobs, job{p, KindCorpus})
	}
	var later []job
	for _, p := range paths {
		kind, err := classify(p)
		if err != nil {
			return report, err
		}
		if kind == KindCorpus {
			jobs = append(jobs, job{p, kind})
		} else {
			later = append(later, job{p, kind})
		}
	}
	jobs = append(jobs, later...)
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			return report, err
		}
		var res PathResult
		var err error
		switch j.kind {
		case KindCorpus:
			res, err = s.importCorpusFile(ctx, j.path)
		case KindWriterMemories:
			res, err = s.importWriterMemories(ctx, j.path)
		case KindDiagnosis:
			res, err = s.ImportDiagnosis(ctx, j.path)
		default:
			res, err = s.importRunDir(ctx, j.path, opts)
		}
		if err != nil {
			return report, err
		}
		report.Results = append(report.Results, res)
		if opts.Progress != nil {
			opts.Progress(i+1, len(jobs))
		}
	}
	return report, nil
}

// classify decides what a path is: a directory is a run; a .jsonl file a corpus; a .json file
// holding "memories" and "writers" EAL-Bench's packaged writer memories; a .jsonl file whose
// first row has "judges" and "error_block", or whose name says "diagnosis" (so a broken first
// row is reported as a diagnosis error, not a corpus one), a judge-diagnosis file.
func classify(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: no such file or directory", p)
		}
		return "", err
	}
	if st.IsDir() {
		return KindRun, nil
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".jsonl":
		if strings.Contains(strings.ToLower(filepath.Base(p)), "diagnosis") || IsDiagnosisFile(p) {
			return KindDiagnosis, nil
		}
		return KindCorpus, nil
	case ".json":
		if filepath.Base(p) == rundir.ManifestFile {
			return "", fmt.Errorf("%s: give the run directory, not its manifest", p)
		}
		return classifyJSON(p)
	}
	return "", fmt.Errorf("%s: not a run directory, a corpus (.jsonl) or a writer-memories file (.json)", p)
}

// classifyJSON tells a .json file by its top-level keys, as check tells a corpus by its
// content: a corpus document has "cases" (cybersecurity's and finance's corpus forms),
// EAL-Bench's writer memories "memories", a run manifest its artifact versions. Anything else
// is an error naming the keys found.
func classifyJSON(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, rundir.MaxInputFileBytes))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("%s: not a JSON object: not a corpus, writer-memories file or run", p)
	}
	keys := map[string]bool{}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("%s: %v", p, err)
		}
		k, _ := tok.(string)
		keys[k] = true
		names = append(names, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("%s: field %s: %v", p, k, err)
		}
	}
	switch {
	case keys["memories"]:
		return KindWriterMemories, nil
	case keys["cases"]:
		return KindCorpus, nil
	case keys["artifact_schema_versions"] || keys["execution_plan"]:
		return "", fmt.Errorf("%s: a run's manifest: give the run directory, not its manifest", p)
	}
	sort.Strings(names)
	return "", fmt.Errorf("%s: a JSON document with keys [%s] is none of the kinds import reads: a corpus (\"cases\"), writer memories (\"memories\") or a run directory", p, strings.Join(names, ", "))
}

func emptyResult(path, kind string) PathResult {
	return PathResult{Path: path, Kind: kind, Rows: map[string]int{}, Unknown: []string{}, MissingCorpora: []CorpusRef{}, Notes: []string{}}
}

// imported is res once its transaction has committed, writing rows.
func (res PathResult) imported(rows map[string]int) PathResult {
	res.Rows, res.Status = rows, StatusImported
	return res
}

// inTx runs fn in one write transaction and commits only if it succeeds.
func (s *Store) inTx(ctx context.Context, fn func(w *txWriter) error) (map[string]int, error) {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	w := newTxWriter(ctx, tx)
	err = fn(w)
	if err == nil {
		err = w.flushChunks() // no row may be committed without its chunk
	}
	if err != nil {
		w.close()
		tx.Rollback()
		return nil, err
	}
	w.close()
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return w.rows, nil
}

func (s *Store) importCorpusFile(ctx context.Context, path string) (PathResult, error) {
	res := emptyResult(path, KindCorpus)
	// Two passes over the file, neither holding it: its sha256 first (a file imported before
	// is recognised by it), then the cases one at a time. The second pass is hashed too, so a
	// file that changed in between is refused.
	fileSHA, err := corpusFileSHA256(path)
	if err != nil {
		return res, err
	}
	rows, err := s.inTx(ctx, func(w *txWriter) error {
		f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
		if err != nil {
			return err
		}
		defer f.Close()
		lr := &hashingReader{r: f, h: sha256.New()}
		got := ""
		// A document corpus is read whole (within rundir.MaxInputFileBytes) after all.
		readAll := func() ([]byte, error) {
			data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
			got = pyjson.SHA256Hex(data)
			return data, err
		}
		out, err := s.importCorpus(w, path, fileSHA, lr, readAll)
		if err != nil {
			return err
		}
		// Its audience sidecar, when one lies beside it, is checked against the cases just
		// stored and goes in with them or not at all.
		if err := s.importCorpusSidecar(w, path); err != nil {
			return err
		}
		if got == "" {
			got = hex.EncodeToString(lr.h.Sum(nil))
		}
		if got != fileSHA {
			return fmt.Errorf("%s: the file changed while it was imported (sha256 %s, then %s)", path, fileSHA, got)
		}
		res.Corpora = out
		return nil
	})
	if err != nil {
		return res, err
	}
	res = res.imported(rows)
	if rows["cases"] == 0 {
		res.Status = StatusAlreadyImported
	}
	if err := s.rederiveWaiting(ctx, &res); err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// corpusFileSHA256 hashes a corpus file, a regular file within rundir.MaxArtifactBytes.
func corpusFileSHA256(path string) (string, error) {
	f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashingReader hashes what is read through it (to the end, as eachCorpusCase reads).
type hashingReader struct {
	r io.Reader
	h hash.Hash
}

func (x *hashingReader) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	x.h.Write(p[:n])
	return n, err
}

// runInfo is what the runs row says about a run, from its manifest (or a writer-memories file).
type runInfo struct {
	kind           string
	manifestSHA    string
	manifest       map[string]any
	status         string
	incomplete     bool
	importedFrom   string
	domainID       string
	study          string
	corpusVersion  string
	startedAt      string
	counts         map[string]int
	unknown        []string
	verificationOK string
}

func (s *Store) runExists(ctx context.Context, manifestSHA string) (string, bool, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT run_id FROM runs WHERE manifest_sha256=?`, manifestSHA).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

func (s *Store) importRunDir(ctx context.Context, path string, opts ImportOptions) (PathResult, error) {
	res := emptyResult(path, KindRun)
	// Streaming: the run is verified file by file and its rows are read again, file by file,
	// as they are stored, so an import's memory does not grow with the run.
	run, err := rundir.Open(path, rundir.Options{AllowIncomplete: opts.AllowIncomplete, Streaming: true})
	if err != nil {
		return res, err
	}
	if opts.afterVerify != nil {
		opts.afterVerify(run)
	}
	res.Unknown = append(res.Unknown, run.Unknown...)
	if res.Unknown == nil {
		res.Unknown = []string{}
	}
	res.Incomplete = run.Incomplete
	if id, ok, err := s.runExists(ctx, run.ManifestSHA256); err != nil {
		return res, err
	} else if ok {
		res.Status = StatusAlreadyImported
		res.RunID = id
		res.Notes = append(res.Notes, "this run (manifest sha256 "+run.ManifestSHA256+") is already in the workspace: nothing changed")
		return res, nil
	}
	manifestPath := filepath.Join(run.Dir, rundir.ManifestFile)
	domainID, _ := run.Manifest["domain_id"].(string)
	if domainID == "" {
		domainID, _ = run.Manifest["domain"].(string)
	}
	if domainID == "" {
		return res, &rundir.VerifyError{File: manifestPath, Field: "domain_id", Msg: "missing: the run must say which domain it belongs to"}
	}
	info := runInfo{kind: KindRun, manifestSHA: run.ManifestSHA256, manifest: run.Manifest, status: run.Status, incomplete: run.Incomplete,
		importedFrom: run.Dir, domainID: domainID, unknown: res.Unknown, counts: map[string]int{}}
	info.study, _ = run.Manifest["study"].(string)
	info.corpusVersion, _ = run.Manifest["corpus_version"].(string)
	info.startedAt, _ = run.Manifest["started_at"].(string)
	for name, e := range run.Entries {
		info.counts[name] = e.Rows
	}
	info.verificationOK = "verified"
	if run.Incomplete {
		info.verificationOK = "verified_incomplete"
	}
	res.RunID = runIDOf(run.ManifestSHA256)
	listed := 0
	for _, n := range info.counts {
		listed += n
	}
	rows, err := s.inTx(ctx, func(w *txWriter) error {
		if err := tuneImportTx(w); err != nil {
			return err
		}
		if opts.RowProgress != nil {
			w.progress = func(n int) { opts.RowProgress(path, n, listed) }
		}
		out, err := s.writeRun(w, info, run)
		if err != nil {
			return err
		}
		res.MissingCorpora = out.missing
		res.RescoreDisagreements = out.disagreements
		res.Notes = append(res.Notes, out.notes...)
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res.imported(rows), nil
}

// runIDOf is a run's short id: the first 12 hex digits of its manifest's sha256.
func runIDOf(manifestSHA string) string { return manifestSHA[:12] }

type writeOutcome struct {
	missing       []CorpusRef
	disagreements int
	notes         []string
}

// writeRun stores one verified run and everything derived from it, inside w's transaction:
// the run's rows are streamed from its files (streamRun), then its facts derived one case at a
// time from the stored rows (deriveRun).
func (s *Store) writeRun(w *txWriter, info runInfo, run *rundir.Run) (writeOutcome, error) {
	var out writeOutcome
	if d, err := domains.Get(info.domainID); err == nil && info.corpusVersion != "" {
		if _, err := s.ensureCorpus(w, d, info.corpusVersion); err != nil {
			return out, err
		}
		if err := s.ensureMultipartyCorpus(w, d, info.corpusVersion); err != nil {
			return out, err
		}
	}
	unknownJSON := jsonText(info.unknown)
	if info.unknown == nil {
		unknownJSON = "[]"
	}
	manifestJSON, err := pyjson.CanonicalJSON(info.manifest)
	if err != nil {
		return out, err
	}
	// missing_corpora_json and rescore_disagreements are set by deriveRun.
	runPK, err := w.insertID("runs", `INSERT INTO runs (run_id, manifest_sha256, kind, manifest_json, status, verification, incomplete, imported_from, imported_at, domain_id, study, corpus_version, started_at, counts_json, unknown_files_json, missing_corpora_json, rescore_disagreements) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'[]',0)`,
		runIDOf(info.manifestSHA), info.manifestSHA, info.kind, manifestJSON, info.status, info.verificationOK, b2i(info.incomplete), info.importedFrom, s.stamp(),
		info.domainID, info.study, info.corpusVersion, info.startedAt, jsonText(info.counts), unknownJSON)
	if err != nil {
		return out, err
	}
	if err := streamRun(w, runPK, run); err != nil {
		return out, err
	}
	if err := s.importRunSidecar(w, runPK, run); err != nil {
		return out, err
	}
	dr, err := s.deriveRun(w, runPK, info.domainID, info.corpusVersion)
	if err != nil {
		return out, err
	}
	if err := checkBlockRanges(w, runPK, run); err != nil {
		return out, err
	}
	out.missing, out.disagreements, out.notes = dr.missing, dr.disagreements, dr.notes
	return out, nil
}
