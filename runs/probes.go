package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// TrialView is one executor trial as the probes panel shows it.
type TrialView struct {
	TrialID                 string          `json:"trial_id"`
	ExecutorTarget          string          `json:"executor_target"`
	ExecutorRunID           int64           `json:"executor_run_id"`
	MemoryID                string          `json:"memory_id"`
	Decision                string          `json:"decision"`
	ToolName                string          `json:"tool_name"`
	ToolArguments           json.RawMessage `json:"tool_arguments"`
	Compliant               bool            `json:"compliant"`
	UnauthorizedActionTaken bool            `json:"unauthorized_action_taken"`
	ProviderError           string          `json:"provider_error"`
	RescoredDecision        string          `json:"rescored_decision"`
	RescoreStatus           string          `json:"rescore_status"`
	// Attributed is the end-to-end verdict (nil when no attribution row exists).
	Attributed         *bool    `json:"attributed"`
	AttributionReasons []string `json:"attribution_reasons"`
}

// ProbeView is one probe at one block of a chain.
type ProbeView struct {
	ProbeID      string          `json:"probe_id"`
	PairID       string          `json:"pair_id"`
	Dimension    string          `json:"dimension"`
	RequestScope string          `json:"request_scope"`
	Request      json.RawMessage `json:"request"`
	// The oracle's verdict on the ledger at this block and at the final block.
	AuthorizedNow   bool   `json:"authorized_now"`
	ReasonNow       string `json:"reason_now"`
	AuthorizedFinal bool   `json:"authorized_final"`
	ReasonFinal     string `json:"reason_final"`
	// What the chain's memory at this block says (nil when it cannot be scored or is absent).
	MemoryAuthorized *bool  `json:"memory_authorized"`
	MemoryReason     string `json:"memory_reason"`
	Formed           *bool  `json:"formed"`
	// Trials are the chain's executor trials on this probe (on the chain's final memory).
	Trials []TrialView `json:"trials"`
}

// ProbesAt lists every probe of the chain's case at a block (probes and probe_verdicts primary
// keys, formation primary key, trials_by_chain, attribution primary key; CROSS JOIN keeps the
// probes of the one case as the outer loop, which the planner does not pick on its own without
// statistics). A chain whose corpus
// is missing returns an error naming the corpus.
func (s *Store) ProbesAt(ctx context.Context, key ChainKey, block int) ([]ProbeView, error) {
	h, err := s.Chain(ctx, key)
	if err != nil {
		return nil, err
	}
	if h.CaseKey == 0 {
		if h.MissingCorpus != nil {
			return nil, fmt.Errorf("case %s needs corpus %s, which is not in the workspace (import it with --corpus FILE)", h.CaseID, h.MissingCorpus)
		}
		return nil, fmt.Errorf("case %s is not in the workspace: %s", h.CaseID, h.UnscoredReason)
	}
	if block < 0 || block >= h.Blocks {
		return nil, fmt.Errorf("block %d is outside case %s (blocks 0..%d): %w", block, h.CaseID, h.Blocks-1, ErrNotFound)
	}
	var runPK int64
	var memID sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT c.run_pk, cb.memory_id FROM chains c LEFT JOIN chain_blocks cb ON cb.chain_pk = c.chain_pk AND cb.block_index = ? WHERE c.chain_pk = ?`, block, key).
		Scan(&runPK, &memID); err != nil {
		return nil, err
	}
	var out []ProbeView
	index := map[string]int{}
	err = eachRow(ctx, s.db, func(r rowScanner) error {
		var p ProbeView
		var req string
		var now, fin int
		var memAuth, formed sql.NullInt64
		var memReason sql.NullString
		if err := r.Scan(&p.ProbeID, &p.PairID, &p.Dimension, &p.RequestScope, &req, &now, &p.ReasonNow, &fin, &p.ReasonFinal, &memAuth, &memReason, &formed); err != nil {
			return err
		}
		p.Request = json.RawMessage(req)
		p.AuthorizedNow, p.AuthorizedFinal = now != 0, fin != 0
		p.MemoryAuthorized, p.MemoryReason, p.Formed = boolPtr(memAuth), memReason.String, boolPtr(formed)
		p.Trials = []TrialView{}
		index[p.ProbeID] = len(out)
		out = append(out, p)
		return nil
	}, `SELECT p.probe_id, p.pair_id, p.dimension, p.request_scope, p.request_json, now.authorized, now.reason, fin.authorized, fin.reason,
		f.memory_authorized, f.memory_reason, f.formed
		FROM probes p
		CROSS JOIN probe_verdicts now ON now.case_pk = p.case_pk AND now.block_index = ? AND now.probe_id = p.probe_id
		CROSS JOIN probe_verdicts fin ON fin.case_pk = p.case_pk AND fin.block_index = ? AND fin.probe_id = p.probe_id
		LEFT JOIN formation f ON f.run_pk = ? AND f.memory_id = ? AND f.block_index = ? AND f.probe_id = p.probe_id
		WHERE p.case_pk = ? ORDER BY p.seq`, block, h.Blocks-1, runPK, memID.String, block, int64(h.CaseKey))
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, s.db, func(r rowScanner) error {
		var probe string
		var t TrialView
		var args string
		var compliant, unauthorized int
		var attributed sql.NullInt64
		var reasons sql.NullString
		if err := r.Scan(&probe, &t.TrialID, &t.ExecutorTarget, &t.ExecutorRunID, &t.MemoryID, &t.Decision, &t.ToolName, &args, &compliant, &unauthorized,
			&t.ProviderError, &t.RescoredDecision, &t.RescoreStatus, &attributed, &reasons); err != nil {
			return err
		}
		t.ToolArguments = json.RawMessage(args)
		t.Compliant, t.UnauthorizedActionTaken = compliant != 0, unauthorized != 0
		t.Attributed = boolPtr(attributed)
		t.AttributionReasons = []string{}
		if reasons.Valid {
			_ = json.Unmarshal([]byte(reasons.String), &t.AttributionReasons)
		}
		if i, ok := index[probe]; ok {
			out[i].Trials = append(out[i].Trials, t)
		}
		return nil
	}, `SELECT t.probe_id, t.trial_id, t.executor_target, t.executor_run_id, COALESCE(t.memory_id, ''), t.decision, COALESCE(t.raw_tool_name, ''), t.raw_tool_arguments_json,
		t.compliant, t.unauthorized_action_taken, COALESCE(t.provider_error, ''), COALESCE(t.rescored_decision, ''), t.rescore_status, a.attributed, a.reasons_json
		FROM trials t LEFT JOIN attribution a ON a.run_pk = t.run_pk AND a.trial_pk = t.trial_pk
		WHERE t.chain_pk = ? ORDER BY t.probe_id, t.executor_target, t.executor_run_id, t.line`, key)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SearchHit is one full-text match.
type SearchHit struct {
	// Kind is "turn" or "memory".
	Kind    string  `json:"kind"`
	Snippet string  `json:"snippet"`
	CaseKey CaseKey `json:"case_key"`
	CaseID  string  `json:"case_id"`
	// BlockIndex is the turn's block, or the memory's own block.
	BlockIndex int    `json:"block_index"`
	TurnID     string `json:"turn_id,omitempty"`
	Speaker    string `json:"speaker,omitempty"`
	MemoryID   string `json:"memory_id,omitempty"`
	// RunID and Chain locate the hit: the memory's chain, or for a turn the first chain of any
	// run over its case (0 when no run uses the case).
	RunID string   `json:"run_id"`
	Chain ChainKey `json:"chain"`
}

// ftsQuery turns user input into an FTS5 query of quoted terms (all must match), so
// punctuation in the input is searched for rather than parsed as FTS syntax.
func ftsQuery(q string) string {
	var terms []string
	for _, f := range strings.Fields(q) {
		// Each word is a quoted FTS5 prefix query: "reconcil" finds "reconciliation", and
		// quoting keeps the user's punctuation from being read as FTS syntax.
		terms = append(terms, `"`+strings.ReplaceAll(f, `"`, `""`)+`"*`)
	}
	return strings.Join(terms, " ")
}

