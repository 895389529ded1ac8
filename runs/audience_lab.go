package runs

// The audience lab's storage (migration 0161): one evaluation per run, its table rows and
// every assembled context, replaced whole in one transaction. Plain values only: replay/
// computes, replay/workbench converts (the rows and each context's detail are JSON as given),
// this file stores and reads back.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// AudienceLabInfo says what an evaluation was made with.
type AudienceLabInfo struct {
	PolicyVersion                string
	SidecarSource, SidecarSHA256 string
	// Executor is the executor as asked (builtin or a model entry), ExecutorTarget what it
	// resolved to.
	Executor, ExecutorTarget string
	Seed                     int64
	Chains                   int
}

// AudienceLabBatch is one audience-lab evaluation of a run to store; Rows and each context's
// Detail are stored as JSON as given.
type AudienceLabBatch struct {
	RunID string
	AudienceLabInfo
	Rows      any
	Contexts  []AudienceLabContext
	CreatedAt time.Time
}

// AudienceLabContext is one assembled context on the chain Chain.
type AudienceLabContext struct {
	Chain                                        ChainKey
	Arm, ConditionID, CaseID, ProbeID, RequestID string
	Detail                                       any
}

// StoredAudienceLab is a run's stored evaluation; Rows are raw JSON.
type StoredAudienceLab struct {
	RunID string
	AudienceLabInfo
	Rows      json.RawMessage
	CreatedAt string
}

// StoredAudienceContext is one stored context; Detail is raw JSON.
type StoredAudienceContext struct {
	Arm, ConditionID, CaseID, ProbeID, RequestID string
	Detail                                       json.RawMessage
}

// SaveAudienceLab stores a run's evaluation in one transaction, replacing the one before.
func (s *Store) SaveAudienceLab(ctx context.Context, b AudienceLabBatch) error {
	pk, err := s.runPK(ctx, b.RunID)
	if err != nil {
		return err
	}
	created := b.CreatedAt.UTC().Format(time.RFC3339Nano)
	_, err = s.inTx(ctx, func(w *txWriter) error {
		// The contexts go with their evaluation (ON DELETE CASCADE).
		if _, err := w.exec("", `DELETE FROM audience_labs WHERE run_pk = ?`, pk); err != nil {
			return err
		}
		if _, err := w.exec("audience_labs", `INSERT INTO audience_labs (run_pk, policy_version, sidecar_source, sidecar_sha256, executor_name, executor_target, seed, chains, rows_json, created_at)
			VALUES (?,?,?,?,?,?,?,?,?,?)`, pk, b.PolicyVersion, b.SidecarSource, b.SidecarSHA256, b.Executor, b.ExecutorTarget, b.Seed, b.Chains, jsonText(b.Rows), created); err != nil {
			return err
		}
		for i, c := range b.Contexts {
			if _, err := w.exec("audience_lab_contexts", `INSERT INTO audience_lab_contexts (run_pk, seq, chain_pk, arm, condition_id, case_id, probe_id, request_id, detail_json)
				VALUES (?,?,?,?,?,?,?,?,?)`, pk, i, c.Chain, c.Arm, c.ConditionID, c.CaseID, c.ProbeID, c.RequestID, jsonText(c.Detail)); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// StoredAudienceLab reads a run's stored evaluation; ok is false when there is none.
func (s *Store) StoredAudienceLab(ctx context.Context, runID string) (StoredAudienceLab, bool, error) {
	var out StoredAudienceLab
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return out, false, err
	}
	var rows string
	err = s.db.QueryRowContext(ctx, `SELECT r.run_id, a.policy_version, a.sidecar_source, a.sidecar_sha256, a.executor_name, a.executor_target, a.seed, a.chains, a.rows_json, a.created_at
		FROM audience_labs a JOIN runs r ON r.run_pk = a.run_pk WHERE a.run_pk = ?`, pk).Scan(&out.RunID, &out.PolicyVersion, &out.SidecarSource, &out.SidecarSHA256,
		&out.Executor, &out.ExecutorTarget, &out.Seed, &out.Chains, &rows, &out.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredAudienceLab{}, false, nil
	}
	if err != nil {
		return StoredAudienceLab{}, false, err
	}
	out.Rows = json.RawMessage(rows)
	return out, true, nil
}

// AudienceLabContexts are the stored contexts assembled on one chain, in evaluation order.
func (s *Store) AudienceLabContexts(ctx context.Context, key ChainKey) ([]StoredAudienceContext, error) {
	return queryAll(ctx, s.db, func(r rowScanner) (StoredAudienceContext, error) {
		var c StoredAudienceContext
		var detail string
		err := r.Scan(&c.Arm, &c.ConditionID, &c.CaseID, &c.ProbeID, &c.RequestID, &detail)
		c.Detail = json.RawMessage(detail)
		return c, err
	}, `SELECT arm, condition_id, case_id, probe_id, request_id, detail_json FROM audience_lab_contexts WHERE chain_pk = ? ORDER BY seq`, key)
}
