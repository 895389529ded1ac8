package runs

// annotations.Annotation child runs in EAL-Bench's layout (docs/FORMATS.md §7.2; writer reference §6):
// manifest.json with study "memory_annotation" plus memory_annotations.jsonl. Export writes
// people's labels and says so in the extractor fields (no model, no prompt, no tool, no
// call); import reads such runs, ours or EAL-Bench's LLM extractor runs, and files each
// extractor as one more annotator so agreement between people and extractors is measurable.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Interchange constants.
const (
	AnnotationStudy         = "memory_annotation"
	AnnotationsArtifact     = "memory_annotations"
	HumanAnnotationProtocol = "ealscope_human_annotation_v1"
	annotationTask          = "memory_annotator"
	annotationRowSchema     = 1
)

// ExportReport says what an export wrote.
type ExportReport struct {
	Dir        string   `json:"dir"`
	RunID      string   `json:"run_id"`
	Rows       int      `json:"rows"`
	Accepted   int      `json:"accepted"`
	Unaccepted int      `json:"unaccepted"`
	Annotators []string `json:"annotators"`
	// SkippedDrafts and SkippedExtractor count labels left out: drafts are unfinished, and
	// extractor labels belong to their own child run (this one describes people).
	SkippedDrafts    int `json:"skipped_drafts"`
	SkippedExtractor int `json:"skipped_extractor"`
}

type exportMemory struct {
	id, chainID, caseID, conditionID string
	writerModel                      any
}

// exportSource is what an export reads of the run: its identity, where it was imported
// from, its free-text memories and their labels.
type exportSource struct {
	runID, manifestSHA, importedFrom, domainID, corpusVersion string
	d                                                         engine.Domain
	memPath, memSHA, implID                                   any
	mems                                                      map[string]exportMemory
	labels                                                    []annotations.Annotation
}

func (s *Store) exportSource(ctx context.Context, runID string) (*exportSource, error) {
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, err
	}
	src := &exportSource{mems: map[string]exportMemory{}}
	var manifestJSON string
	if err := s.db.QueryRowContext(ctx, `SELECT run_id, manifest_json, imported_from, manifest_sha256, domain_id, corpus_version FROM runs WHERE run_pk = ?`, pk).
		Scan(&src.runID, &manifestJSON, &src.importedFrom, &src.manifestSHA, &src.domainID, &src.corpusVersion); err != nil {
		return src, err
	}
	if src.d, err = domains.Get(src.domainID); err != nil {
		return src, fmt.Errorf("run %s: %w", src.runID, err)
	}
	tree, err := pyjson.DecodeTree([]byte(manifestJSON))
	if err != nil {
		return src, fmt.Errorf("run %s: stored manifest: %w", src.runID, err)
	}
	manifest, _ := tree.(map[string]any)
	files, _ := manifest["files"].(map[string]any)
	memEntry, _ := files[rundir.Memories].(map[string]any)
	if p, ok := memEntry["path"].(string); ok {
		src.memPath = filepath.Join(src.importedFrom, p)
	}
	if h, ok := memEntry["sha256"].(string); ok {
		src.memSHA = h
	}
	src.implID = manifest["memory_implementation_id"]
	rr := newRowReader(s.db)
	err = eachRow(ctx, s.db, func(r rowScanner) error {
		var m exportMemory
		var raw rawCols
		var line int
		if err := r.Scan(append([]any{&m.id, &m.chainID, &m.caseID, &m.conditionID, &line}, raw.dest()...)...); err != nil {
			return err
		}
		rowJSON, err := rr.text(ctx, &raw, "memories.jsonl line "+itoa(line))
		if err != nil {
			return err
		}
		m.writerModel = writerModelOf(rowJSON)
		src.mems[m.id] = m
		return nil
	}, `SELECT m.memory_id, m.eal_chain_id, c.case_id, c.condition_id, m.line, `+rawSelect("m")+` FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk
		WHERE m.run_pk = ? AND m.architecture = `+sqlFreeText+` ORDER BY m.memory_id`, pk)
	if err != nil {
		return src, err
	}
	src.labels, err = s.queryAnnotations(ctx, `WHERE a.memory_id IN (SELECT memory_id FROM memories WHERE run_pk = ? AND architecture = `+sqlFreeText+`) ORDER BY a.memory_id, a.annotator`, pk)
	return src, err
}

