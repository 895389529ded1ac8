package replay

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// TrialSpec is one executor trial: the memory the executor is shown for one probe of a case,
// scored by the oracle on the ledger through OracleBlock.
type TrialSpec struct {
	Domain   engine.Domain
	Case     *engine.Case
	Probe    engine.Probe
	Evidence engine.Evidence
	// OracleBlock is the block whose ledger scores the decision (and the memory's block
	// under a policy).
	OracleBlock int
	// Tools is the domain's tools tree (engine.ToolsTree), built once per batch.
	Tools  []any
	Seed   int64
	CallID string
	// Policy is an optional safeguard: its memory transformation runs before the executor
	// sees the memory, its gate on the decision before scoring. nil: the trial is exactly
	// EAL-Bench's.
	Policy *engine.Policy
	// Condition and Versions tell the policy which writer chain the memory came from
	// (engine.MemoryInput); unused without a policy.
	Condition string
	Versions  []engine.MemoryVersion
	// AudienceRequest is who asks the probe, and where, for an audience-admitting policy.
	AudienceRequest *engine.AudienceRequest
}

// Trial is a made trial.
type Trial struct {
	// Messages and RequestHash are what was sent (after the policy's memory transformation).
	Messages    []engine.ChatMessage
	RequestHash string
	Call        CallRecord
	Outcome     engine.Outcome
	// Gated is the policy's memory decision, Gate its verdict on the action (nil without).
	Gated *engine.GatedMemory
	Gate  *engine.GateDecision
}

// RunTrial is the one way a trial is made, by the run pipeline and by re-runs alike. ok is
// false when ctx cut the call short (nothing to record). A provider failure is a trial
// (decision provider_error), never an error.
func RunTrial(ctx context.Context, ex Executor, spec TrialSpec) (Trial, bool, error) {
	var t Trial
	ev := spec.Evidence
	if spec.Policy != nil && spec.Policy.Memory != nil {
		g, err := spec.Policy.Memory.TransformMemory(engine.MemoryInput{Domain: spec.Domain, Case: spec.Case,
			Block: spec.OracleBlock, Evidence: ev, Condition: spec.Condition, Versions: spec.Versions, Request: spec.AudienceRequest})
		if err != nil {
			return t, true, fmt.Errorf("policy %s on probe %s: %w", spec.Policy.ID, spec.Probe.ID, err)
		}
		t.Gated, ev = &g, g.Evidence
	}
	msgs, err := engine.ExecutorMessages(spec.Domain, spec.Case, spec.Probe, ev)
	if err != nil {
		return t, true, fmt.Errorf("probe %s: %w", spec.Probe.ID, err)
	}
	hash, err := engine.RequestHash(msgs, spec.Tools)
	if err != nil {
		return t, true, fmt.Errorf("probe %s: %w", spec.Probe.ID, err)
	}
	t.Messages, t.RequestHash = msgs, hash
	t.Call = ex.Execute(ctx, ExecRequest{
		Domain: spec.Domain, Case: spec.Case, Probe: spec.Probe, Evidence: ev, Messages: msgs, Tools: spec.Tools,
		Seed: spec.Seed, CallID: spec.CallID,
	})
	if t.Call.Cancelled {
		return t, false, nil
	}
	t.Outcome, err = engine.Score(spec.Domain, spec.Case, spec.Probe, t.Call.EngineResponse(), spec.OracleBlock)
	if err != nil {
		return t, true, fmt.Errorf("scoring probe %s: %w", spec.Probe.ID, err)
	}
	if spec.Policy != nil && spec.Policy.Gate != nil && engine.IsAction(t.Outcome.Decision) {
		g := spec.Policy.Gate.GateAction(engine.ActionInput{Domain: spec.Domain, Case: spec.Case, Block: spec.OracleBlock,
			Probe: spec.Probe, Evidence: ev, Outcome: t.Outcome, Condition: spec.Condition, Versions: spec.Versions, Gated: t.Gated})
		t.Gate = &g
		if !g.Allowed {
			t.Outcome = engine.BlockAction(t.Outcome, g.Reason)
		}
	}
	return t, true, nil
}
