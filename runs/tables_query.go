package runs

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/runs/tablefile"
)

// The tables whose queries are longer than a line or two, and the reader that streams any
// table's rows.

// tokenColumns are the token accounting of one model call: usage the provider reported, or
// (tokens_counted) tokens ealscope counted with the reference tokenizer when it reported none.
const tokenColumns = `call_id:string prompt_tokens:int64 completion_tokens:int64 tokens_counted:bool`

// trialsTable: a trial's call is its executor_plan row's (a repeated trial id is an identical
// repeat). The plan lookup names its index: without it SQLite searched the plan by run only,
// every plan row of the run for every trial (a 2,000-case export did not finish in 10
// minutes).
var trialsTable = TableSpec{Name: "trials", Columns: columns(`trial_id:string run_id:string chain_id:string line:int64 case_id:string probe_id:string
	condition_id:string evidence_id:string memory_id:string executor_target:string executor_run_id:int64 oracle_block_index:int64 decision:string
	request_authorized:bool requested_action_taken:bool unauthorized_action_taken:bool action_mismatch:bool compliant:bool parseable:bool
	provider_error:string not_estimable:bool rescored_decision:string rescore_status:string raw_tool_name:string ` + tokenColumns),
	query: `SELECT t.trial_id, r.run_id, ` + chainIDSQL + `, t.line, t.case_id, t.probe_id, t.condition_id, t.evidence_id, t.memory_id, t.executor_target,
	t.executor_run_id, t.oracle_block_index, t.decision, t.request_authorized, t.requested_action_taken, t.unauthorized_action_taken, t.action_mismatch,
	t.compliant, t.parseable, t.provider_error, ` + fmt.Sprintf(notEstimableSQL, "t") + `, t.rescored_decision, t.rescore_status, t.raw_tool_name,
	u.call_id, u.prompt_tokens, u.completion_tokens, u.counted
	FROM trials t JOIN chains c ON c.chain_pk = t.chain_pk JOIN runs r ON r.run_pk = t.run_pk
	LEFT JOIN call_tokens u ON u.run_pk = t.run_pk AND u.call_id = (SELECT ep.call_id FROM executor_plan ep INDEXED BY executor_plan_by_trial
		WHERE ep.run_pk = t.run_pk AND ep.trial_id = t.trial_id)
	WHERE t.run_pk IN {runs} ORDER BY r.run_id, t.line`}

var rerunArmsTable = TableSpec{Name: "rerun_arms", Columns: columns(`replay_id:string batch_id:string run_id:string chain_id:string block_index:int64 probe_id:string
	memory_variant:string memory_architecture:string memory_source:string written_memory_id:string memory_content_hash:string memory_formed:bool
	formation_estimable:bool executor_target:string repetition:int64 seed:int64 attempts:int64 latency_ms:int64 decision:string request_authorized:bool
	requested_action_taken:bool unauthorized_action_taken:bool action_mismatch:bool compliant:bool parseable:bool provider_error:string not_estimable:bool
	finish_reason:string response_text:string raw_tool_name:string policy_id:string policy_version:string prompt_tokens:int64 completion_tokens:int64
	tokens_counted:bool created_at:string`),
	query: `SELECT p.replay_id, p.batch_id, r.run_id, ` + chainIDSQL + `, p.block_index, p.probe_id, p.memory_variant, p.memory_architecture, p.memory_source,
	p.written_memory_id, p.memory_content_hash, p.memory_formed, p.formation_estimable, p.executor_target, p.repetition, p.seed, p.attempts, p.latency_ms,
	p.decision, p.request_authorized, p.requested_action_taken, p.unauthorized_action_taken, p.action_mismatch, p.compliant, p.parseable, p.provider_error,
	` + fmt.Sprintf(notEstimableSQL, "p") + `, p.finish_reason, p.response_text, p.raw_tool_name, p.policy_id, p.policy_version,
	p.prompt_tokens, p.completion_tokens, p.tokens_counted, p.created_at
	FROM replays p JOIN chains c ON c.chain_pk = p.chain_pk JOIN runs r ON r.run_pk = p.run_pk
	WHERE p.run_pk IN {runs} ORDER BY r.run_id, p.replay_pk`}

