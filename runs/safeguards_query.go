package runs

// Reading the safeguard lab back (migration 0120): what the TUI's safeguards pane and run
// screen show, without recomputing anything.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// StoredSafeguard is one policy's stored evaluation of a chain.
type StoredSafeguard struct {
	ChainKey                  ChainKey        `json:"chain_key"`
	PolicyID                  string          `json:"policy_id"`
	PolicyVersion             string          `json:"policy_version"`
	Description               string          `json:"description"`
	BatchID                   string          `json:"batch_id"`
	Executor                  string          `json:"executor"`
	ExecutorProvenance        json.RawMessage `json:"executor_provenance"`
	Seed                      int64           `json:"seed"`
	TrialBlocks               string          `json:"trial_blocks"`
	NotApplicable             string          `json:"not_applicable"`
	FirstFalseAuthorityBefore *int            `json:"first_false_authority_before"`
	FirstFalseAuthorityAfter  *int            `json:"first_false_authority_after"`
	FormationRemoved          bool            `json:"formation_removed"`
	// Counts and FinalCounts are replay.PolicyCounts as JSON (all pairs; final-block pairs);
	// Removed is []replay.RemovedRecord as JSON (each removed record, its reasons and the
	// turns it cites: untrusted text).
	Counts       json.RawMessage         `json:"counts"`
	FinalCounts  json.RawMessage         `json:"final_counts"`
	FinalWritten SafeguardFormation      `json:"final_written_formation"`
	FinalGated   SafeguardFormation      `json:"final_gated_formation"`
	Removed      json.RawMessage         `json:"removed_records"`
	Outcome      engine.SafeguardOutcome `json:"outcome"`
	CreatedAt    string                  `json:"created_at"`
}

const safeguardColumns = `chain_pk, policy_id, policy_version, description, batch_id, executor_target, executor_json, seed, trial_blocks, COALESCE(not_applicable, ''),
	first_false_authority_before, first_false_authority_after, formation_removed, counts_json, final_counts_json, final_written_json, final_gated_json, removed_json, outcome_json, created_at`

func scanSafeguard(sc rowScanner) (StoredSafeguard, error) {
	var g StoredSafeguard
	var before, after sql.NullInt64
	var removedFlag int
	var prov, counts, final, fw, fg, removed, outcome string
	if err := sc.Scan(&g.ChainKey, &g.PolicyID, &g.PolicyVersion, &g.Description, &g.BatchID, &g.Executor, &prov, &g.Seed, &g.TrialBlocks, &g.NotApplicable,
		&before, &after, &removedFlag, &counts, &final, &fw, &fg, &removed, &outcome, &g.CreatedAt); err != nil {
		return g, err
	}
	g.FirstFalseAuthorityBefore, g.FirstFalseAuthorityAfter, g.FormationRemoved = intPtr(before), intPtr(after), removedFlag != 0
	g.ExecutorProvenance, g.Counts, g.FinalCounts, g.Removed = json.RawMessage(prov), json.RawMessage(counts), json.RawMessage(final), json.RawMessage(removed)
	if err := json.Unmarshal([]byte(fw), &g.FinalWritten); err != nil {
		return g, fmt.Errorf("safeguard %s: final_written_json: %w", g.PolicyID, err)
	}
	if err := json.Unmarshal([]byte(fg), &g.FinalGated); err != nil {
		return g, fmt.Errorf("safeguard %s: final_gated_json: %w", g.PolicyID, err)
	}
	if err := json.Unmarshal([]byte(outcome), &g.Outcome); err != nil {
		return g, fmt.Errorf("safeguard %s: outcome_json: %w", g.PolicyID, err)
	}
	return g, nil
}

// SafeguardsForChain lists the chain's stored policy evaluations, by policy id
// (safeguard_evaluations primary key).
func (s *Store) SafeguardsForChain(ctx context.Context, key ChainKey) ([]StoredSafeguard, error) {
	return queryAll(ctx, s.db, scanSafeguard, `SELECT `+safeguardColumns+` FROM safeguard_evaluations WHERE chain_pk = ? ORDER BY policy_id`, key)
}

// StoredSafeguardBlock is one memory version under a policy: the gated memory against the
// written one and the decision on every record.
type StoredSafeguardBlock struct {
	BlockIndex       int                `json:"block_index"`
	MemoryID         string             `json:"memory_id"`
	WrittenHash      string             `json:"written_content_hash"`
	WrittenFormation SafeguardFormation `json:"written_formation"`
	// NotApplicable is the policy's reason when it had nothing to say ("" otherwise); the
	// gated fields are then empty.
	NotApplicable string `json:"not_applicable"`
	// GatedPayload is the gated free text, or the typed payload's canonical JSON.
	GatedPayload   string                  `json:"gated_payload"`
	GatedHash      string                  `json:"gated_content_hash"`
	GatedFormation SafeguardFormation      `json:"gated_formation"`
	Records        []engine.RecordDecision `json:"records"`
}

