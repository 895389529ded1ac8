package runs

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
)

// What the re-run and the safeguard lab loaders both read of a chain: its stored case, and the
// operational context EAL-Bench put in the executor contexts of its probes.

// storedCase parses the case of a chain from the workspace, with its domain. A chain whose case
// is not in the workspace fails naming the corpus to import when the import recorded it.
func (s *Store) storedCase(ctx context.Context, h ChainHeader) (engine.Domain, *engine.Case, error) {
	if h.CaseKey == 0 {
		if h.MissingCorpus != nil {
			return nil, nil, fmt.Errorf("case %s needs corpus %s, which is not in the workspace (import it with --corpus FILE)", h.CaseID, h.MissingCorpus)
		}
		return nil, nil, fmt.Errorf("case %s is not in the workspace", h.CaseID)
	}
	d, err := domains.Get(h.DomainID)
	if err != nil {
		return nil, nil, err
	}
	var caseJSON, version string
	if err := s.db.QueryRowContext(ctx, `SELECT case_json, corpus_version FROM cases WHERE case_pk = ?`, int64(h.CaseKey)).Scan(&caseJSON, &version); err != nil {
		return nil, nil, err
	}
	cases, err := d.ParseCorpus("workspace:"+d.ID()+"/"+version, []byte(caseJSON))
	if err != nil || len(cases) != 1 {
		return nil, nil, fmt.Errorf("stored case %s no longer parses: %v", h.CaseID, err)
	}
	return d, cases[0], nil
}

// setContextUserMessages runs a query for rows of (probe_id, the executor model context's line
// and rawColumns)
// and gives each probe in index (probe id -> position in probes) the last user message of the
// first of its contexts that has one: the operational context depends on the case and probe
// only, so any executor context of the probe carries it. A context that does not parse is
// passed over.
func (s *Store) setContextUserMessages(ctx context.Context, index map[string]int, probes []RerunProbeSource, query string, args ...any) error {
	rr := newRowReader(s.db)
	return eachRow(ctx, s.db, func(r rowScanner) error {
		var probe string
		var line int
		var cols rawCols
		if err := r.Scan(append([]any{&probe, &line}, cols.dest()...)...); err != nil {
			return err
		}
		i, ok := index[probe]
		if !ok || probes[i].ContextUserMessage != "" {
			return nil
		}
		row, parsed, err := decodeStored[struct {
			Messages []engine.ChatMessage `json:"messages"`
		}](ctx, rr, &cols, "model_contexts", line)
		if err != nil {
			return err
		}
		if parsed {
			for _, m := range row.Messages {
				if m.Role == "user" {
					probes[i].ContextUserMessage = m.Content
				}
			}
		}
		return nil
	}, query, args...)
}
