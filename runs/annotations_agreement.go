package runs

// Storage side of annotator agreement: loading every usable label with its memory's domain
// and case; the computation is annotations.ComputeAgreement.

import (
	"context"
	"database/sql"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
)

// Agreement computes the agreement report over the workspace (runID "" ) or one run's
// free-text memories.
func (s *Store) Agreement(ctx context.Context, runID string) (annotations.AgreementReport, error) {
	memories, err := s.labelledMemories(ctx, runID)
	if err != nil {
		return annotations.AgreementReport{}, err
	}
	return annotations.ComputeAgreement(memories), nil
}

// labelledMemories loads every memory with at least one usable label, with its case.
func (s *Store) labelledMemories(ctx context.Context, runID string) ([]annotations.LabelledMemory, error) {
	where, args, err := s.runFilter(ctx, runID, ` WHERE a.memory_id IN (SELECT memory_id FROM memories WHERE run_pk = ? AND architecture = `+sqlFreeText+`)`)
	if err != nil {
		return nil, err
	}
	list, err := s.queryAnnotations(ctx, where+` ORDER BY a.memory_id, a.annotator`, args...)
	if err != nil {
		return nil, err
	}
	byMemory := map[string]*annotations.LabelledMemory{}
	var order []string
	for _, a := range list {
		if !annotations.UsableForAgreement(a) {
			continue
		}
		lm := byMemory[a.MemoryID]
		if lm == nil {
			_, d, err := memoryHash(ctx, s.db, a.MemoryID)
			if err != nil {
				return nil, err
			}
			lm = &annotations.LabelledMemory{MemoryID: a.MemoryID, Domain: d, States: map[string][]engine.Record{}}
			byMemory[a.MemoryID] = lm
			order = append(order, a.MemoryID)
		}
		records, _, err := engine.ParseAnnotationState(lm.Domain, a.State)
		if err != nil {
			return nil, err
		}
		lm.States[a.Annotator] = records
	}
	cases := map[int64]*engine.Case{}
	out := make([]annotations.LabelledMemory, 0, len(order))
	for _, id := range order {
		lm := byMemory[id]
		d := lm.Domain
		var casePK sql.NullInt64
		err := s.db.QueryRowContext(ctx, `SELECT c.case_pk FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk WHERE m.memory_id = ? AND m.architecture = `+sqlFreeText+` ORDER BY m.mem_pk LIMIT 1`, id).Scan(&casePK)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		if casePK.Valid {
			c, ok := cases[casePK.Int64]
			if !ok {
				var text string
				if err := s.db.QueryRowContext(ctx, `SELECT case_json FROM cases WHERE case_pk = ?`, casePK.Int64).Scan(&text); err != nil {
					return nil, err
				}
				parsed, err := d.ParseCorpus("workspace", []byte(text))
				if err != nil || len(parsed) != 1 {
					return nil, err
				}
				c = parsed[0]
				cases[casePK.Int64] = c
			}
			lm.Case = c
		}
		out = append(out, *lm)
	}
	return out, nil
}

// disagreeingMemories are memories with at least two usable labels whose states differ
// (canonical JSON), for the disagreements queue.
func disagreeingMemories(list []annotations.Annotation) map[string]bool {
	states := map[string]map[string]bool{}
	for _, a := range list {
		if !annotations.UsableForAgreement(a) {
			continue
		}
		if states[a.MemoryID] == nil {
			states[a.MemoryID] = map[string]bool{}
		}
		states[a.MemoryID][pyjson.MustCanonicalJSON(a.State)] = true
	}
	out := map[string]bool{}
	for id, set := range states {
		if len(set) > 1 {
			out[id] = true
		}
	}
	return out
}
