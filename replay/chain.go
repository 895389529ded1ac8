package replay

import (
	"context"
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Attempt statuses and the state status of EAL-Bench's writer (docs/FORMATS.md §4.4).
const (
	StatusAccepted      = "accepted"
	StatusNoChange      = "no_change"
	StatusWriterError   = "writer_error"
	StatusInvalid       = "invalid_payload"
	StatusRetainedAfter = "retained_after_failed_update"
)

// Input kinds of a writer update.
const (
	InputNewBlock    = "new_conversation_block"
	InputFullHistory = "full_history"
)

// chainInfo identifies one writer chain and what every row of it repeats.
type chainInfo struct {
	domain     engine.Domain
	surface    Surface
	c          *engine.Case
	condition  engine.Condition
	runID      int
	seed       int64
	writer     rundir.ModelProvenance
	chainID    string
	profileID  string
	framework  map[string]any
	tokens     reftoken.Counter
	maxAttempt int
	// writerState is the writer's own per-chain state (the scripted writer's faults).
	writerState any
}

// update is one logical writer update.
type update struct {
	block     int
	inputKind string
	logicalID string
}

// attemptResult is what a writer reports for one attempt.
type attemptResult struct {
	status string
	detail string
	// validated is the validated payload (accepted / no_change).
	validated    any
	candidate    any
	rawArguments any
	changed      *bool
	// frameworkRunIDs and responseModel come from the underlying call (model writers).
	frameworkRunIDs []string
	responseModel   *string
	// call, when set, is the underlying model call (calls.jsonl + model_contexts.jsonl).
	call *writerCall
	// faults are the faults a scripted attempt injected (their memory id is filled in here).
	faults []rundir.FaultRow
}

// writerCall is a writer's model call, recorded like an executor call.
type writerCall struct {
	callID         string
	frameworkRunID string
	record         CallRecord
	toolChoice     any
	inputKind      string
}

// attemptWriter is a writer as the chain sees it: one attempt of one update, given the
// current payload (nil before the first accepted memory) and, on repair, the failed attempt.
type attemptWriter interface {
	provenance(seed int64) rundir.ModelProvenance
	manager() string
	maxAttempts() int
	attempt(ctx context.Context, ch *chainInfo, u update, current any, attemptID string, index int, failed *attemptResult) (attemptResult, bool)
}

// chainOutput is every row one chain produced, plus its memory after each update (for the
// summary's formation check).
type chainOutput struct {
	memories []rundir.MemoryArtifact
	attempts []rundir.MemoryAttempt
	states   []rundir.MemoryState
	faults   []rundir.FaultRow
	calls    [][]byte
	contexts []rundir.ModelContext
	evidence rundir.FrozenEvidence
	// versions is the chain's current payload after each update, by block index.
	versions []blockVersion
	// extra are rows of the condition's own artifacts (event sourcing).
	extra []extraRow
	// lines are the encoded rows, in write order (filled by encode).
	lines []fileLine
}

type blockVersion struct {
	block   int
	payload any
}

// newChain fills the chain identity (langmem_writer recipes, 24-hex ids).
func newChain(d engine.Domain, s Surface, c *engine.Case, cond engine.Condition, runID int, seed int64, w attemptWriter, version string) *chainInfo {
	prov := w.provenance(seed)
	ch := &chainInfo{domain: d, surface: s, c: c, condition: cond, runID: runID, seed: seed, writer: prov, tokens: reftoken.Reference(), maxAttempt: w.maxAttempts()}
	ch.chainID = pyjson.StableID24("chain", d.ID(), c.ID, cond.ID, strconv.Itoa(runID), prov.TargetID, prov.Provider,
		prov.RequestedModel, prov.ResolvedModel, "", "default", s.PresentationID, s.PresentationHash)
	ch.profileID = pyjson.StableID24("profile", ch.chainID)
	ch.framework = map[string]any{
		"memory_implementation_id": s.MemoryImplementationID, "memory_implementation_hash": s.MemoryImplementationHash,
		"manager": w.manager(), "profile_mode": "single_stable_profile", "versions": map[string]any{"ealscope": version},
	}
	return ch
}

func (ch *chainInfo) updates() []update {
	last := ch.c.LastBlock()
	var out []update
	if ch.condition.Strategy == "one_shot" {
		out = []update{{block: last, inputKind: InputFullHistory}}
	} else {
		for k := 0; k <= last; k++ {
			out = append(out, update{block: k, inputKind: InputNewBlock})
		}
	}
	for i := range out {
		out[i].logicalID = pyjson.StableID24("update", ch.chainID, strconv.Itoa(out[i].block))
	}
	return out
}

func (ch *chainInfo) emptyPayload() any {
	if ch.condition.Architecture == engine.ArchTyped {
		return EmptyTypedPayload(ch.domain)
	}
	return ""
}

func (ch *chainInfo) payloadSchema(payload any) (*string, *string) {
	if ch.condition.Architecture != engine.ArchTyped {
		return nil, nil
	}
	id := ch.domain.PayloadSchemaID()
	v := ch.domain.TypedSchemaVersion()
	if m, ok := payload.(map[string]any); ok {
		if s, ok := m["schema_version"].(string); ok {
			v = s
		}
	}
	return &id, &v
}

// countTokens counts what EAL-Bench counts: the string itself, or canonical JSON.
func countTokens(tc reftoken.Counter, payload any) int {
	if s, ok := payload.(string); ok {
		return tc.Count(s)
	}
	return tc.Count(pyjson.MustCanonicalJSON(payload))
}

func (ch *chainInfo) artifact(memoryID string, parent *string, block int, payload any, attemptID string, runIDs []string, writer rundir.ModelProvenance) rundir.MemoryArtifact {
	schemaID, schemaVersion := ch.payloadSchema(payload)
	runID, seed := ch.runID, ch.seed
	implID, implHash, profile, source := ch.surface.MemoryImplementationID, ch.surface.MemoryImplementationHash, ch.profileID, attemptID
	if runIDs == nil {
		runIDs = []string{}
	}
	return rundir.MemoryArtifact{
		MemoryID: memoryID, ParentMemoryID: parent, ChainID: ch.chainID, DomainID: ch.domain.ID(), CaseID: ch.c.ID,
		ConditionID: ch.condition.ID, BlockIndex: block, WriterRunID: &runID, WriterSeed: &seed, Writer: &writer,
		Architecture: ch.condition.Architecture, Origin: "writer", PayloadSchemaID: schemaID, PayloadSchemaVersion: schemaVersion,
		Payload: payload, ReferenceTokens: countTokens(ch.tokens, payload), ReferenceTokenizer: ch.tokens.Name(),
		ContentHash: pyjson.MustContentHash(payload), PresentationID: ch.surface.PresentationID, PresentationHash: ch.surface.PresentationHash,
		MemoryImplementationID: &implID, MemoryImplementationHash: &implHash, ProfileID: &profile, SourceAttemptID: &source,
		FrameworkRunIDs: runIDs, Framework: ch.framework, SchemaVersion: rundir.SchemaVersions[rundir.Memories],
	}
}

func withResponseModel(p rundir.ModelProvenance, model *string) rundir.ModelProvenance {
	p.ResponseModel = model
	return p
}

func strp(s string) *string { return &s }

// runChain drives a chain through its updates with EAL-Bench's update semantics: one repair
// attempt after a failure, a new artifact only when the memory id changes, a synthesized
// empty artifact when the very first update fails, and the final memory frozen as evidence.
// ok is false when ctx was cancelled before the chain finished.
func runChain(ctx context.Context, ch *chainInfo, w attemptWriter) (*chainOutput, bool) {
	out := &chainOutput{}
	var current *rundir.MemoryArtifact
	for _, u := range ch.updates() {
		if ctx.Err() != nil {
			return nil, false
		}
		results, attemptIDs, ok := ch.attempts(ctx, w, u, current)
		if !ok {
			return nil, false
		}
		current = ch.recordUpdate(out, u, current, results, attemptIDs)
	}
	out.evidence = ch.frozenEvidence(current)
	return out, true
}

// attempts asks the writer for one update: a first attempt, then a repair after each failure
// up to the chain's attempt budget. ok is false when ctx was cancelled mid-attempt.
func (ch *chainInfo) attempts(ctx context.Context, w attemptWriter, u update, current *rundir.MemoryArtifact) ([]attemptResult, []string, bool) {
	var currentPayload any
	if current != nil {
		currentPayload = current.Payload
	}
	var results []attemptResult
	var attemptIDs []string
	var failed *attemptResult
	for index := 1; index <= ch.maxAttempt; index++ {
		attemptID := pyjson.StableID24("attempt", u.logicalID, strconv.Itoa(index))
		res, ok := w.attempt(ctx, ch, u, currentPayload, attemptID, index, failed)
		if !ok {
			return nil, nil, false
		}
		results = append(results, res)
		attemptIDs = append(attemptIDs, attemptID)
		if res.status == StatusAccepted || res.status == StatusNoChange {
			break
		}
		failed = &results[len(results)-1]
	}
	return results, attemptIDs, true
}

// recordUpdate appends one update's attempt rows, new memory artifacts, writer calls and state
// row to out, and returns the chain's memory after it.
func (ch *chainInfo) recordUpdate(out *chainOutput, u update, current *rundir.MemoryArtifact, results []attemptResult, attemptIDs []string) *rundir.MemoryArtifact {
	parentBefore := (*string)(nil)
	if current != nil {
		parentBefore = strp(current.MemoryID)
	}
	changed := false
	firstAttemptRow := len(out.attempts)
	for i, res := range results {
		attemptID := attemptIDs[i]
		prov := withResponseModel(ch.writer, res.responseModel)
		row := ch.attemptRow(u, i, res, attemptIDs, parentBefore, prov)
		if res.changed != nil && *res.changed {
			changed = true
		}
		switch res.status {
		case StatusAccepted, StatusNoChange:
			parent := (*string)(nil)
			if current != nil {
				parent = strp(current.MemoryID)
			}
			memoryID := pyjson.StableID24("mem", ch.chainID, deref(parent), strconv.Itoa(u.block), pyjson.MustContentHash(res.validated))
			// no_change keeps the current artifact; only a first update that changes
			// nothing needs one (the empty profile it confirmed).
			if current == nil || (res.status == StatusAccepted && current.MemoryID != memoryID) {
				art := ch.artifact(memoryID, parent, u.block, res.validated, attemptID, res.frameworkRunIDs, prov)
				out.memories = append(out.memories, art)
				current = &art
			}
			row.AcceptedMemoryID = strp(current.MemoryID)
			if res.status == StatusNoChange {
				row.RetainedMemoryID = strp(current.MemoryID)
			}
		default:
			if current != nil {
				row.RetainedMemoryID = strp(current.MemoryID)
			}
		}
		out.attempts = append(out.attempts, row)
		for _, f := range res.faults {
			f.ChainID = ch.chainID
			f.MemoryID = deref(row.AcceptedMemoryID)
			out.faults = append(out.faults, f)
		}
	}
	last := results[len(results)-1]
	status := last.status
	if status != StatusAccepted && status != StatusNoChange {
		if current == nil {
			// The very first update failed: EAL-Bench synthesizes an empty profile so the
			// state reads "retained" although nothing was really preserved.
			empty := ch.emptyPayload()
			memoryID := pyjson.StableID24("mem", ch.chainID, "", strconv.Itoa(u.block), pyjson.MustContentHash(empty))
			art := ch.artifact(memoryID, nil, u.block, empty, attemptIDs[len(attemptIDs)-1], last.frameworkRunIDs, withResponseModel(ch.writer, last.responseModel))
			out.memories = append(out.memories, art)
			current = &art
			for j := firstAttemptRow; j < len(out.attempts); j++ {
				out.attempts[j].RetainedMemoryID = strp(current.MemoryID)
			}
		}
		status = StatusRetainedAfter
	}
	// Calls are recorded once the attempts' memory ids are final (the synthesized empty
	// artifact above rewrites retained_memory_id).
	for i, res := range results {
		if res.call != nil {
			ch.recordWriterCall(out, u, out.attempts[firstAttemptRow+i], res, i == len(results)-1)
		}
	}
	out.states = append(out.states, rundir.MemoryState{
		StateID: pyjson.StableID24("state", u.logicalID), LogicalUpdateID: u.logicalID, AttemptIDs: attemptIDs,
		DomainID: ch.domain.ID(), CaseID: ch.c.ID, ConditionID: ch.condition.ID, BlockIndex: u.block,
		WriterRunID: ch.runID, WriterSeed: ch.seed, Architecture: ch.condition.Architecture, ProfileID: ch.profileID,
		CurrentMemoryID: strp(current.MemoryID), Status: status, Changed: changed,
		MemoryImplementationHash: ch.surface.MemoryImplementationHash, PresentationID: ch.surface.PresentationID,
		PresentationHash: ch.surface.PresentationHash, MemoryImplementationID: ch.surface.MemoryImplementationID,
		SchemaVersion: rundir.SchemaVersions[rundir.MemoryStates],
	})
	out.versions = append(out.versions, blockVersion{block: u.block, payload: current.Payload})
	return current
}

// attemptRow is the memory_attempts row of attempt i of an update, before the memory it
// accepted or retained is known; a repair names the update's first attempt.
func (ch *chainInfo) attemptRow(u update, i int, res attemptResult, attemptIDs []string, parentBefore *string, prov rundir.ModelProvenance) rundir.MemoryAttempt {
	row := rundir.MemoryAttempt{
		AttemptID: attemptIDs[i], LogicalUpdateID: u.logicalID, AttemptIndex: i + 1, DomainID: ch.domain.ID(), CaseID: ch.c.ID,
		ConditionID: ch.condition.ID, BlockIndex: u.block, WriterRunID: ch.runID, WriterSeed: ch.seed,
		Architecture: ch.condition.Architecture, Writer: &prov, ParentMemoryID: parentBefore, Status: res.status,
		Detail: strp(res.detail), RawArguments: res.rawArguments, MemoryImplementationHash: ch.surface.MemoryImplementationHash,
		PresentationID: ch.surface.PresentationID, PresentationHash: ch.surface.PresentationHash,
		MemoryImplementationID: ch.surface.MemoryImplementationID, ProfileID: ch.profileID,
		ProfileSchemaID: ch.profileSchemaID(), FrameworkRunIDs: nonNil(res.frameworkRunIDs), Framework: ch.framework,
		CandidatePayload: res.candidate, Changed: res.changed, SchemaVersion: rundir.SchemaVersions[rundir.MemoryAttempts],
	}
	row.PayloadSchemaID, row.PayloadSchemaVersion = ch.attemptSchema()
	if i > 0 {
		row.RepairOfAttemptID = strp(attemptIDs[0])
	}
	return row
}

// frozenEvidence is the chain's final memory frozen as the executor's evidence.
func (ch *chainInfo) frozenEvidence(current *rundir.MemoryArtifact) rundir.FrozenEvidence {
	arch := ch.condition.Architecture
	implID, implHash, profile := ch.surface.MemoryImplementationID, ch.surface.MemoryImplementationHash, ch.profileID
	return rundir.FrozenEvidence{
		EvidenceID: pyjson.StableID24("evidence", ch.domain.ID(), ch.c.ID, ch.condition.ID, strconv.Itoa(ch.runID), current.MemoryID),
		DomainID:   ch.domain.ID(), CaseID: ch.c.ID, ConditionID: ch.condition.ID, MemoryRunID: ch.runID,
		WriterSeed: &ch.seed, Writer: current.Writer, Architecture: &arch, MemoryID: strp(current.MemoryID),
		Payload: current.Payload, ContentHash: current.ContentHash, PresentationID: ch.surface.PresentationID,
		PresentationHash: ch.surface.PresentationHash, MemoryImplementationID: &implID, MemoryImplementationHash: &implHash,
		ProfileID: &profile, SourceAttemptID: current.SourceAttemptID, SchemaVersion: rundir.SchemaVersions[rundir.Evidence],
	}
}

func (ch *chainInfo) profileSchemaID() string {
	if ch.condition.Architecture == engine.ArchTyped {
		return ch.surface.TypedProfileSchemaID
	}
	return FreeTextProfileSchemaID
}

// attemptSchema is the attempt's payload schema: attempts use the constant typed version.
func (ch *chainInfo) attemptSchema() (*string, *string) {
	if ch.condition.Architecture != engine.ArchTyped {
		return nil, nil
	}
	return strp(ch.domain.PayloadSchemaID()), strp(ch.domain.TypedSchemaVersion())
}

// recordWriterCall adds the call log line and the writer ModelContext of one attempt.
func (ch *chainInfo) recordWriterCall(out *chainOutput, u update, row rundir.MemoryAttempt, res attemptResult, terminal bool) {
	wc := res.call
	line, err := CallLine(wc.callID, "writer", ch.writer, wc.record)
	if err == nil {
		out.calls = append(out.calls, line)
	}
	msgs := make([]rundir.Message, len(wc.record.Request.Messages))
	msgTrees := make([]any, len(msgs))
	for i, m := range wc.record.Request.Messages {
		msgs[i] = rundir.Message{Role: m.Role, Content: m.Content}
		msgTrees[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	hash := pyjson.MustContentHash(map[string]any{"messages": msgTrees, "tools": wc.record.Request.Tools, "tool_choice": wc.toolChoice})
	block := u.block
	runID := ch.runID
	memID := row.AcceptedMemoryID
	if memID == nil {
		memID = row.RetainedMemoryID
	}
	var errText any
	if wc.record.Error != nil {
		errText = *wc.record.Error
	}
	out.contexts = append(out.contexts, rundir.ModelContext{
		ContextID: pyjson.StableID24("context", wc.callID, wc.frameworkRunID, hash), ContentHash: hash, Stage: "writer",
		DomainID: ch.domain.ID(), CaseID: ch.c.ID, ConditionID: ch.condition.ID, BlockIndex: &block, WriterRunID: &runID,
		MemoryID: memID, MemoryAttemptID: strp(row.AttemptID), CallID: wc.callID, FrameworkRunID: strp(wc.frameworkRunID),
		Messages: msgs, Tools: wc.record.Request.Tools, ToolChoice: wc.toolChoice, Model: *row.Writer,
		PresentationID: ch.surface.PresentationID, PresentationHash: ch.surface.PresentationHash,
		Metadata: map[string]any{
			"logical_update_id": u.logicalID, "attempt_index": row.AttemptIndex, "terminal_attempt": terminal,
			"status": row.Status, "accepted_memory_id": pyjson.OrNull(row.AcceptedMemoryID), "retained_memory_id": pyjson.OrNull(row.RetainedMemoryID),
			"parent_memory_id": pyjson.OrNull(row.ParentMemoryID), "repair_of_attempt_id": pyjson.OrNull(row.RepairOfAttemptID),
			"profile_id": ch.profileID, "input_kind": u.inputKind, "architecture": ch.condition.Architecture,
			"response_model": pyjson.OrNull(res.responseModel), "error": errText,
		},
		SchemaVersion: rundir.SchemaVersions[rundir.ModelContexts],
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
