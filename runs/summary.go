package runs

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/ealscope/ealscope/engine"
)

// SummaryRun is one run of the summary document.
type SummaryRun struct {
	RunID        string         `json:"run_id"`
	DomainID     string         `json:"domain_id"`
	Study        string         `json:"study"`
	Status       string         `json:"status"`
	ImportedFrom string         `json:"imported_from"`
	Counts       map[string]int `json:"counts"`
	Decisions    map[string]int `json:"decisions"`
	// Metrics is EAL-Bench's aggregate (provider errors in the denominators, docs/FORMATS.md 6.4);
	// Estimable leaves provider-error trials out and is what a person is shown.
	Metrics              engine.Metrics          `json:"metrics"`
	Estimable            engine.EstimableMetrics `json:"estimable"`
	RescoreDisagreements int                     `json:"rescore_disagreements"`
	// ModelCalls is what the run's model calls cost (ModelCallCosts).
	ModelCalls []ModelCallCost `json:"model_calls"`
}

// SummaryChain is one chain of the summary document.
type SummaryChain struct {
	RunID                    string  `json:"run_id"`
	CaseID                   string  `json:"case_id"`
	ConditionID              string  `json:"condition_id"`
	Writer                   *string `json:"writer"`
	WriterRunID              int64   `json:"writer_run_id"`
	Architecture             string  `json:"architecture"`
	FirstFalseAuthorityBlock *int    `json:"first_false_authority_block"`
	UnauthorizedActions      int     `json:"unauthorized_actions"`
	AttributedMemoryInduced  int     `json:"attributed_memory_induced"`
}

// SummaryMemory is one memory version, scored at its own block.
type SummaryMemory struct {
	MemoryID            string         `json:"memory_id"`
	RunID               string         `json:"run_id"`
	CaseID              string         `json:"case_id"`
	ConditionID         string         `json:"condition_id"`
	Writer              *string        `json:"writer"`
	WriterRunID         int64          `json:"writer_run_id"`
	BlockIndex          int            `json:"block_index"`
	Architecture        string         `json:"architecture"`
	ContentHash         string         `json:"content_hash"`
	Exact               *bool          `json:"exact"`
	Errors              map[string]int `json:"errors"`
	FormedProbeIDs      []string       `json:"formed_probe_ids"`
	FormsFalseAuthority *bool          `json:"forms_false_authority"`
	ScoredFrom          string         `json:"scored_from"`
	UnscoredReason      *string        `json:"unscored_reason"`
}

// SummaryDoc is `ealscope summary --json`: runs, chains and memories, each sorted by its key
// columns so the document is the same on every call over an unchanged workspace.
type SummaryDoc struct {
	Runs     []SummaryRun    `json:"runs"`
	Chains   []SummaryChain  `json:"chains"`
	Memories []SummaryMemory `json:"memories"`
}

