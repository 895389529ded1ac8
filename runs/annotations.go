package runs

// Free-text memory annotations: a reading of a free-text memory as a typed authorization
// state, bound to the content hash of the text that was read. Only accepted annotations score
// a memory, under EAL-Bench's rules (preservation._resolve_annotations, docs/FORMATS.md §7.2):
//
//   - no annotation at all                      -> unscored "missing_annotation"
//   - none accepted                             -> "annotation_not_accepted:<sorted statuses>"
//   - an accepted one read other text           -> "annotation_content_hash_mismatch"
//   - accepted states differ (canonical JSON)   -> "conflicting_accepted_annotations"
//   - else the accepted state is scored          -> scored_from "free_text_annotation"
//
// Labels change after import, so every save that changes a memory's resolution re-derives,
// in the same transaction, what depends on it: its scores at every block where it was scored,
// the chain blocks where it is current, the chain's first false-authority block and flags,
// and the attribution rows of trials on it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
)

// NeedsAnnotation reports whether an unscored reason is one an annotator can resolve.
func NeedsAnnotation(reason string) bool {
	return reason == ReasonMissingAnnot || strings.HasPrefix(reason, annotations.ReasonAnnotationNotAccepted) ||
		reason == annotations.ReasonAnnotationHashMismatch || reason == annotations.ReasonConflictingAnnotations
}

// querier is what resolution reads through: the import transaction or the database.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// resolveAnnotations applies EAL-Bench's rules (annotations.Resolve) to the stored labels of
// one memory whose current content hash is contentHash.
func resolveAnnotations(ctx context.Context, q querier, d engine.Domain, memoryID, contentHash string) (*annotations.Resolution, error) {
	labels, err := queryAll(ctx, q, func(r rowScanner) (annotations.StoredLabel, error) {
		var l annotations.StoredLabel
		var state sql.NullString
		err := r.Scan(&l.ID, &l.Status, &l.SourceHash, &state)
		l.StateJSON = state.String
		return l, err
	}, `SELECT annotation_id, status, source_content_hash, state_json FROM annotations WHERE memory_id = ? ORDER BY annotation_pk`, memoryID)
	if err != nil {
		return nil, err
	}
	return annotations.Resolve(d, labels, contentHash, ReasonMissingAnnot)
}

// annotation returns (and caches) a free-text memory's resolution within the deriver's
// transaction.
func (dv *deriver) annotation(mr *memRec) (*annotations.Resolution, error) {
	if r, ok := dv.annotations[mr.id]; ok {
		return r, nil
	}
	r, err := resolveAnnotations(dv.w.ctx, dv.w.tx, dv.d, mr.id, mr.hash)
	if err != nil {
		return nil, fmt.Errorf("memory %s: %w", mr.id, err)
	}
	if dv.annotations == nil {
		dv.annotations = map[string]*annotations.Resolution{}
	}
	dv.annotations[mr.id] = r
	return r, nil
}

// scoreFreeText scores a free-text memory from its accepted annotation, or records why it
// cannot be scored.
func (dv *deriver) scoreFreeText(s *memScore, mr *memRec, block int) error {
	s.scoredFrom = ScoredFreeTextNone
	r, err := dv.annotation(mr)
	if err != nil {
		return err
	}
	unscorable := dv.unscorableAt(mr, block)
	switch {
	case r.Reason != "":
		s.unscored = strp(r.Reason)
	case unscorable != "":
		s.unscored = strp(unscorable)
	default:
		s.scoredFrom = annotations.ScoredFreeTextAnnotation
		return dv.scoreRecords(s, mr, block, r.Records)
	}
	return nil
}

// citable is the memory whose cited sources the chain header shows: a free-text memory cites
// through its accepted annotation's source_turn_ids.
func (dv *deriver) citable(mr *memRec) *memRec {
	if mr == nil || mr.arch != engine.ArchFreeText {
		return mr
	}
	if r, err := dv.annotation(mr); err == nil && r.Reason == "" {
		cp := *mr
		cp.payload = r.State
		return &cp
	}
	return mr
}

// AnnotationInput is one label to save.
type AnnotationInput struct {
	MemoryID  string
	Annotator string
	// State is the typed state tree ({schema_version "3", authorizations [...]}).
	State any
	// Status is draft, submitted or accepted.
	Status string
	// SourceContentHash is the content hash of the text the annotator read; "" means the
	// memory's text as stored now (scripts that name a memory rather than show it).
	SourceContentHash string
	Origin            string
}

var humanStatuses = map[string]bool{annotations.AnnotationDraft: true, annotations.AnnotationSubmitted: true, annotations.AnnotationAccepted: true}

// currentResolution resolves a free-text memory's stored labels against its current content
// hash.
func currentResolution(ctx context.Context, q querier, memoryID string) (*annotations.Resolution, error) {
	hash, d, err := memoryHash(ctx, q, memoryID)
	if err != nil {
		return nil, err
	}
	return resolveAnnotations(ctx, q, d, memoryID, hash)
}

