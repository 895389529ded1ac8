package storecontract

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// labelStatuses are the statuses a person may give a label.
var labelStatuses = map[string]bool{annotations.AnnotationDraft: true, annotations.AnnotationSubmitted: true, annotations.AnnotationAccepted: true}

func (m *memStore) SaveAnnotation(ctx context.Context, in runs.AnnotationInput) (annotations.Annotation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !labelStatuses[in.Status] {
		return annotations.Annotation{}, fmt.Errorf("annotation status %q: must be draft, submitted or accepted", in.Status)
	}
	origin := in.Origin
	if origin == "" {
		origin = annotations.OriginCLI
	}
	return m.upsertLabel(in.MemoryID, in.Annotator, in.State, in.SourceContentHash, in.Status, in.Status, origin, nil)
}

func (m *memStore) Adjudicate(ctx context.Context, memoryID, adjudicator string, state any, sourceHash string) (annotations.Annotation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	supersede := func(list []annotations.Annotation, now string) {
		for i := range list {
			if list[i].Status == annotations.AnnotationAccepted && list[i].Annotator != adjudicator {
				list[i].Status, list[i].Detail, list[i].UpdatedAt = annotations.AnnotationSubmitted, "superseded by adjudication ("+adjudicator+")", now
			}
		}
	}
	return m.upsertLabel(memoryID, adjudicator, state, sourceHash, annotations.AnnotationAccepted, "adjudicated", annotations.OriginAdjudication, supersede)
}

// upsertLabel checks and stores one annotator's label of a free-text memory (replacing that
// annotator's earlier one), after edit changed the others, and re-derives the memory's
// chains. Nothing changes when a check fails.
func (m *memStore) upsertLabel(memoryID, annotator string, state any, sourceHash, status, detail, origin string, edit func([]annotations.Annotation, string)) (annotations.Annotation, error) {
	if strings.TrimSpace(annotator) == "" {
		return annotations.Annotation{}, fmt.Errorf("annotator: a name is required")
	}
	mem, ch, err := m.freeTextMemory(memoryID)
	if err != nil {
		return annotations.Annotation{}, err
	}
	d := ch.run.domain
	_, norm, err := engine.ParseAnnotationState(d, state)
	if err != nil {
		return annotations.Annotation{}, fmt.Errorf("memory %s: annotated state: %w", memoryID, err)
	}
	if sourceHash == "" {
		sourceHash = mem.hash
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
	list := append([]annotations.Annotation(nil), m.labels[memoryID]...)
	if edit != nil {
		edit(list, now)
	}
	a := annotations.Annotation{AnnotationID: annotations.AnnotationID(annotations.HumanExtractorVersion, memoryID, annotator), MemoryID: memoryID,
		Annotator: annotator, AnnotatorKind: annotations.AnnotatorHuman, CreatedAt: now, UpdatedAt: now, SchemaVersion: d.TypedSchemaVersion(),
		SourceContentHash: sourceHash, Status: status, Detail: detail, State: norm, Origin: origin, Stale: sourceHash != mem.hash}
	replaced := false
	for i := range list {
		if list[i].Annotator == annotator {
			a.CreatedAt, list[i], replaced = list[i].CreatedAt, a, true
		}
	}
	if !replaced {
		list = append(list, a)
	}
	m.labels[memoryID] = list
	return a, m.rederive(memoryID)
}

func (m *memStore) Annotations(ctx context.Context, memoryID string) ([]annotations.Annotation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]annotations.Annotation{}, m.labels[memoryID]...)
	sort.Slice(out, func(i, j int) bool { return out[i].Annotator < out[j].Annotator })
	return out, nil
}

func (m *memStore) ImportDiagnosis(ctx context.Context, path string) (runs.PathResult, error) {
	res := runs.PathResult{Path: path, Kind: runs.KindDiagnosis, Rows: map[string]int{}, Unknown: []string{}, MissingCorpora: []runs.CorpusRef{}, Notes: []string{}}
	rows, sum, err := runs.ReadDiagnoses(path)
	if err != nil {
		return res, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.diagFiles[sum] {
		res.Status = runs.StatusAlreadyImported
		return res, nil
	}
	m.diagFiles[sum] = true
	m.diagnoses = append(m.diagnoses, rows...)
	res.Status, res.Rows["diagnoses"] = runs.StatusImported, len(rows)
	return res, nil
}

func (m *memStore) Diagnoses(ctx context.Context, caseID, conditionID string, writerRunID int64, block int) ([]runs.Diagnosis, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []runs.Diagnosis{}
	for _, d := range m.diagnoses {
		if d.CaseID == caseID && d.ConditionID == conditionID && d.WriterRunID == writerRunID && d.ErrorBlock == block {
			out = append(out, d)
		}
	}
	return out, nil
}

// Search matches every word of the query as a prefix of a word of the text (the SQLite
// store's full-text query), case-insensitively; hits come in workspace order, not ranked.
func (m *memStore) Search(ctx context.Context, query string, limit int) ([]runs.SearchHit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return []runs.SearchHit{}, nil
	}
	if limit <= 0 {
		limit = 50
	}
	matches := func(text string) bool {
		words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127) })
		for _, term := range terms {
			found := false
			for _, w := range words {
				if strings.HasPrefix(w, term) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	hits := []runs.SearchHit{}
	turns := 0
	for _, c := range m.cases {
		var first *memChain
		for _, ch := range m.chains {
			if ch.cse == c {
				first = ch
				break
			}
		}
		for _, b := range c.c.Blocks {
			for _, tu := range b.Turns {
				if turns < limit && matches(tu.Content) {
					h := runs.SearchHit{Kind: "turn", Snippet: tu.Content, CaseKey: c.key, CaseID: c.c.ID, BlockIndex: b.Index, TurnID: tu.ID, Speaker: tu.Speaker}
					if first != nil {
						h.RunID, h.Chain = first.run.summary.RunID, first.row.Key
					}
					hits = append(hits, h)
					turns++
				}
			}
		}
	}
	memories := 0
	for _, ch := range m.chains {
		for _, mem := range ch.memories {
			if memories < limit && mem.arch == engine.ArchFreeText && matches(mem.text) {
				h := runs.SearchHit{Kind: "memory", Snippet: mem.text, CaseID: ch.key.caseID, BlockIndex: mem.block, MemoryID: mem.id, RunID: ch.run.summary.RunID, Chain: ch.row.Key}
				if ch.cse != nil {
					h.CaseKey = ch.cse.key
				}
				hits = append(hits, h)
				memories++
			}
		}
	}
	return hits, nil
}