// ExportAnnotations writes the human labels on one run's free-text memories as an annotation
// child run in dir (which must not exist or be empty).
func (s *Store) ExportAnnotations(ctx context.Context, runID, dir, command string) (ExportReport, error) {
	rep := ExportReport{Dir: dir, Annotators: []string{}}
	src, err := s.exportSource(ctx, runID)
	if src != nil {
		rep.RunID = src.runID
	}
	if err != nil {
		return rep, err
	}
	started := s.now().UTC().Format("2006-01-02T15:04:05Z07:00")
	sourceRun := map[string]any{
		"run_dir": src.importedFrom, "manifest_path": filepath.Join(src.importedFrom, rundir.ManifestFile), "manifest_sha256": src.manifestSHA,
		"domain_id": src.domainID, "corpus_version": src.corpusVersion, "memories_path": src.memPath, "memories_sha256": src.memSHA, "memory_implementation_id": src.implID,
	}
	w, err := rundir.Create(dir, map[string]any{
		"started_at": started, "finished_at": nil, "study": AnnotationStudy, "domain_id": src.domainID, "source_run": sourceRun,
		"artifact_schema_versions": map[string]any{AnnotationsArtifact: annotationRowSchema}, "task": annotationTask,
		// People read the memories: no prompt, no tool, no model route and no sampling.
		"extractor": map[string]any{
			"protocol_id": HumanAnnotationProtocol, "extractor_version": annotations.HumanExtractorVersion, "prompt_policy_id": nil, "system_prompt_sha256": nil,
			"tool_name": nil, "tool_schema_sha256": nil, "output_schema_id": src.d.PayloadSchemaID(), "output_schema_version": src.d.TypedSchemaVersion(),
		},
		"route":                map[string]any{"target_id": "human", "provider": "human", "requested_model": nil, "resolved_model": nil, "capabilities": []any{}},
		"effective_parameters": map[string]any{},
		"memory_count":         len(src.mems),
		"command":              command,
	})
	if err != nil {
		return rep, err
	}
	annotators := map[string]bool{}
	for _, a := range src.labels {
		switch {
		case a.AnnotatorKind != annotations.AnnotatorHuman:
			rep.SkippedExtractor++
			continue
		case a.Status == annotations.AnnotationDraft:
			rep.SkippedDrafts++
			continue
		}
		if err := w.Append(AnnotationsArtifact, src.exportRow(a)); err != nil {
			return rep, err
		}
		rep.Rows++
		if a.Status == annotations.AnnotationAccepted {
			rep.Accepted++
		} else {
			rep.Unaccepted++
		}
		annotators[a.Annotator] = true
	}
	if rep.Rows == 0 {
		// An empty artifact is still listed, so the child run says "no labels" explicitly.
		if err := w.Append(AnnotationsArtifact); err != nil {
			return rep, err
		}
	}
	rep.Annotators = engine.SortedSet(annotators)
	err = w.Finish(rundir.StatusCompleted, map[string]any{
		"finished_at": s.now().UTC().Format("2006-01-02T15:04:05Z07:00"),
		"counts":      map[string]any{"annotations": rep.Rows, "accepted": rep.Accepted, "unaccepted": rep.Unaccepted},
		"annotators":  rep.Annotators,
	})
	return rep, err
}

// exportRow is one human label as an EAL-Bench annotation row.
func (src *exportSource) exportRow(a annotations.Annotation) map[string]any {
	m := src.mems[a.MemoryID]
	var state any
	if a.State != nil {
		state = a.State
	}
	return map[string]any{
		"annotation_id": a.AnnotationID, "memory_id": a.MemoryID, "chain_id": m.chainID, "case_id": m.caseID, "condition_id": m.conditionID,
		"writer_model": m.writerModel, "extractor_model": a.Annotator, "source_content_hash": a.SourceContentHash, "status": a.Status,
		"detail": a.Detail, "extracted_state": state,
		// No tool call and no sampling happened: these stay null rather than imitate one.
		"raw_arguments": nil, "extractor_version": annotations.HumanExtractorVersion, "temperature": nil,
		"schema_version": annotationRowSchema, "domain_id": src.domainID, "source_manifest_sha256": src.manifestSHA, "call_id": nil,
		"extractor": map[string]any{"target_id": "human:" + a.Annotator, "provider": "human", "requested_model": a.Annotator,
			"resolved_model": a.Annotator, "response_model": nil, "effective_parameters": map[string]any{}},
		// ealscope's additions: when the label was made and from where.
		"annotated_at": a.UpdatedAt, "origin": a.Origin,
	}
}