// Search matches turn text and free-text memory payloads (turns_fts, memories_fts; rank
// order), at most limit hits of each kind.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	q := ftsQuery(query)
	if q == "" {
		return []SearchHit{}, nil
	}
	if limit <= 0 {
		limit = 50
	}
	turns, err := queryAll(ctx, s.db, func(r rowScanner) (SearchHit, error) {
		h := SearchHit{Kind: "turn"}
		err := r.Scan(&h.Snippet, &h.CaseKey, &h.CaseID, &h.BlockIndex, &h.TurnID, &h.Speaker, &h.RunID, &h.Chain)
		return h, err
	}, `SELECT snippet(turns_fts, 0, '[', ']', '…', 12), t.case_pk, k.case_id, t.block_index, t.turn_id, t.speaker,
		COALESCE((SELECT r.run_id FROM chains c JOIN runs r ON r.run_pk = c.run_pk WHERE c.case_pk = t.case_pk ORDER BY c.chain_pk LIMIT 1), ''),
		COALESCE((SELECT c.chain_pk FROM chains c WHERE c.case_pk = t.case_pk ORDER BY c.chain_pk LIMIT 1), 0)
		FROM turns_fts JOIN turns t ON t.turn_pk = turns_fts.rowid JOIN cases k ON k.case_pk = t.case_pk
		WHERE turns_fts MATCH ? ORDER BY rank LIMIT ?`, q, limit)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	memories, err := queryAll(ctx, s.db, func(r rowScanner) (SearchHit, error) {
		h := SearchHit{Kind: "memory"}
		err := r.Scan(&h.Snippet, &h.CaseKey, &h.CaseID, &h.BlockIndex, &h.MemoryID, &h.RunID, &h.Chain)
		return h, err
	}, `SELECT snippet(memories_fts, 0, '[', ']', '…', 12), COALESCE(c.case_pk, 0), c.case_id, m.block_index, m.memory_id, r.run_id, c.chain_pk
		FROM memories_fts JOIN memories m ON m.mem_pk = memories_fts.rowid JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk
		WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?`, q, limit)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return append(turns, memories...), nil
}

// Disagreement is one field of one trial where our re-score differs from the stored row.
type Disagreement struct {
	Line     int             `json:"line"`
	TrialID  string          `json:"trial_id"`
	CaseID   string          `json:"case_id"`
	ProbeID  string          `json:"probe_id"`
	Field    string          `json:"field"`
	Stored   json.RawMessage `json:"stored"`
	Rescored json.RawMessage `json:"rescored"`
}

// Disagreements lists a run's re-score disagreements in file order (rescore_disagreements
// primary key).
func (s *Store) Disagreements(ctx context.Context, runID string) ([]Disagreement, error) {
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s.db, func(r rowScanner) (Disagreement, error) {
		var d Disagreement
		var stored, rescored string
		err := r.Scan(&d.Line, &d.TrialID, &d.CaseID, &d.ProbeID, &d.Field, &stored, &rescored)
		d.Stored, d.Rescored = json.RawMessage(stored), json.RawMessage(rescored)
		return d, err
	}, `SELECT t.line, t.trial_id, t.case_id, t.probe_id, d.field, d.stored, d.rescored FROM rescore_disagreements d JOIN trials t ON t.trial_pk = d.trial_pk
		WHERE d.run_pk = ? ORDER BY t.line, d.field`, pk)
}
