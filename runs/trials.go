package runs

import (
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Rescore statuses of a trial.
const (
	RescoreAgrees       = "agrees"
	RescoreDisagrees    = "disagrees"
	RescoreMissingCase  = "missing_corpus"
	RescoreUnknownProbe = "unknown_probe"
)

// unknownToolName stands for a tool call the stored row does not name (no terminal call):
// no domain knows it, so the scorer counts it as a non-terminal call, as the original did.
const unknownToolName = "\x00ealscope_unrecorded_tool"

// responseOf rebuilds the model response a trial row was scored from: the selected tool call
// with its raw arguments, padded with stand-in calls up to the stored call counts (extra
// terminal calls use a non-action tool so the stored call stays the selected one).
func responseOf(d engine.Domain, r rundir.Row) engine.Response {
	if pe := r.OptStr("provider_error"); pe != nil {
		return engine.Response{ProviderError: *pe}
	}
	resp := engine.Response{Text: r.Str("response_text"), FinishReason: r.OptStr("finish_reason")}
	total := int(r.Int("tool_call_count"))
	terminal := int(r.Int("terminal_call_count"))
	name := r.OptStr("raw_tool_name")
	if name == nil {
		for i := 0; i < total; i++ {
			resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: unknownToolName})
		}
		return resp
	}
	resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: *name, Arguments: r.Tree["raw_tool_arguments"]})
	filler := ""
	for _, t := range d.Tools() {
		if k := d.ToolKind(t.Name); k == engine.DeclineTool || (k == engine.EscalationTool && filler == "") {
			filler = t.Name
		}
	}
	for i := 1; i < terminal; i++ {
		resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: filler, Arguments: map[string]any{}})
	}
	for i := max(terminal, 1); i < total; i++ {
		resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: unknownToolName})
	}
	return resp
}

type fieldDiff struct {
	field            string
	stored, rescored any
}

func compareOutcome(r rundir.Row, o engine.Outcome) []fieldDiff {
	var out []fieldDiff
	if s := r.Str("decision"); s != o.Decision {
		out = append(out, fieldDiff{"decision", s, o.Decision})
	}
	for _, f := range []struct {
		name string
		v    bool
	}{
		{"request_authorized", o.RequestAuthorized}, {"requested_action_taken", o.RequestedActionTaken},
		{"unauthorized_action_taken", o.UnauthorizedActionTaken}, {"action_mismatch", o.ActionMismatch},
		{"compliant", o.Compliant}, {"parseable", o.Parseable},
	} {
		stored, present := r.Tree[f.name].(bool)
		if !present {
			continue // older rows may lack compliant/parseable: nothing to compare
		}
		if stored != f.v {
			out = append(out, fieldDiff{f.name, stored, f.v})
		}
	}
	return out
}

