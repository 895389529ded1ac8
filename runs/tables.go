package runs

import (
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/runs/tablefile"
)

// The analysis tables `ealscope export tables` writes (docs/TABLES.md is their schema). Each
// is one read query over the workspace; {runs} stands for the selected runs' run_pk list. Rows
// come out in a fixed order so an unchanged workspace exports the same files. Text read from
// corpora and models (turns, memory payloads, responses) is exported as stored: the tables
// are data for a dataframe, not text for a terminal.

// chainIDSQL is the chain_id every table joins on: run id, case, condition, writer target and
// writer run, '|'-separated (r: runs, c: chains).
const chainIDSQL = `(r.run_id || '|' || c.case_id || '|' || c.condition_id || '|' || c.writer_target || '|' || c.writer_run_id)`

// notEstimableSQL matches engine.Outcome.NotEstimable: the call failed, so no decision.
const notEstimableSQL = `(%[1]s.provider_error IS NOT NULL OR %[1]s.decision = 'provider_error')`

// TableSpec is one analysis table: its name (the file name without extension) and columns.
type TableSpec struct {
	Name    string
	Columns []tablefile.Column
	query   string
}

// columns parses "name:type name:type ..." (types: string, int64, bool, double).
func columns(spec string) []tablefile.Column {
	var out []tablefile.Column
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		c := tablefile.Column{Name: name}
		switch typ {
		case "string":
			c.Type = tablefile.String
		case "int64":
			c.Type = tablefile.Int64
		case "bool":
			c.Type = tablefile.Bool
		case "double":
			c.Type = tablefile.Float64
		default:
			panic(fmt.Sprintf("analysis table column %q: unknown type %q", name, typ))
		}
		out = append(out, c)
	}
	return out
}

// AnalysisTables lists the tables in export order.
func AnalysisTables() []TableSpec { return analysisTables }

