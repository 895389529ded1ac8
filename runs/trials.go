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
func responseOf(d engine.ExecutorSurface, r rundir.Row) engine.Response {
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

// rescore re-scores a stored trial with our scorer against its chain's case and records the
// outcome on its row; disagreements are listed, the stored decision is never changed. Without
// the case the row keeps the status import gave it (missing_corpus).
func (dv *deriver) rescore(c *chainAcc, t *trialRec) error {
	if dv.d == nil || c.c == nil {
		return nil
	}
	r := t.row
	var diffs []fieldDiff
	status := RescoreAgrees
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
	}
	if len(diffs) > 0 {
		status = RescoreDisagrees
	}
	var rescored any
	if t.rescored != nil {
		rescored = t.rescored.Decision
	}
	if _, err := dv.w.exec("", `UPDATE trials SET rescored_decision=?, rescore_status=? WHERE trial_pk=?`, rescored, status, t.pk); err != nil {
		return err
	}
	if len(diffs) > 0 {
		dv.disagreements++
	}
	for _, d := range diffs {
		if _, err := dv.w.exec("rescore_disagreements", `INSERT INTO rescore_disagreements (run_pk, trial_pk, field, stored, rescored) VALUES (?,?,?,?,?)`,
			dv.runPK, t.pk, d.field, jsonText(d.stored), jsonText(d.rescored)); err != nil {
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

// attribute writes EAL-Bench's end-to-end attribution rows for every written-arm trial of one
// case's chains, against the case's exact arms: condition "exact_repair", or else
// "faithful_typed" trials of the same executor. The caller skips runs without any exact arm
// (there is nothing to attribute against, and no row is written); a case of such a run
// without its own exact arm gets rows with no exact trial.
func (dv *deriver) attribute(chains []*chainAcc) error {
	exact := map[exactKey]*trialRec{}
	exactAny := map[exactKey]*trialRec{}
	memories := map[string]*memRec{}
	for _, c := range chains {
		for _, mr := range c.memories {
			memories[mr.id] = mr
		}
	}
	for _, cond := range []string{engine.ExactRepairCondition, engine.FaithfulTypedCondition} {
		for _, c := range chains {
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
	for _, c := range chains {
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
				mr = memories[*t.memoryID]
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