// insertTrial stores a trial with our re-score of it; disagreements are listed, the stored
// decision is never changed.
func (dv *deriver) insertTrial(c *chainAcc, t *trialRec) error {
	r := t.row
	status := RescoreMissingCase
	var diffs []fieldDiff
	if dv.d != nil && c.c != nil {
		probe, ok := c.c.Probe(t.probeID)
		if !ok {
			status = RescoreUnknownProbe
			diffs = append(diffs, fieldDiff{"probe_id", t.probeID, "not a probe of case " + c.c.ID})
		} else {
			through := -1
			if t.oracleBlock != nil {
				through = *t.oracleBlock
			}
			if through > c.c.LastBlock() {
				diffs = append(diffs, fieldDiff{"oracle_block_index", through, fmt.Sprintf("past the last block %d", c.c.LastBlock())})
				through = -1
			}
			o, err := engine.Score(dv.d, c.c, probe, responseOf(dv.d, r), through)
			if err != nil {
				return fmt.Errorf("trial %s (line %d): %w", t.trialID, r.Line, err)
			}
			t.rescored = &o
			diffs = append(diffs, compareOutcome(r, o)...)
			status = RescoreAgrees
		}
		if len(diffs) > 0 {
			status = RescoreDisagrees
		}
	}
	var rescored any
	if t.rescored != nil {
		rescored = t.rescored.Decision
	}
	args := jsonText(r.Tree["raw_tool_arguments"])
	pk, err := dv.w.insertID("trials", `INSERT INTO trials (run_pk, chain_pk, line, trial_id, case_id, probe_id, condition_id, evidence_id, memory_id, executor_target, executor_run_id, oracle_block_index, decision, request_authorized, requested_action_taken, unauthorized_action_taken, action_mismatch, compliant, parseable, provider_error, raw_tool_name, raw_tool_arguments_json, rescored_decision, rescore_status, row_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		dv.runPK, c.pk, r.Line, t.trialID, r.Str("case_id"), t.probeID, r.Str("condition_id"), nullStr(r.OptStr("evidence_id")), nullStr(t.memoryID), t.executor, t.execRun, nullInt(t.oracleBlock),
		r.Str("decision"), b2i(r.Bool("request_authorized")), b2i(r.Bool("requested_action_taken")), b2i(r.Bool("unauthorized_action_taken")), b2i(r.Bool("action_mismatch")),
		b2i(r.Bool("compliant")), b2i(r.Bool("parseable")), nullStr(r.OptStr("provider_error")), nullStr(r.OptStr("raw_tool_name")), args, rescored, status, rowJSON(r))
	if err != nil {
		return err
	}
	t.pk = pk
	if len(diffs) > 0 {
		dv.disagreements++
	}
	for _, d := range diffs {
		if _, err := dv.w.exec("rescore_disagreements", `INSERT INTO rescore_disagreements (run_pk, trial_pk, field, stored, rescored) VALUES (?,?,?,?,?)`,
			dv.runPK, pk, d.field, jsonText(d.stored), jsonText(d.rescored)); err != nil {
			return err
		}
	}
	return nil
}

func armOf(r rundir.Row) *engine.ArmOutcome {
	return &engine.ArmOutcome{RequestAuthorized: r.Bool("request_authorized"), RequestedActionTaken: r.Bool("requested_action_taken"), ProviderError: r.OptStr("provider_error")}
}

type exactKey struct {
	caseID, probeID, executor string
	execRun                   int64
}

// attribute writes EAL-Bench's end-to-end attribution rows for every written-arm trial when
// the run has exact arms: condition "exact_repair", or else "faithful_typed" trials of the same
// executor. Without any exact arm there is nothing to attribute against and no row is written.
func (dv *deriver) attribute(m *runModel) error {
	exact := map[exactKey]*trialRec{}
	exactAny := map[exactKey]*trialRec{}
	for _, cond := range []string{engine.ExactRepairCondition, "faithful_typed"} {
		for _, c := range m.order {
			if c.key.condition != cond {
				continue
			}
			for _, t := range c.trials {
				k := exactKey{c.key.caseID, t.probeID, t.executor, t.execRun}
				if _, ok := exact[k]; !ok {
					exact[k] = t
				}
				k.execRun = -1
				if _, ok := exactAny[k]; !ok {
					exactAny[k] = t
				}
			}
		}
	}
	if len(exact) == 0 {
		return nil
	}
	for _, c := range m.order {
		written := writerConditions[c.key.condition]
		for _, mr := range c.memories {
			if mr.origin == "writer" {
				written = true
			}
		}
		if !written || c.key.condition == engine.ExactRepairCondition {
			continue
		}
		trials := append([]*trialRec(nil), c.trials...)
		sort.SliceStable(trials, func(i, j int) bool { return trials[i].row.Line < trials[j].row.Line })
		attributed := 0
		for _, t := range trials {
			in := engine.AttributionInput{
				EvidenceID: t.row.Str("evidence_id"), CaseID: c.key.caseID, ProbeID: t.probeID, ConditionID: c.key.condition,
				WriterTarget: c.key.writer, Written: armOf(t.row), FormationEstimable: true,
			}
			var mr *memRec
			if t.memoryID != nil {
				mr = m.memories[*t.memoryID]
			}
			if mr != nil {
				block := -1
				if c.c != nil {
					block = c.c.LastBlock()
				}
				if t.oracleBlock != nil {
					block = *t.oracleBlock
				}
				s, err := dv.score(mr, block)
				if err != nil {
					return err
				}
				in.FormationEstimable = s.estimable()
				for _, id := range s.formed {
					if id == t.probeID {
						in.MemoryFormed = true
					}
				}
			}
			if t.rescored != nil {
				in.RequestAuthorized = boolp(t.rescored.RequestAuthorized)
			}
			x := exact[exactKey{c.key.caseID, t.probeID, t.executor, t.execRun}]
			if x == nil {
				x = exactAny[exactKey{c.key.caseID, t.probeID, t.executor, -1}]
			}
			var exactPK any
			if x != nil {
				in.Exact = armOf(x.row)
				exactPK = x.pk
			}
			row := engine.Attribute(in)
			if row.Attributed {
				attributed++
			}
			if _, err := dv.w.exec("attribution", `INSERT INTO attribution (run_pk, trial_pk, chain_pk, exact_trial_pk, evidence_id, case_id, probe_id, condition_id, writer_target, request_authorized, memory_formed, formation_estimable, estimable, authorized_use, exact_authorized_use, unauthorized_submission, exact_unauthorized_submission, attributed, reasons_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
				dv.runPK, t.pk, c.pk, exactPK, row.EvidenceID, row.CaseID, row.ProbeID, row.ConditionID, nullStr(row.WriterTarget), b2i(row.RequestAuthorized), b2i(row.MemoryFormed),
				b2i(row.FormationEstimable), b2i(row.Estimable), b2i(row.AuthorizedUse), b2i(row.ExactAuthorizedUse), b2i(row.UnauthorizedSubmission), b2i(row.ExactUnauthorizedSubmission),
				b2i(row.Attributed), jsonText(row.Reasons)); err != nil {
				return err
			}
		}
		if _, err := dv.w.exec("", `UPDATE chains SET attributed_memory_induced=? WHERE chain_pk=?`, attributed, c.pk); err != nil {
			return err
		}
	}
	return nil
}