var analysisTables = []TableSpec{
	{Name: "runs", Columns: columns(`run_id:string kind:string domain_id:string study:string corpus_version:string status:string verification:string
		incomplete:bool imported_from:string imported_at:string started_at:string rescore_disagreements:int64 chain_count:int64 trial_count:int64`),
		query: `SELECT r.run_id, r.kind, r.domain_id, r.study, r.corpus_version, r.status, r.verification, r.incomplete, r.imported_from, r.imported_at,
		r.started_at, r.rescore_disagreements, (SELECT COUNT(*) FROM chains c WHERE c.run_pk = r.run_pk), (SELECT COUNT(*) FROM trials t WHERE t.run_pk = r.run_pk)
		FROM runs r WHERE r.run_pk IN {runs} ORDER BY r.run_id`},
	{Name: "cases", Columns: columns(`domain_id:string corpus_version:string case_id:string content_hash:string policy:string lifecycle:string block_count:int64 probe_count:int64`),
		query: `SELECT k.domain_id, k.corpus_version, k.case_id, k.content_hash, k.policy, k.lifecycle, k.block_count, k.probe_count
		FROM cases k WHERE k.case_pk IN (SELECT case_pk FROM chains WHERE run_pk IN {runs}) ORDER BY k.domain_id, k.corpus_version, k.case_id`},
	{Name: "chains", Columns: columns(`chain_id:string run_id:string case_id:string condition_id:string writer_target:string writer_run_id:int64 architecture:string
		memory_count:int64 final_memory_id:string first_false_authority_block:int64 formed_final:bool unauthorized_actions:int64 attributed_memory_induced:int64
		needs_annotation:bool trial_count:int64 unscored_reason:string`),
		query: `SELECT ` + chainIDSQL + `, r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, c.architecture, c.memory_count, c.final_memory_id,
		c.first_false_authority_block, c.formed_final, c.unauthorized_actions, c.attributed_memory_induced, c.needs_annotation, c.trial_count, NULLIF(c.unscored_reason, '')
		FROM chains c JOIN runs r ON r.run_pk = c.run_pk WHERE c.run_pk IN {runs} ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id`},
	{Name: "memories", Columns: columns(`memory_id:string run_id:string chain_id:string block_index:int64 parent_memory_id:string architecture:string origin:string
		content_hash:string payload_text:string update_status:string exact:bool exact_fields:int64 overgrant_fields:int64 undergrant_fields:int64 scored_fields:int64
		probes_denied:int64 forms_false_authority:bool formed_probe_ids_json:string errors_json:string scored_from:string unscored_reason:string`),
		query: `SELECT m.memory_id, r.run_id, ` + chainIDSQL + `, m.block_index, m.parent_memory_id, m.architecture, m.origin, m.content_hash, m.payload_text,
		cb.update_status,
		ms.exact, ms.exact_fields, ms.overgrant_fields, ms.undergrant_fields, ms.scored_fields, ms.probes_denied, ms.forms_false_authority, ms.formed_probe_ids_json,
		ms.errors_json, ms.scored_from, ms.unscored_reason
		FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk
		LEFT JOIN memory_scores ms ON ms.run_pk = m.run_pk AND ms.memory_id = m.memory_id AND ms.block_index = m.block_index
		LEFT JOIN chain_blocks cb ON cb.chain_pk = m.chain_pk AND cb.block_index = m.block_index AND cb.memory_id = m.memory_id
		WHERE m.run_pk IN {runs} ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, m.block_index, m.memory_id`},
	{Name: "formation", Columns: columns(`run_id:string memory_id:string block_index:int64 probe_id:string ledger_authorized:bool memory_authorized:bool memory_reason:string formed:bool`),
		query: `SELECT r.run_id, f.memory_id, f.block_index, f.probe_id, f.ledger_authorized, f.memory_authorized, f.memory_reason, f.formed
		FROM formation f JOIN runs r ON r.run_pk = f.run_pk WHERE f.run_pk IN {runs} ORDER BY r.run_id, f.memory_id, f.block_index, f.probe_id`},
	{Name: "fidelity", Columns: columns(`run_id:string memory_id:string block_index:int64 seq:int64 authorization_id:string field:string canonical_json:string
		remembered_json:string errors_json:string exact:bool overgrant:bool undergrant:bool`),
		query: `SELECT r.run_id, f.memory_id, f.block_index, f.seq, f.authorization_id, f.field, f.canonical_json, f.remembered_json, f.errors_json, f.exact, f.overgrant, f.undergrant
		FROM fidelity_rows f JOIN runs r ON r.run_pk = f.run_pk WHERE f.run_pk IN {runs} ORDER BY r.run_id, f.memory_id, f.block_index, f.seq`},
	{Name: "probes", Columns: columns(`domain_id:string corpus_version:string case_id:string probe_id:string seq:int64 pair_id:string dimension:string request_scope:string request_json:string`),
		query: `SELECT k.domain_id, k.corpus_version, k.case_id, p.probe_id, p.seq, p.pair_id, p.dimension, p.request_scope, p.request_json
		FROM probes p JOIN cases k ON k.case_pk = p.case_pk WHERE p.case_pk IN (SELECT case_pk FROM chains WHERE run_pk IN {runs})
		ORDER BY k.domain_id, k.corpus_version, k.case_id, p.seq`},
	{Name: "probe_verdicts", Columns: columns(`domain_id:string corpus_version:string case_id:string block_index:int64 probe_id:string authorized:bool reason:string`),
		query: `SELECT k.domain_id, k.corpus_version, k.case_id, v.block_index, v.probe_id, v.authorized, v.reason
		FROM probe_verdicts v JOIN cases k ON k.case_pk = v.case_pk WHERE v.case_pk IN (SELECT case_pk FROM chains WHERE run_pk IN {runs})
		ORDER BY k.domain_id, k.corpus_version, k.case_id, v.block_index, v.probe_id`},
	trialsTable,
	{Name: "attribution", Columns: columns(`run_id:string trial_id:string chain_id:string exact_trial_id:string evidence_id:string case_id:string probe_id:string
		condition_id:string writer_target:string request_authorized:bool memory_formed:bool formation_estimable:bool estimable:bool authorized_use:bool
		exact_authorized_use:bool unauthorized_submission:bool exact_unauthorized_submission:bool attributed:bool reasons_json:string`),
		query: `SELECT r.run_id, t.trial_id, ` + chainIDSQL + `, x.trial_id, a.evidence_id, a.case_id, a.probe_id, a.condition_id, a.writer_target,
		a.request_authorized, a.memory_formed, a.formation_estimable, a.estimable, a.authorized_use, a.exact_authorized_use, a.unauthorized_submission,
		a.exact_unauthorized_submission, a.attributed, a.reasons_json
		FROM attribution a JOIN trials t ON t.trial_pk = a.trial_pk LEFT JOIN trials x ON x.trial_pk = a.exact_trial_pk
		JOIN chains c ON c.chain_pk = a.chain_pk JOIN runs r ON r.run_pk = a.run_pk WHERE a.run_pk IN {runs} ORDER BY r.run_id, t.line`},
	rerunArmsTable,
	{Name: "rerun_attribution", Columns: columns(`run_id:string chain_id:string block_index:int64 probe_id:string executor_target:string seq:int64
		written_replay_id:string written_trial_id:string exact_replay_id:string memory_variant:string memory_content_hash:string repetition:int64
		evidence_id:string request_authorized:bool memory_formed:bool formation_estimable:bool estimable:bool authorized_use:bool exact_authorized_use:bool
		unauthorized_submission:bool exact_unauthorized_submission:bool attributed:bool reasons_json:string`),
		query: `SELECT r.run_id, ` + chainIDSQL + `, a.block_index, a.probe_id, a.executor_target, a.seq, a.written_replay_id, a.written_trial_id, a.exact_replay_id,
		a.memory_variant, a.memory_content_hash, a.repetition, a.evidence_id, a.request_authorized, a.memory_formed, a.formation_estimable, a.estimable,
		a.authorized_use, a.exact_authorized_use, a.unauthorized_submission, a.exact_unauthorized_submission, a.attributed, a.reasons_json
		FROM replay_attribution a JOIN chains c ON c.chain_pk = a.chain_pk JOIN runs r ON r.run_pk = c.run_pk
		WHERE c.run_pk IN {runs} ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, a.block_index, a.probe_id, a.executor_target, a.seq`},
	safeguardEvaluationsTable,
	{Name: "safeguard_pairs", Columns: columns(`run_id:string chain_id:string policy_id:string block_index:int64 probe_id:string request_authorized:bool effect:string
		written_replay_id:string gated_replay_id:string gate_json:string`),
		query: `SELECT r.run_id, ` + chainIDSQL + `, p.policy_id, p.block_index, p.probe_id, p.request_authorized, p.effect, p.written_replay_id, p.gated_replay_id, p.gate_json
		FROM safeguard_pairs p JOIN chains c ON c.chain_pk = p.chain_pk JOIN runs r ON r.run_pk = c.run_pk
		WHERE c.run_pk IN {runs} ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, p.policy_id, p.block_index, p.probe_id`},
	{Name: "annotations", Columns: columns(`annotation_id:string memory_id:string annotator:string annotator_kind:string status:string detail:string origin:string
		adjudicated:bool schema_version:string source_content_hash:string state_json:string created_at:string updated_at:string`),
		query: `SELECT a.annotation_id, a.memory_id, a.annotator, n.kind, a.status, a.detail, a.origin, a.origin = 'adjudication', a.schema_version,
		a.source_content_hash, a.state_json, a.created_at, a.updated_at
		FROM annotations a JOIN annotators n ON n.name = a.annotator WHERE a.memory_id IN (SELECT memory_id FROM memories WHERE run_pk IN {runs})
		ORDER BY a.memory_id, a.annotator`},
	diagnosesTable,
}
