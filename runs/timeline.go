package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// LedgerEvent is one ledger event as the timeline shows it.
type LedgerEvent struct {
	EventID            string          `json:"event_id"`
	Type               string          `json:"event_type"`
	Issuer             string          `json:"issuer"`
	EffectiveAt        string          `json:"effective_at"`
	AuthorizationID    string          `json:"authorization_id"`
	NewAuthorizationID string          `json:"new_authorization_id"`
	SourceTurnIDs      []string        `json:"source_turn_ids"`
	Detail             json.RawMessage `json:"detail"`
}

// Fidelity badges of a block.
const (
	BadgeExact      = "exact"
	BadgeOvergrant  = "overgrant"
	BadgeUndergrant = "undergrant"
	BadgeBoth       = "overgrant+undergrant"
	BadgeInexact    = "inexact"
	BadgeUnscored   = "unscored"
	BadgeNoMemory   = "no_memory"
)

// BlockStep is one block of a chain's timeline.
type BlockStep struct {
	BlockIndex int    `json:"block_index"`
	Title      string `json:"title"`
	EndedAt    string `json:"ended_at"`
	// Events are the ledger events of this block (empty when the corpus is missing).
	Events []LedgerEvent `json:"events"`
	// MemoryID is the chain's current memory after this block's update ("" for none yet).
	MemoryID string `json:"memory_id"`
	// UpdateStatus is accepted / no_change / retained_after_failed_update ("" when no update).
	UpdateStatus        string   `json:"update_status"`
	Badge               string   `json:"badge"`
	Exact               *bool    `json:"exact"`
	ExactFields         int      `json:"exact_fields"`
	OvergrantFields     int      `json:"overgrant_fields"`
	UndergrantFields    int      `json:"undergrant_fields"`
	FormsFalseAuthority *bool    `json:"forms_false_authority"`
	FormedProbeIDs      []string `json:"formed_probe_ids"`
	FirstFalseAuthority bool     `json:"first_false_authority"`
	ScoredFrom          string   `json:"scored_from"`
	UnscoredReason      string   `json:"unscored_reason"`
	Faults              []Fault  `json:"faults"`
}

// BlockBadge is the timeline's one-word verdict on a block's memory (every backend labels alike).
func BlockBadge(exact *bool, over, under int, unscored string, memoryID string) string {
	switch {
	case memoryID == "":
		return BadgeNoMemory
	case exact == nil || unscored != "":
		return BadgeUnscored
	case *exact:
		return BadgeExact
	case over > 0 && under > 0:
		return BadgeBoth
	case over > 0:
		return BadgeOvergrant
	case under > 0:
		return BadgeUndergrant
	}
	return BadgeInexact
}

// ChainBlocks is a chain's timeline, one step per block (chain_blocks primary key; blocks and
// ledger_events_by_block by case; faults_by_case).
func (s *Store) ChainBlocks(ctx context.Context, key ChainKey) ([]BlockStep, error) {
	h, err := s.Chain(ctx, key)
	if err != nil {
		return nil, err
	}
	out, err := queryAll(ctx, s.db, scanBlockStep, `SELECT cb.block_index, COALESCE(b.title, ''), COALESCE(b.ended_at, ''), COALESCE(cb.memory_id, ''), COALESCE(cb.update_status, ''),
		cb.exact, cb.exact_fields, cb.overgrant_fields, cb.undergrant_fields, cb.forms_false_authority, cb.formed_probe_ids_json, cb.scored_from, COALESCE(cb.unscored_reason, ''), cb.first_false_authority
		FROM chain_blocks cb LEFT JOIN blocks b ON b.case_pk = ? AND b.block_index = cb.block_index WHERE cb.chain_pk = ? ORDER BY cb.block_index`, int64(h.CaseKey), key)
	if err != nil {
		return nil, err
	}
	if h.CaseKey != 0 {
		err := eachRow(ctx, s.db, func(r rowScanner) error {
			var k int
			var e LedgerEvent
			var ids, detail string
			if err := r.Scan(&k, &e.EventID, &e.Type, &e.Issuer, &e.EffectiveAt, &e.AuthorizationID, &e.NewAuthorizationID, &ids, &detail); err != nil {
				return err
			}
			e.SourceTurnIDs = []string{}
			_ = json.Unmarshal([]byte(ids), &e.SourceTurnIDs)
			e.Detail = json.RawMessage(detail)
			if k >= 0 && k < len(out) && out[k].BlockIndex == k {
				out[k].Events = append(out[k].Events, e)
			}
			return nil
		}, `SELECT block_index, event_id, event_type, issuer, effective_at, authorization_id, new_authorization_id, source_turn_ids_json, detail_json
			FROM ledger_events WHERE case_pk = ? ORDER BY block_index, seq`, int64(h.CaseKey))
		if err != nil {
			return nil, err
		}
	}
	for _, f := range h.Faults {
		if f.BlockIndex >= 0 && f.BlockIndex < len(out) {
			out[f.BlockIndex].Faults = append(out[f.BlockIndex].Faults, f)
		}
	}
	return out, nil
}