func optWriter(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Summary builds the summary of one run (runID: id or unique prefix) or of every run ("").
// Metrics are EAL-Bench's aggregate over the run's stored trial decisions (trials_by_run);
// chains come from the chains unique key and memories from memories_by_chain joined with
// their score at their own block.
func (s *Store) Summary(ctx context.Context, runID string) (SummaryDoc, error) {
	doc := SummaryDoc{Runs: []SummaryRun{}, Chains: []SummaryChain{}, Memories: []SummaryMemory{}}
	filter, args, err := s.runFilter(ctx, runID, " WHERE r.run_pk = ?")
	if err != nil {
		return doc, err
	}
	var pks []int64
	err = eachRow(ctx, s.db, func(row rowScanner) error {
		var r SummaryRun
		var pk int64
		var counts string
		if err := row.Scan(&pk, &r.RunID, &r.DomainID, &r.Study, &r.Status, &r.ImportedFrom, &counts, &r.RescoreDisagreements); err != nil {
			return err
		}
		r.Counts = map[string]int{}
		_ = json.Unmarshal([]byte(counts), &r.Counts)
		doc.Runs = append(doc.Runs, r)
		pks = append(pks, pk)
		return nil
	}, `SELECT r.run_pk, r.run_id, r.domain_id, r.study, r.status, r.imported_from, r.counts_json, r.rescore_disagreements FROM runs r`+filter+` ORDER BY r.run_id`, args...)
	if err != nil {
		return doc, err
	}
	for i, pk := range pks {
		outcomes, err := s.storedOutcomes(ctx, pk)
		if err != nil {
			return doc, err
		}
		m := engine.Aggregate(outcomes)
		doc.Runs[i].Metrics = m
		doc.Runs[i].Estimable = engine.AggregateEstimable(outcomes)
		doc.Runs[i].Decisions = m.Decisions
		if doc.Runs[i].ModelCalls, err = s.modelCallCosts(ctx, pk); err != nil {
			return doc, err
		}
	}
	doc.Chains, err = queryAll(ctx, s.db, scanSummaryChain, `SELECT r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, c.architecture, c.first_false_authority_block, c.unauthorized_actions, c.attributed_memory_induced
		FROM chains c JOIN runs r ON r.run_pk = c.run_pk`+filter+` ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id`, args...)
	if err != nil {
		return doc, err
	}
	doc.Memories, err = queryAll(ctx, s.db, scanSummaryMemory, `SELECT m.memory_id, r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, m.block_index, m.architecture, m.content_hash,
		ms.exact, ms.errors_json, ms.formed_probe_ids_json, ms.forms_false_authority, ms.scored_from, ms.unscored_reason
		FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk
		LEFT JOIN memory_scores ms ON ms.run_pk = m.run_pk AND ms.memory_id = m.memory_id AND ms.block_index = m.block_index`+filter+`
		ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, m.block_index, m.memory_id`, args...)
	return doc, err
}

func scanSummaryChain(sc rowScanner) (SummaryChain, error) {
	var c SummaryChain
	var writer string
	var ffa sql.NullInt64
	err := sc.Scan(&c.RunID, &c.CaseID, &c.ConditionID, &writer, &c.WriterRunID, &c.Architecture, &ffa, &c.UnauthorizedActions, &c.AttributedMemoryInduced)
	c.Writer, c.FirstFalseAuthorityBlock = optWriter(writer), intPtr(ffa)
	return c, err
}

func scanSummaryMemory(sc rowScanner) (SummaryMemory, error) {
	var m SummaryMemory
	var writer string
	var exact, forms sql.NullInt64
	var errs, formed, scoredFrom, unscored sql.NullString
	if err := sc.Scan(&m.MemoryID, &m.RunID, &m.CaseID, &m.ConditionID, &writer, &m.WriterRunID, &m.BlockIndex, &m.Architecture, &m.ContentHash,
		&exact, &errs, &formed, &forms, &scoredFrom, &unscored); err != nil {
		return m, err
	}
	m.Writer, m.Exact, m.FormsFalseAuthority, m.ScoredFrom = optWriter(writer), boolPtr(exact), boolPtr(forms), scoredFrom.String
	if unscored.Valid {
		m.UnscoredReason = &unscored.String
	}
	m.Errors, m.FormedProbeIDs = map[string]int{}, []string{}
	_ = json.Unmarshal([]byte(errs.String), &m.Errors)
	_ = json.Unmarshal([]byte(formed.String), &m.FormedProbeIDs)
	return m, nil
}

// storedOutcomes are a run's trials as stored (not re-scored), in file order.
func (s *Store) storedOutcomes(ctx context.Context, runPK int64) ([]engine.Outcome, error) {
	return queryAll(ctx, s.db, func(r rowScanner) (engine.Outcome, error) {
		var o engine.Outcome
		var ra, rat, uat, am, c, p int
		var pe sql.NullString
		err := r.Scan(&o.Decision, &ra, &rat, &uat, &am, &c, &p, &pe)
		o.RequestAuthorized, o.RequestedActionTaken, o.UnauthorizedActionTaken, o.ActionMismatch, o.Compliant, o.Parseable = ra != 0, rat != 0, uat != 0, am != 0, c != 0, p != 0
		if pe.Valid {
			o.ProviderError = &pe.String
		}
		return o, err
	}, `SELECT decision, request_authorized, requested_action_taken, unauthorized_action_taken, action_mismatch, compliant, parseable, provider_error
		FROM trials WHERE run_pk = ? ORDER BY line`, runPK)
}