// insertRawRows stores the artifacts not tied to a chain: model contexts, calls, the executor
// plan, ealscope's faults and, verbatim, every other listed artifact.
func insertRawRows(w *txWriter, runPK int64, m *runModel, run *rundir.Run) error {
	handled := map[string]bool{rundir.Memories: true, rundir.MemoryAttempts: true, rundir.MemoryStates: true, rundir.Evidence: true, rundir.Trials: true}
	seenCtx := map[string]bool{}
	for _, r := range run.Files[rundir.ModelContexts] {
		id := r.Str("context_id")
		if seenCtx[id] {
			continue
		}
		seenCtx[id] = true
		if _, err := w.exec("model_contexts", `INSERT INTO model_contexts (run_pk, context_id, call_id, stage, trial_id, memory_attempt_id, line, row_json) VALUES (?,?,?,?,?,?,?,?)`,
			runPK, id, r.Str("call_id"), r.Str("stage"), nullStr(r.OptStr("trial_id")), nullStr(r.OptStr("memory_attempt_id")), r.Line, rowJSON(r)); err != nil {
			return err
		}
	}
	handled[rundir.ModelContexts] = true
	for _, name := range []string{rundir.Calls, "writer_calls"} {
		for _, r := range run.Files[name] {
			if _, err := w.exec("calls", `INSERT INTO calls (run_pk, artifact, line, call_id, task, error, row_json) VALUES (?,?,?,?,?,?,?)`,
				runPK, name, r.Line, r.Str("call_id"), nullStr(r.OptStr("task")), nullStr(r.OptStr("error")), rowJSON(r)); err != nil {
				return err
			}
		}
		handled[name] = true
	}
	for _, r := range run.Files[rundir.ExecutorPlan] {
		var ob *int
		if p := r.OptInt("oracle_block_index"); p != nil {
			v := int(*p)
			ob = &v
		}
		if _, err := w.exec("executor_plan", `INSERT INTO executor_plan (run_pk, trial_id, call_id, oracle_block_index, line, row_json) VALUES (?,?,?,?,?,?)`,
			runPK, r.Str("trial_id"), r.Str("call_id"), nullInt(ob), r.Line, rowJSON(r)); err != nil {
			return err
		}
	}
	handled[rundir.ExecutorPlan] = true
	for _, r := range run.Files[rundir.Faults] {
		if _, err := w.exec("faults", `INSERT INTO faults (run_pk, line, family, case_id, condition_id, writer_run_id, block_index, authorization_id, field, memory_id, row_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
			runPK, r.Line, r.Str("family"), r.Str("case_id"), r.Str("condition_id"), r.Int("writer_run_id"), r.Int("block_index"), r.Str("authorization_id"), r.Str("field"), r.Str("memory_id"), rowJSON(r)); err != nil {
			return err
		}
	}
	handled[rundir.Faults] = true
	names := make([]string, 0, len(run.Files))
	for name := range run.Files {
		if !handled[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		for _, r := range run.Files[name] {
			if _, err := w.exec("extra_rows", `INSERT INTO extra_rows (run_pk, artifact, line, row_json) VALUES (?,?,?,?)`, runPK, name, r.Line, rowJSON(r)); err != nil {
				return err
			}
		}
	}
	return nil
}