// memoryHash is the content hash of a free-text memory and its run's domain.
func memoryHash(ctx context.Context, q querier, memoryID string) (hash string, d engine.Domain, err error) {
	rows, err := q.QueryContext(ctx, `SELECT m.content_hash, r.domain_id FROM memories m JOIN runs r ON r.run_pk = m.run_pk WHERE m.memory_id = ? AND m.architecture = `+sqlFreeText+` ORDER BY m.mem_pk LIMIT 1`, memoryID)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("memory %q: no free-text memory with this id in the workspace: %w", memoryID, ErrNotFound)
	}
	var domainID string
	if err = rows.Scan(&hash, &domainID); err != nil {
		return "", nil, err
	}
	if d, err = domains.Get(domainID); err != nil {
		return "", nil, fmt.Errorf("memory %s: %w", memoryID, err)
	}
	return hash, d, nil
}

// touchAnnotator records an annotator. It is the first statement of every annotation
// transaction on purpose: a transaction whose first statement writes takes SQLite's write
// lock up front (waiting out the busy timeout), so two processes saving at once queue
// instead of one failing with a stale read snapshot.
func touchAnnotator(w *txWriter, name, kind, detailJSON, now string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("annotator: a name is required")
	}
	_, err := w.exec("annotators", `INSERT INTO annotators (name, kind, created_at, detail_json) VALUES (?,?,?,?)
		ON CONFLICT (name) DO UPDATE SET detail_json = CASE WHEN excluded.detail_json <> '{}' THEN excluded.detail_json ELSE annotators.detail_json END`, name, kind, now, detailJSON)
	return err
}

type storedLabel struct {
	id, memoryID, annotator, hash, status, detail, origin, sourceRow string
	// schemaVersion is the typed schema the state was read in (the memory's domain's).
	schemaVersion string
	state         map[string]any
}

func upsertLabel(w *txWriter, l storedLabel, now string) error {
	var state any
	if l.state != nil {
		state = pyjson.MustCanonicalJSON(l.state)
	}
	_, err := w.exec("annotations", `INSERT INTO annotations (annotation_id, memory_id, annotator, created_at, updated_at, schema_version, source_content_hash, status, detail, state_json, origin, source_row_json)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (memory_id, annotator) DO UPDATE SET updated_at = excluded.updated_at, schema_version = excluded.schema_version,
		source_content_hash = excluded.source_content_hash, status = excluded.status, detail = excluded.detail, state_json = excluded.state_json,
		origin = excluded.origin, source_row_json = excluded.source_row_json`,
		l.id, l.memoryID, l.annotator, now, now, l.schemaVersion, l.hash, l.status, l.detail, state, l.origin, l.sourceRow)
	return err
}

// SaveAnnotation stores one label in its own committed transaction and, when it changes the
// memory's annotation outcome, re-derives the memory's scores and its chain's facts there too.
func (s *Store) SaveAnnotation(ctx context.Context, in AnnotationInput) (annotations.Annotation, error) {
	if !humanStatuses[in.Status] {
		return annotations.Annotation{}, fmt.Errorf("annotation status %q: must be draft, submitted or accepted", in.Status)
	}
	origin := in.Origin
	if origin == "" {
		origin = annotations.OriginCLI
	}
	now := s.stampNano()
	_, err := s.inTx(ctx, func(w *txWriter) error {
		if err := touchAnnotator(w, in.Annotator, annotations.AnnotatorHuman, "{}", now); err != nil {
			return err
		}
		return s.changeLabels(w, in.MemoryID, func(d engine.Domain, hash string) error {
			_, norm, err := engine.ParseAnnotationState(d, in.State)
			if err != nil {
				return fmt.Errorf("memory %s: annotated state: %w", in.MemoryID, err)
			}
			src := in.SourceContentHash
			if src == "" {
				src = hash
			}
			return upsertLabel(w, storedLabel{id: annotations.AnnotationID(annotations.HumanExtractorVersion, in.MemoryID, in.Annotator), memoryID: in.MemoryID, annotator: in.Annotator,
				hash: src, status: in.Status, detail: in.Status, origin: origin, schemaVersion: d.TypedSchemaVersion(), state: norm}, now)
		})
	})
	if err != nil {
		return annotations.Annotation{}, err
	}
	return s.annotationOf(ctx, in.MemoryID, in.Annotator)
}