func scanBlockStep(sc rowScanner) (BlockStep, error) {
	var b BlockStep
	var exact, forms sql.NullInt64
	var formed string
	var ffa int
	if err := sc.Scan(&b.BlockIndex, &b.Title, &b.EndedAt, &b.MemoryID, &b.UpdateStatus, &exact, &b.ExactFields, &b.OvergrantFields, &b.UndergrantFields,
		&forms, &formed, &b.ScoredFrom, &b.UnscoredReason, &ffa); err != nil {
		return b, err
	}
	b.Exact, b.FormsFalseAuthority, b.FirstFalseAuthority = boolPtr(exact), boolPtr(forms), ffa != 0
	b.FormedProbeIDs = []string{}
	_ = json.Unmarshal([]byte(formed), &b.FormedProbeIDs)
	b.Badge = BlockBadge(b.Exact, b.OvergrantFields, b.UndergrantFields, b.UnscoredReason, b.MemoryID)
	b.Events, b.Faults = []LedgerEvent{}, []Fault{}
	return b, nil
}

// Turn is one turn of a block.
type Turn struct {
	Seq           int    `json:"seq"`
	TurnID        string `json:"turn_id"`
	ActorID       string `json:"actor_id"`
	Speaker       string `json:"speaker"`
	OccurredAt    string `json:"occurred_at"`
	Content       string `json:"content"`
	CitedByLedger bool   `json:"cited_by_ledger"`
	// CitedByMemory: the memory given to BlockTurns cites this turn in a source_turn_ids list.
	CitedByMemory bool `json:"cited_by_memory"`
}

// MemoryRef names a memory of a run.
type MemoryRef struct {
	RunID    string
	MemoryID string
}

// BlockTurns lists the turns of one block of a case (turns_by_block); with cite set, turns
// that memory's records cite are flagged (memories unique key).
func (s *Store) BlockTurns(ctx context.Context, ck CaseKey, block int, cite *MemoryRef) ([]Turn, error) {
	cited := map[string]bool{}
	if cite != nil && cite.MemoryID != "" {
		pk, err := s.runPK(ctx, cite.RunID)
		if err != nil {
			return nil, err
		}
		var payload string
		err = s.db.QueryRowContext(ctx, `SELECT payload_json FROM memories WHERE run_pk = ? AND memory_id = ?`, pk, cite.MemoryID).Scan(&payload)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		var typed struct {
			Authorizations []struct {
				SourceTurnIDs []string `json:"source_turn_ids"`
			} `json:"authorizations"`
		}
		if json.Unmarshal([]byte(payload), &typed) == nil {
			for _, a := range typed.Authorizations {
				for _, id := range a.SourceTurnIDs {
					cited[id] = true
				}
			}
		}
	}
	return queryAll(ctx, s.db, func(r rowScanner) (Turn, error) {
		var t Turn
		var byLedger int
		err := r.Scan(&t.Seq, &t.TurnID, &t.ActorID, &t.Speaker, &t.OccurredAt, &t.Content, &byLedger)
		t.CitedByLedger, t.CitedByMemory = byLedger != 0, cited[t.TurnID]
		return t, err
	}, `SELECT seq, turn_id, actor_id, speaker, occurred_at, content, cited_by_ledger FROM turns WHERE case_pk = ? AND block_index = ? ORDER BY seq`, int64(ck), block)
}