// SafeguardBlocks lists a policy's blocks of a chain in block order (safeguard_blocks
// primary key).
func (s *Store) SafeguardBlocks(ctx context.Context, key ChainKey, policyID string) ([]StoredSafeguardBlock, error) {
	return queryAll(ctx, s.db, func(sc rowScanner) (StoredSafeguardBlock, error) {
		var b StoredSafeguardBlock
		var na, payload, hash sql.NullString
		var wf, gf, records string
		if err := sc.Scan(&b.BlockIndex, &b.MemoryID, &b.WrittenHash, &wf, &na, &payload, &hash, &gf, &records); err != nil {
			return b, err
		}
		b.NotApplicable, b.GatedPayload, b.GatedHash = na.String, payload.String, hash.String
		b.Records = []engine.RecordDecision{}
		for _, f := range []struct {
			text string
			into any
		}{{wf, &b.WrittenFormation}, {gf, &b.GatedFormation}, {records, &b.Records}} {
			if err := json.Unmarshal([]byte(f.text), f.into); err != nil {
				return b, fmt.Errorf("safeguard %s block %d: %w", policyID, b.BlockIndex, err)
			}
		}
		return b, nil
	}, `SELECT block_index, memory_id, written_content_hash, written_formation_json, not_applicable, gated_payload_text, gated_content_hash, gated_formation_json, records_json
		FROM safeguard_blocks WHERE chain_pk = ? AND policy_id = ? ORDER BY block_index`, key, policyID)
}

// StoredSafeguardPair is one (block, probe) under a policy: both arms as stored replays
// (Gated nil when the policy did not apply) and what the policy did.
type StoredSafeguardPair struct {
	BlockIndex        int                  `json:"block_index"`
	ProbeID           string               `json:"probe_id"`
	RequestAuthorized bool                 `json:"request_authorized"`
	Effect            string               `json:"effect"`
	Gate              *engine.GateDecision `json:"gate"`
	Written           Replay               `json:"written"`
	Gated             *Replay              `json:"gated"`
}

// SafeguardPairs lists a policy's pairs of a chain by block and probe (safeguard_pairs
// primary key, replays unique key).
func (s *Store) SafeguardPairs(ctx context.Context, key ChainKey, policyID string) ([]StoredSafeguardPair, error) {
	type link struct {
		p              StoredSafeguardPair
		written, gated string
	}
	links, err := queryAll(ctx, s.db, func(sc rowScanner) (link, error) {
		var l link
		var auth int
		var gated, gate sql.NullString
		if err := sc.Scan(&l.p.BlockIndex, &l.p.ProbeID, &auth, &l.p.Effect, &l.written, &gated, &gate); err != nil {
			return l, err
		}
		l.p.RequestAuthorized, l.gated = auth != 0, gated.String
		if gate.Valid {
			var g engine.GateDecision
			if err := json.Unmarshal([]byte(gate.String), &g); err != nil {
				return l, fmt.Errorf("safeguard %s pair %s: gate_json: %w", policyID, l.p.ProbeID, err)
			}
			l.p.Gate = &g
		}
		return l, nil
	}, `SELECT block_index, probe_id, request_authorized, effect, written_replay_id, gated_replay_id, gate_json FROM safeguard_pairs
		WHERE chain_pk = ? AND policy_id = ? ORDER BY block_index, probe_id`, key, policyID)
	if err != nil {
		return nil, err
	}
	out := make([]StoredSafeguardPair, 0, len(links))
	for _, l := range links {
		ids := []string{l.written}
		if l.gated != "" {
			ids = append(ids, l.gated)
		}
		rs, err := s.ReplaysByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		l.p.Written = rs[0]
		if len(rs) > 1 {
			l.p.Gated = &rs[1]
		}
		out = append(out, l.p)
	}
	return out, nil
}

// StoredSafeguardChain is a chain's stored lab outcomes and un-gated final view: the run
// table's input for that chain.
type StoredSafeguardChain struct {
	ChainKey       ChainKey
	CaseID         string
	Condition      string
	WriterTarget   string
	WriterRunID    int64
	Outcomes       []engine.SafeguardOutcome
	FinalFormation SafeguardFormation
	FinalArms      map[string]engine.Outcome
}

// SafeguardRun lists the stored lab results of a run's chains (those evaluated at least
// once), in case order: what the run screen's table is built from.
func (s *Store) SafeguardRun(ctx context.Context, runID string) ([]StoredSafeguardChain, error) {
	chains, err := s.SafeguardChains(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := []StoredSafeguardChain{}
	for _, c := range chains {
		var formation, arms string
		err := s.db.QueryRowContext(ctx, `SELECT final_formation_json, final_arms_json FROM safeguard_chains WHERE chain_pk = ?`, c.Key).Scan(&formation, &arms)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := StoredSafeguardChain{ChainKey: c.Key, CaseID: c.CaseID, Condition: c.ConditionID, WriterTarget: c.Writer, WriterRunID: c.WriterRunID, FinalArms: map[string]engine.Outcome{}}
		if err := json.Unmarshal([]byte(formation), &sc.FinalFormation); err != nil {
			return nil, fmt.Errorf("safeguards of chain %d: final_formation_json: %w", c.Key, err)
		}
		if err := json.Unmarshal([]byte(arms), &sc.FinalArms); err != nil {
			return nil, fmt.Errorf("safeguards of chain %d: final_arms_json: %w", c.Key, err)
		}
		evals, err := s.SafeguardsForChain(ctx, c.Key)
		if err != nil {
			return nil, err
		}
		for _, e := range evals {
			sc.Outcomes = append(sc.Outcomes, e.Outcome)
		}
		out = append(out, sc)
	}
	return out, nil
}