// Adjudicate makes state the memory's one accepted annotation, recorded under the
// adjudicator's name: other accepted labels become submitted (their states stay for
// agreement), so EAL-Bench's conflicting-annotations rule no longer applies.
func (s *Store) Adjudicate(ctx context.Context, memoryID, adjudicator string, state any, sourceHash string) (annotations.Annotation, error) {
	now := s.stampNano()
	_, err := s.inTx(ctx, func(w *txWriter) error {
		if err := touchAnnotator(w, adjudicator, annotations.AnnotatorHuman, "{}", now); err != nil {
			return err
		}
		return s.changeLabels(w, memoryID, func(d engine.Domain, hash string) error {
			_, norm, err := engine.ParseAnnotationState(d, state)
			if err != nil {
				return fmt.Errorf("memory %s: adjudicated state: %w", memoryID, err)
			}
			if _, err := w.exec("", `UPDATE annotations SET status = ?, detail = ?, updated_at = ? WHERE memory_id = ? AND status = ? AND annotator <> ?`,
				annotations.AnnotationSubmitted, "superseded by adjudication ("+adjudicator+")", now, memoryID, annotations.AnnotationAccepted, adjudicator); err != nil {
				return err
			}
			if sourceHash == "" {
				sourceHash = hash
			}
			return upsertLabel(w, storedLabel{id: annotations.AnnotationID(annotations.HumanExtractorVersion, memoryID, adjudicator), memoryID: memoryID, annotator: adjudicator,
				hash: sourceHash, status: annotations.AnnotationAccepted, detail: "adjudicated", origin: annotations.OriginAdjudication, schemaVersion: d.TypedSchemaVersion(), state: norm}, now)
		})
	})
	if err != nil {
		return annotations.Annotation{}, err
	}
	return s.annotationOf(ctx, memoryID, adjudicator)
}

// changeLabels runs edit (given the memory's current content hash) and re-derives the memory
// when its annotation outcome changed.
func (s *Store) changeLabels(w *txWriter, memoryID string, edit func(d engine.Domain, hash string) error) error {
	hash, d, err := memoryHash(w.ctx, w.tx, memoryID)
	if err != nil {
		return err
	}
	before, err := resolveAnnotations(w.ctx, w.tx, d, memoryID, hash)
	if err != nil {
		return err
	}
	if err := edit(d, hash); err != nil {
		return err
	}
	after, err := resolveAnnotations(w.ctx, w.tx, d, memoryID, hash)
	if err != nil {
		return err
	}
	if sameResolution(before, after) {
		return nil
	}
	return s.rederiveMemory(w, memoryID)
}

func sameResolution(a, b *annotations.Resolution) bool {
	if a.Reason != b.Reason {
		return false
	}
	if a.Reason != "" {
		return true
	}
	return pyjson.MustCanonicalJSON(a.State) == pyjson.MustCanonicalJSON(b.State)
}

// stampNano is a label's time: RFC 3339 with nanoseconds, so two saves within a second still
// order.
func (s *Store) stampNano() string {
	return s.now().UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
}

func (s *Store) annotationOf(ctx context.Context, memoryID, annotator string) (annotations.Annotation, error) {
	list, err := s.Annotations(ctx, memoryID)
	if err != nil {
		return annotations.Annotation{}, err
	}
	for _, a := range list {
		if a.Annotator == annotator {
			return a, nil
		}
	}
	return annotations.Annotation{}, fmt.Errorf("annotation of %s by %s: %w", memoryID, annotator, ErrNotFound)
}

const annotationColumns = `a.annotation_id, a.memory_id, a.annotator, n.kind, a.created_at, a.updated_at, a.schema_version, a.source_content_hash, a.status, a.detail, a.state_json, a.origin,
	COALESCE((SELECT m.content_hash FROM memories m WHERE m.memory_id = a.memory_id AND m.architecture = ` + sqlFreeText + ` ORDER BY m.mem_pk LIMIT 1), a.source_content_hash)`

func scanAnnotation(sc rowScanner) (annotations.Annotation, error) {
	var a annotations.Annotation
	var state sql.NullString
	var current string
	if err := sc.Scan(&a.AnnotationID, &a.MemoryID, &a.Annotator, &a.AnnotatorKind, &a.CreatedAt, &a.UpdatedAt, &a.SchemaVersion, &a.SourceContentHash,
		&a.Status, &a.Detail, &state, &a.Origin, &current); err != nil {
		return a, err
	}
	a.Stale = current != a.SourceContentHash
	if state.Valid {
		tree, err := pyjson.DecodeTree([]byte(state.String))
		if err != nil {
			return a, fmt.Errorf("annotation %s: stored state: %w", a.AnnotationID, err)
		}
		a.State, _ = tree.(map[string]any)
	}
	return a, nil
}

// Annotations lists a memory's labels, by annotator (annotations unique key).
func (s *Store) Annotations(ctx context.Context, memoryID string) ([]annotations.Annotation, error) {
	return s.queryAnnotations(ctx, `WHERE a.memory_id = ? ORDER BY a.annotator`, memoryID)
}

func (s *Store) queryAnnotations(ctx context.Context, where string, args ...any) ([]annotations.Annotation, error) {
	return queryAll(ctx, s.db, scanAnnotation, `SELECT `+annotationColumns+` FROM annotations a JOIN annotators n ON n.name = a.annotator `+where, args...)
}