// FidelityRow is one field comparison of a memory against the ledger at a block.
type FidelityRow struct {
	AuthorizationID string          `json:"authorization_id"`
	Field           string          `json:"field"`
	Canonical       json.RawMessage `json:"canonical_value"`
	Remembered      json.RawMessage `json:"remembered_value"`
	Errors          []string        `json:"errors"`
	Exact           bool            `json:"exact"`
	Overgrant       bool            `json:"overgrant"`
	Undergrant      bool            `json:"undergrant"`
}

// Attempt is one writer attempt of an update.
type Attempt struct {
	AttemptID    string `json:"attempt_id"`
	AttemptIndex int    `json:"attempt_index"`
	Status       string `json:"status"`
	Detail       string `json:"detail"`
}

// MemoryVersion is the memory screen: the chain's current memory at a block, the version
// before it, and how it compares with the ledger at that block.
type MemoryVersion struct {
	BlockIndex   int    `json:"block_index"`
	MemoryID     string `json:"memory_id"`
	OwnBlock     int    `json:"own_block"`
	Architecture string `json:"architecture"`
	Origin       string `json:"origin"`
	ContentHash  string `json:"content_hash"`
	// Payload is the free text, or the typed payload's canonical JSON.
	Payload string `json:"payload"`
	// ParentID/ParentPayload: the artifact's parent_memory_id; PreviousID/PreviousPayload: the
	// chain's current memory at the closest earlier block holding a different one.
	ParentID        string `json:"parent_id"`
	ParentPayload   string `json:"parent_payload"`
	PreviousID      string `json:"previous_id"`
	PreviousPayload string `json:"previous_payload"`
	// LedgerState is the ledger's typed state at the block (empty when the corpus is missing).
	LedgerState         string         `json:"ledger_state"`
	Exact               *bool          `json:"exact"`
	Errors              map[string]int `json:"errors"`
	ScoredFields        int            `json:"scored_fields"`
	FormsFalseAuthority *bool          `json:"forms_false_authority"`
	FormedProbeIDs      []string       `json:"formed_probe_ids"`
	ScoredFrom          string         `json:"scored_from"`
	UnscoredReason      string         `json:"unscored_reason"`
	Fidelity            []FidelityRow  `json:"fidelity"`
	Attempts            []Attempt      `json:"attempts"`
	UpdateStatus        string         `json:"update_status"`
}