// writerModelOf is EAL-Bench's writer_model: the row's writer_model, else the writer's
// requested, else resolved model.
func writerModelOf(rowJSON string) any {
	tree, err := pyjson.DecodeTree([]byte(rowJSON))
	if err != nil {
		return nil
	}
	row, _ := tree.(map[string]any)
	if s, ok := row["writer_model"].(string); ok && s != "" {
		return s
	}
	w, _ := row["writer"].(map[string]any)
	for _, k := range []string{"requested_model", "resolved_model"} {
		if s, ok := w[k].(string); ok && s != "" {
			return s
		}
	}
	return nil
}

// ImportAnnotationsOptions tune ImportAnnotations.
type ImportAnnotationsOptions struct {
	// AsSubmitted files accepted rows as submitted: the labels then count for agreement but
	// do not score memories (for an extractor one wants to compare, not trust).
	AsSubmitted bool
}

// ImportAnnotationsReport says what an import stored.
type ImportAnnotationsReport struct {
	Dir            string   `json:"dir"`
	ManifestSHA256 string   `json:"manifest_sha256"`
	Rows           int      `json:"rows"`
	Accepted       int      `json:"accepted"`
	Unaccepted     int      `json:"unaccepted"`
	Annotators     []string `json:"annotators"`
	// UnknownMemories counts rows whose memory is not in the workspace yet: they are kept and
	// apply when the run holding the memory is imported.
	UnknownMemories int `json:"unknown_memories"`
	// Rescored counts memories whose scores changed.
	Rescored int `json:"rescored"`
}

var importStatuses = map[string]bool{annotations.AnnotationAccepted: true, annotations.AnnotationInvalidResponse: true, annotations.AnnotationProviderError: true, annotations.AnnotationSubmitted: true, annotations.AnnotationDraft: true}

type importedLabel struct {
	label  storedLabel
	kind   string
	detail string
	line   int
}

// ImportAnnotations verifies an annotation child run (manifest, every file's sha256 and row
// count) and stores its rows as labels, all in one transaction.
func (s *Store) ImportAnnotations(ctx context.Context, dir string, opts ImportAnnotationsOptions) (ImportAnnotationsReport, error) {
	rep := ImportAnnotationsReport{Dir: dir, Annotators: []string{}}
	run, err := rundir.Open(dir, rundir.Options{Streaming: true})
	if err != nil {
		return rep, err
	}
	rep.ManifestSHA256 = run.ManifestSHA256
	manifestPath := filepath.Join(run.Dir, rundir.ManifestFile)
	if study, _ := run.Manifest["study"].(string); study != AnnotationStudy {
		return rep, &rundir.VerifyError{File: manifestPath, Field: "study", Msg: fmt.Sprintf("is %q: an annotation child run has study %q", study, AnnotationStudy)}
	}
	domainID, _ := run.Manifest["domain_id"].(string)
	d, err := domains.Get(domainID)
	if err != nil {
		return rep, &rundir.VerifyError{File: manifestPath, Field: "domain_id", Msg: err.Error()}
	}
	entry, ok := run.Entries[AnnotationsArtifact]
	if !ok {
		return rep, &rundir.VerifyError{File: manifestPath, Field: "files." + AnnotationsArtifact, Msg: "missing: the run lists no memory_annotations.jsonl"}
	}
	file := filepath.Join(run.Dir, entry.Path)
	var labels []importedLabel
	seen := map[[2]string]int{}
	// Labels are small next to the rows they come from (no memory text), so they are
	// collected before the transaction.
	rows := func(fn func(rundir.Row) error) error {
		if !run.Has(AnnotationsArtifact) {
			return nil // listed, but not as JSONL: no rows (as before streaming)
		}
		return run.Rows(AnnotationsArtifact, fn)
	}
	if err := rows(func(r rundir.Row) error {
		l, err := readAnnotationRow(file, r, d)
		if err != nil {
			return err
		}
		k := [2]string{l.label.memoryID, l.label.annotator}
		if prev, dup := seen[k]; dup {
			return &rundir.VerifyError{File: file, Line: r.Line, Field: "memory_id", Msg: fmt.Sprintf("memory %s is annotated by %s again (line %d)", k[0], k[1], prev)}
		}
		seen[k] = r.Line
		if opts.AsSubmitted && l.label.status == annotations.AnnotationAccepted {
			l.label.status = annotations.AnnotationSubmitted
		}
		labels = append(labels, l)
		return nil
	}); err != nil {
		return rep, err
	}
	now := s.stampNano()
	annotators := map[string]bool{}
	_, err = s.inTx(ctx, func(w *txWriter) error {
		// Annotators first: the transaction's first statement writes (see touchAnnotator).
		for _, l := range labels {
			if err := touchAnnotator(w, l.label.annotator, l.kind, l.detail, now); err != nil {
				return err
			}
			annotators[l.label.annotator] = true
		}
		memories := map[string]bool{}
		for _, l := range labels {
			memories[l.label.memoryID] = true
		}
		ids := engine.SortedSet(memories)
		before := map[string]*annotations.Resolution{}
		for _, id := range ids {
			r, err := currentResolution(w.ctx, w.tx, id)
			if errors.Is(err, ErrNotFound) {
				continue // not in the workspace yet: the label applies when its run arrives
			}
			if err != nil {
				return err
			}
			before[id] = r
		}
		for _, l := range labels {
			if err := upsertLabel(w, l.label, now); err != nil {
				return fmt.Errorf("%s:%d: %w", file, l.line, err)
			}
			if before[l.label.memoryID] == nil {
				rep.UnknownMemories++
			}
			rep.Rows++
			if l.label.status == annotations.AnnotationAccepted {
				rep.Accepted++
			} else {
				rep.Unaccepted++
			}
		}
		for _, id := range ids {
			if before[id] == nil {
				continue
			}
			after, err := currentResolution(w.ctx, w.tx, id)
			if err != nil {
				return err
			}
			if !sameResolution(before[id], after) {
				if err := s.rederiveMemory(w, id); err != nil {
					return err
				}
				rep.Rescored++
			}
		}
		return nil
	})
	if err != nil {
		return ImportAnnotationsReport{Dir: dir, Annotators: []string{}}, err
	}
	rep.Annotators = engine.SortedSet(annotators)
	return rep, nil
}

