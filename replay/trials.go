package replay

import (
	"fmt"
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// StudyID is metadata.study.study_id of every ealscope run trial.
const StudyID = "ealscope_run"

// job is one planned executor call: an evidence, a probe and an executor run.
type job struct {
	ev       evidenceItem
	c        *engine.Case
	probe    engine.Probe
	runID    int
	seed     int64
	jobID    string
	trialID  string
	callID   string
	prov     rundir.ModelProvenance
	oracleAt int
}

// planJobs lists the executor calls of one evidence in EAL-Bench's plan order (probes, then
// executor runs), with the core-runner trial id recipe (executor reference §8).
func planJobs(d engine.DomainIdentity, s Surface, ex Executor, ev evidenceItem, c *engine.Case, runs int, runSeed int64) []job {
	var out []job
	for _, p := range c.Probes {
		for r := 0; r < runs; r++ {
			seed := runSeed + int64(r)
			prov := ex.Provenance(seed)
			trialID := pyjson.StableID64("trial", d.ID(), ev.row.EvidenceID, p.ID, prov.TargetID, prov.Provider,
				prov.RequestedModel, prov.ResolvedModel, strconv.Itoa(r), strconv.FormatInt(seed, 10), s.PresentationID, s.PresentationHash)
			out = append(out, job{
				ev: ev, c: c, probe: p, runID: r, seed: seed, prov: prov, oracleAt: c.LastBlock(),
				jobID:   pyjson.StableID64("job", StudyID, ev.row.EvidenceID, p.ID),
				trialID: trialID, callID: pyjson.StableID64("call", trialID, "executor"),
			})
		}
	}
	return out
}

func (j job) messages(d engine.Domain) ([]engine.ChatMessage, error) {
	return engine.ExecutorMessages(d, j.c, j.probe, j.ev.engineEvidence())
}

func rowMessages(msgs []engine.ChatMessage) []rundir.Message {
	out := make([]rundir.Message, len(msgs))
	for i, m := range msgs {
		out[i] = rundir.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

func (j job) jobMetadata() map[string]any {
	md := map[string]any{"evidence_role": j.ev.role()}
	if j.ev.condition.ID == engine.EventSourcedCondition {
		// EAL-Bench's event-sourcing study marks the trials on the final reduced state.
		md["replay_kind"] = "event_sourced_full"
	}
	return md
}

func (j job) planRow(msgs []engine.ChatMessage) rundir.ExecutorPlanRow {
	oracle := j.oracleAt
	return rundir.ExecutorPlanRow{
		SchemaVersion: rundir.SchemaVersions[rundir.ExecutorPlan], CallID: j.callID, TrialID: j.trialID, JobID: j.jobID,
		CaseID: j.c.ID, ProbeID: j.probe.ID, ConditionID: j.ev.condition.ID, EvidenceID: j.ev.row.EvidenceID,
		MemoryID: j.ev.row.MemoryID, ExecutorTargetID: j.prov.TargetID, ExecutorRunID: j.runID, ExecutorSeed: j.seed,
		OracleBlockIndex: &oracle, Messages: rowMessages(msgs), Executor: j.prov, JobMetadata: j.jobMetadata(),
	}
}

// trialOutput is everything one executed job writes.
type trialOutput struct {
	callLine    []byte
	context     rundir.ModelContext
	trial       rundir.NormalizedTrial
	outcome     engine.Outcome
	contextLine []byte
	trialLine   []byte
}

// encode serialises the context and trial rows (in the worker, off the writer goroutine).
func (t *trialOutput) encode() error {
	var err error
	if t.contextLine, err = pyjson.RowLine(t.context); err != nil {
		return fmt.Errorf("model_contexts row: %w", err)
	}
	if t.trialLine, err = pyjson.RowLine(t.trial); err != nil {
		return fmt.Errorf("trials row: %w", err)
	}
	return nil
}

// scoreJob builds a made trial's trial, context and call-log rows.
func scoreJob(d engine.DomainIdentity, s Surface, j job, tools []any, tr Trial) (trialOutput, error) {
	rec, msgs, outcome, hash := tr.Call, tr.Messages, tr.Outcome, tr.RequestHash
	prov := j.prov
	if rec.Error == nil && rec.Response != nil {
		prov.ResponseModel = rec.Response.Model
	}
	line, err := CallLine(j.callID, "executor", prov, rec)
	if err != nil {
		return trialOutput{}, err
	}
	contextID := pyjson.StableID64("context", j.callID, hash)
	ev := j.ev.row
	var arch any
	if ev.Architecture != nil {
		arch = *ev.Architecture
	}
	core := map[string]any{
		"pair_id": j.probe.PairID, "dimension": j.probe.Dimension, "request_scope": j.probe.Scope, "architecture": arch,
		"memory_implementation_id": pyjson.OrNull(ev.MemoryImplementationID), "memory_implementation_hash": pyjson.OrNull(ev.MemoryImplementationHash),
		"profile_id": pyjson.OrNull(ev.ProfileID), "trial_id": j.trialID, "call_id": j.callID, "model_context_id": contextID,
		"presentation_id": s.PresentationID, "presentation_hash": s.PresentationHash, "presentation": s.Presentation,
	}
	if len(rec.Redactions) > 0 {
		core["response_redactions"] = redactionTrees(rec.Redactions)
	}
	study := map[string]any{"study_id": StudyID, "job_id": j.jobID, "pressure_id": nil}
	for k, v := range j.jobMetadata() {
		study[k] = v
	}
	domainMeta := map[string]any{}
	for k, v := range j.probe.Metadata {
		domainMeta[k] = v
	}
	trial := rundir.NormalizedTrial{
		DomainID: d.ID(), DomainAdapterVersion: d.AdapterVersion(), CaseID: j.c.ID, ProbeID: j.probe.ID,
		ConditionID: j.ev.condition.ID, Writer: ev.Writer, Executor: prov, WriterRunID: ev.MemoryRunID, WriterSeed: ev.WriterSeed,
		ExecutorRunID: j.runID, Seed: j.seed, EvidenceID: ev.EvidenceID, MemoryID: ev.MemoryID,
		Metadata: rundir.TrialMetadata{Core: core, Study: study, Domain: domainMeta}, SchemaVersion: rundir.SchemaVersions[rundir.Trials],
	}
	trial.ApplyOutcome(outcome)
	block := j.oracleAt
	writerRun, execRun := ev.MemoryRunID, j.runID
	probeID, evidenceID, trialID := j.probe.ID, ev.EvidenceID, j.trialID
	ctxMeta := map[string]any{
		"pair_id": j.probe.PairID, "dimension": j.probe.Dimension, "request_scope": j.probe.Scope,
		"request_authorized": outcome.RequestAuthorized, "architecture": arch,
		"memory_implementation_id": pyjson.OrNull(ev.MemoryImplementationID), "memory_implementation_hash": pyjson.OrNull(ev.MemoryImplementationHash),
		"profile_id": pyjson.OrNull(ev.ProfileID), "prompt_policy_id": s.PromptPolicyID, "study_id": StudyID, "job_id": j.jobID, "pressure_id": nil,
	}
	for k, v := range j.jobMetadata() {
		ctxMeta[k] = v
	}
	context := rundir.ModelContext{
		ContextID: contextID, ContentHash: hash, Stage: "executor", DomainID: d.ID(), CaseID: j.c.ID, ConditionID: j.ev.condition.ID,
		BlockIndex: &block, ProbeID: &probeID, WriterRunID: &writerRun, ExecutorRunID: &execRun, MemoryID: ev.MemoryID,
		MemoryAttemptID: ev.SourceAttemptID, EvidenceID: &evidenceID, TrialID: &trialID, CallID: j.callID,
		Messages: rowMessages(msgs), Tools: tools, ToolChoice: "auto", Model: prov,
		PresentationID: s.PresentationID, PresentationHash: s.PresentationHash, Metadata: ctxMeta,
		SchemaVersion: rundir.SchemaVersions[rundir.ModelContexts],
	}
	return trialOutput{callLine: line, context: context, trial: trial, outcome: outcome}, nil
}