// MemoryAt returns the chain's memory at a block (chain_blocks primary key, memories unique
// key, memory_scores and fidelity_rows primary keys, ledger_snapshots, attempts_by_chain). A
// block before the chain's first memory returns ErrNotFound.
func (s *Store) MemoryAt(ctx context.Context, key ChainKey, block int) (MemoryVersion, error) {
	var v MemoryVersion
	v.BlockIndex = block
	var runPK int64
	var casePK sql.NullInt64
	var memID, upd sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT c.run_pk, c.case_pk, cb.memory_id, cb.update_status FROM chain_blocks cb JOIN chains c ON c.chain_pk = cb.chain_pk WHERE cb.chain_pk = ? AND cb.block_index = ?`,
		key, block).Scan(&runPK, &casePK, &memID, &upd)
	if err == sql.ErrNoRows || (err == nil && !memID.Valid) {
		return v, fmt.Errorf("chain %d has no memory at block %d: %w", key, block, ErrNotFound)
	}
	if err != nil {
		return v, err
	}
	v.MemoryID, v.UpdateStatus = memID.String, upd.String
	var parent sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT block_index, architecture, origin, content_hash, `+memoryText+`, parent_memory_id FROM memories WHERE run_pk = ? AND memory_id = ?`, runPK, v.MemoryID).
		Scan(&v.OwnBlock, &v.Architecture, &v.Origin, &v.ContentHash, &v.Payload, &parent); err != nil {
		return v, err
	}
	if parent.Valid {
		v.ParentID = parent.String
		_ = s.db.QueryRowContext(ctx, `SELECT `+memoryText+` FROM memories WHERE run_pk = ? AND memory_id = ?`, runPK, parent.String).Scan(&v.ParentPayload)
	}
	var prev sql.NullString
	_ = s.db.QueryRowContext(ctx, `SELECT memory_id FROM chain_blocks WHERE chain_pk = ? AND block_index < ? AND memory_id IS NOT NULL AND memory_id <> ? ORDER BY block_index DESC LIMIT 1`,
		key, block, v.MemoryID).Scan(&prev)
	if prev.Valid {
		v.PreviousID = prev.String
		_ = s.db.QueryRowContext(ctx, `SELECT `+memoryText+` FROM memories WHERE run_pk = ? AND memory_id = ?`, runPK, prev.String).Scan(&v.PreviousPayload)
	}
	if casePK.Valid {
		_ = s.db.QueryRowContext(ctx, `SELECT state_json FROM ledger_snapshots WHERE case_pk = ? AND block_index = ?`, casePK.Int64, block).Scan(&v.LedgerState)
	}
	var exact, forms sql.NullInt64
	var errs, formed string
	var unscored sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT exact, errors_json, scored_fields, forms_false_authority, formed_probe_ids_json, scored_from, unscored_reason FROM memory_scores WHERE run_pk = ? AND memory_id = ? AND block_index = ?`,
		runPK, v.MemoryID, block).Scan(&exact, &errs, &v.ScoredFields, &forms, &formed, &v.ScoredFrom, &unscored); err != nil {
		return v, err
	}
	v.Exact, v.FormsFalseAuthority, v.UnscoredReason = boolPtr(exact), boolPtr(forms), unscored.String
	v.Errors, v.FormedProbeIDs = map[string]int{}, []string{}
	_ = json.Unmarshal([]byte(errs), &v.Errors)
	_ = json.Unmarshal([]byte(formed), &v.FormedProbeIDs)
	if v.Fidelity, err = queryAll(ctx, s.db, scanFidelityRow, `SELECT authorization_id, field, canonical_json, remembered_json, errors_json, exact, overgrant, undergrant FROM fidelity_rows WHERE run_pk = ? AND memory_id = ? AND block_index = ? ORDER BY seq`,
		runPK, v.MemoryID, block); err != nil {
		return v, err
	}
	v.Attempts, err = queryAll(ctx, s.db, func(r rowScanner) (Attempt, error) {
		var a Attempt
		err := r.Scan(&a.AttemptID, &a.AttemptIndex, &a.Status, &a.Detail)
		return a, err
	}, `SELECT attempt_id, attempt_index, status, COALESCE(detail, '') FROM attempts WHERE chain_pk = ? AND block_index = ? ORDER BY attempt_index`, key, block)
	return v, err
}

func scanFidelityRow(sc rowScanner) (FidelityRow, error) {
	var f FidelityRow
	var canon, remembered, errsJSON string
	var ex, over, under int
	err := sc.Scan(&f.AuthorizationID, &f.Field, &canon, &remembered, &errsJSON, &ex, &over, &under)
	f.Canonical, f.Remembered = json.RawMessage(canon), json.RawMessage(remembered)
	f.Errors = []string{}
	_ = json.Unmarshal([]byte(errsJSON), &f.Errors)
	f.Exact, f.Overgrant, f.Undergrant = ex != 0, over != 0, under != 0
	return f, err
}