// readAnnotationRow reads one memory_annotations.jsonl row; errors name the file, line and
// field.
func readAnnotationRow(file string, r rundir.Row, d engine.Domain) (importedLabel, error) {
	bad := func(field, format string, args ...any) error {
		return &rundir.VerifyError{File: file, Line: r.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var l importedLabel
	l.line = r.Line
	for _, k := range []string{"annotation_id", "memory_id", "source_content_hash", "status"} {
		if s, ok := r.Tree[k].(string); !ok || s == "" {
			return l, bad(k, "required: a non-empty string")
		}
	}
	status := r.Str("status")
	if !importStatuses[status] {
		return l, bad("status", "unknown status %q (accepted, invalid_response, provider_error, submitted, draft)", status)
	}
	ext, _ := r.Tree["extractor"].(map[string]any)
	name := ""
	for _, v := range []any{ext["requested_model"], ext["target_id"], r.Tree["extractor_model"]} {
		if s, ok := v.(string); ok && s != "" {
			name = s
			break
		}
	}
	if name == "" {
		return l, bad("extractor.requested_model", "no annotator: the row names no extractor model, target or extractor_model")
	}
	l.kind = annotations.AnnotatorExtractor
	if p, _ := ext["provider"].(string); p == "human" {
		l.kind = annotations.AnnotatorHuman
	}
	l.detail = "{}"
	if ext != nil {
		l.detail = jsonText(ext)
	}
	var state map[string]any
	switch v := r.Tree["extracted_state"].(type) {
	case nil:
		if status == annotations.AnnotationAccepted {
			return l, bad("extracted_state", "an accepted annotation needs a state")
		}
	case map[string]any:
		_, norm, err := engine.ParseAnnotationState(d, v)
		if err != nil {
			field := "extracted_state"
			if fe, ok := err.(*engine.FieldError); ok && fe.Path != "" {
				field += "." + fe.Path
			}
			return l, bad(field, "%v", err)
		}
		state = norm
	default:
		return l, bad("extracted_state", "expected an object or null")
	}
	detail, _ := r.Tree["detail"].(string)
	if detail == "" {
		detail = status
	}
	raw := string(r.Raw)
	if raw == "" {
		raw = pyjson.MustCanonicalJSON(r.Tree)
	}
	l.label = storedLabel{id: r.Str("annotation_id"), memoryID: r.Str("memory_id"), annotator: name, hash: r.Str("source_content_hash"),
		status: status, detail: detail, origin: annotations.OriginImport, sourceRow: raw, state: state}
	return l, nil
}
