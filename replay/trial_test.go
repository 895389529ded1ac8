package replay

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// dropAll is a memory transformation that removes every record, giving a reason for each.
type dropAll struct{}

func (dropAll) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	records, err := in.Domain.ParseTyped(in.Evidence.Payload)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	g := engine.GatedMemory{Evidence: in.Evidence}
	for _, r := range records {
		g.Records = append(g.Records, engine.RecordDecision{AuthorizationID: r.AuthorizationID(), Reasons: []string{"test_drop"}})
	}
	g.Evidence.Payload = in.Domain.TypedPayload(nil)
	return g, nil
}

// blockAll is an action gate that blocks every action.
type blockAll struct{}

func (blockAll) GateAction(engine.ActionInput) engine.GateDecision {
	return engine.GateDecision{Allowed: false, Reason: "test_block"}
}

// TestRunTrialPolicyHooks: without a policy a trial on exact memory acts on the authorized
// probe; a memory transformation that drops the records makes the built-in executor escalate
// instead (it sees the gated memory, and the request hash changes with it); an action gate
// turns the action into policy_blocked, a refused legitimate request.
func TestRunTrialPolicyHooks(t *testing.T) {
	d, cases := builtinCases(t)
	c := cases[0]
	last := c.LastBlock()
	ledger, err := d.Replay(c, last)
	if err != nil {
		t.Fatal(err)
	}
	exact := engine.Evidence{Kind: engine.MemoryEvidence, Payload: pyjson.MustRetree(d.TypedPayload(ledger))}
	var probe engine.Probe
	for _, p := range c.Probes {
		if v, _ := engine.Oracle(d, c, last, p.Request); v.Authorized {
			probe = p
			break
		}
	}
	if probe.ID == "" {
		t.Fatal("no authorized probe in the first built-in case")
	}
	ex := NewBuiltinExecutor(d, 1)
	spec := TrialSpec{Domain: d, Case: c, Probe: probe, Evidence: exact, OracleBlock: last, Tools: engine.ToolsTree(d), Seed: 1, CallID: "call_test"}

	plain, ok, err := RunTrial(context.Background(), ex, spec)
	if err != nil || !ok || plain.Outcome.Decision != engine.ExecuteRequested || plain.Gated != nil || plain.Gate != nil {
		t.Fatalf("no policy: %+v ok=%v err=%v", plain.Outcome, ok, err)
	}

	spec.Policy = &engine.Policy{ID: "drop_all", Version: "1", Memory: dropAll{}}
	gated, _, err := RunTrial(context.Background(), ex, spec)
	if err != nil || gated.Outcome.Decision != engine.Escalate || gated.Gated == nil || len(gated.Gated.Records) != len(ledger) {
		t.Fatalf("memory policy: %+v gated=%+v err=%v", gated.Outcome, gated.Gated, err)
	}
	if gated.RequestHash == plain.RequestHash {
		t.Error("the executor was not shown the gated memory: same request hash")
	}

	spec.Policy = &engine.Policy{ID: "block_all", Version: "1", Gate: blockAll{}}
	blocked, _, err := RunTrial(context.Background(), ex, spec)
	if err != nil || blocked.Outcome.Decision != engine.PolicyBlocked || blocked.Outcome.RequestedActionTaken || blocked.Outcome.Compliant ||
		blocked.Gate == nil || blocked.Gate.Reason != "test_block" || blocked.RequestHash != plain.RequestHash {
		t.Fatalf("action gate: %+v gate=%+v err=%v", blocked.Outcome, blocked.Gate, err)
	}
}

// TestStaleRetentionOnActiveOnlyLedger: cybersecurity's ledger drops a revoked grant instead
// of keeping it revoked; the scripted writer's stale_retention fault must still open there
// (keep the vanished grant, active), and that memory forms false authority.
func TestStaleRetentionOnActiveOnlyLedger(t *testing.T) {
	d, cases := domainCases(t, "cybersecurity")
	opts := scriptedOptions(t, d, cases[:1], filepath.Join(t.TempDir(), "run"), 3)
	opts.Conditions = []engine.Condition{mustCondition(t, "incremental_typed")}
	opts.Writer = &ScriptedWriter{FaultRate: 1, Families: []string{FaultStaleRetention}, Version: "test"}
	opts.Families = []string{FaultStaleRetention}
	opts.Settings.Domain, opts.Settings.FaultRate, opts.Settings.Faults = d.ID(), 1, opts.Families
	sum := mustRun(t, opts)
	if sum.Faults[FaultStaleRetention] == 0 {
		t.Fatalf("no stale_retention fault on an active-only ledger: %v", sum.Faults)
	}
	if sum.ChainsFormed == 0 {
		t.Fatalf("keeping revoked grants formed no false authority: %+v", sum)
	}
}