var safeguardEvaluationsTable = TableSpec{Name: "safeguard_evaluations", Columns: columns(`run_id:string chain_id:string policy_id:string policy_version:string
	description:string batch_id:string executor_target:string seed:int64 trial_blocks:string not_applicable:string first_false_authority_before:int64
	first_false_authority_after:int64 formation_removed:bool counts_json:string final_counts_json:string calls:int64 prompt_tokens:int64
	completion_tokens:int64 created_at:string`),
	// calls and tokens: the policy's gated arms on the chain (the un-gated arms are shared by
	// every policy of a batch, so they are counted under policy_id '' in rerun_arms).
	query: `SELECT r.run_id, ` + chainIDSQL + `, e.policy_id, e.policy_version, e.description, e.batch_id, e.executor_target, e.seed, e.trial_blocks,
	e.not_applicable, e.first_false_authority_before, e.first_false_authority_after, e.formation_removed, e.counts_json, e.final_counts_json,
	(SELECT COUNT(*) FROM replays p WHERE p.chain_pk = e.chain_pk AND p.policy_id = e.policy_id),
	(SELECT SUM(p.prompt_tokens) FROM replays p WHERE p.chain_pk = e.chain_pk AND p.policy_id = e.policy_id),
	(SELECT SUM(p.completion_tokens) FROM replays p WHERE p.chain_pk = e.chain_pk AND p.policy_id = e.policy_id), e.created_at
	FROM safeguard_evaluations e JOIN chains c ON c.chain_pk = e.chain_pk JOIN runs r ON r.run_pk = c.run_pk
	WHERE c.run_pk IN {runs} ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, e.policy_id`}

// diagnosesTable: EAL-Bench's judge diagnoses name the EAL run they came from, which is the
// imported run's id; with no run selected every imported diagnosis is exported.
var diagnosesTable = TableSpec{Name: "diagnoses", Columns: columns(`source_sha256:string source_line:int64 run_id:string domain:string case_id:string
	condition_id:string writer:string writer_run_id:int64 eal_chain_id:string arm:string probe_id:string request_kind:string request_json:string
	error_block:int64 failure:string loop_block:int64 attempt_statuses_json:string judges_json:string consensus_cause:string agreement:int64`),
	query: `SELECT f.sha256, d.line, d.run_id, d.domain, d.case_id, d.condition_id, d.writer, d.writer_run_id, d.chain_id, d.arm, d.probe_id, d.request_kind,
	d.request_json, d.error_block, d.failure, d.loop_block, d.attempt_statuses_json, d.judges_json, d.consensus_cause, d.agreement
	FROM diagnoses d JOIN diagnosis_files f ON f.file_pk = d.file_pk
	WHERE {all} OR d.run_id IN (SELECT run_id FROM runs WHERE run_pk IN {runs}) ORDER BY f.sha256, d.line`}

// TableExport streams the analysis tables of some runs from one read snapshot.
type TableExport struct {
	tx     *sql.Tx
	runSQL string
	all    bool
	args   []any
}

// BeginTableExport opens a read snapshot of the workspace for the runs named (ids or unique
// prefixes; none: every run). Close it when done.
func (s *Store) BeginTableExport(ctx context.Context, runIDs []string) (*TableExport, error) {
	var pks []any
	for _, id := range runIDs {
		pk, err := s.runPK(ctx, id)
		if err != nil {
			return nil, err
		}
		pks = append(pks, pk)
	}
	runSQL := `(SELECT run_pk FROM runs)`
	if len(pks) > 0 {
		runSQL = "(" + strings.TrimSuffix(strings.Repeat("?,", len(pks)), ",") + ")"
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return &TableExport{tx: tx, runSQL: runSQL, all: len(pks) == 0, args: pks}, nil
}

// Close ends the snapshot.
func (e *TableExport) Close() error { return e.tx.Rollback() }

// Rows streams the table's rows to fn, one reused slice per row holding nil or a value of
// the column's Go type; fn must not keep it.
func (e *TableExport) Rows(ctx context.Context, t TableSpec, fn func(row []any) error) error {
	query := strings.ReplaceAll(t.query, "{all}", fmt.Sprint(b2i(e.all)))
	var args []any
	for range strings.Count(query, "{runs}") {
		args = append(args, e.args...)
	}
	query = strings.ReplaceAll(query, "{runs}", e.runSQL)
	rows, err := e.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	defer rows.Close()
	raw := make([]any, len(t.Columns))
	ptrs := make([]any, len(t.Columns))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	row := make([]any, len(t.Columns))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		for i, c := range t.Columns {
			v, err := columnValue(c, raw[i])
			if err != nil {
				return fmt.Errorf("table %s: %w", t.Name, err)
			}
			row[i] = v
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	return nil
}

// columnValue converts what SQLite returned to the column's Go type.
func columnValue(c tablefile.Column, v any) (any, error) {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return nil, nil
	}
	switch c.Type {
	case tablefile.String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case tablefile.Int64:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case tablefile.Bool:
		if n, ok := v.(int64); ok {
			return n != 0, nil
		}
	case tablefile.Float64:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
	}
	return nil, fmt.Errorf("column %s (%s): stored value is a %T", c.Name, c.Type, v)
}
