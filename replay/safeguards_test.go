package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// dropUnknownRecords is a test policy: it removes every remembered record the ledger at the
// block does not hold (an oracle no real safeguard has, which makes its effect exact to
// predict: every invented record goes).
type dropUnknownRecords struct{}

func (dropUnknownRecords) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	if _, isText := in.Evidence.Payload.(string); isText {
		return engine.GatedMemory{}, fmt.Errorf("free text: %w", engine.ErrNotApplicable)
	}
	records, err := readEvidence(in.Domain, in.Evidence)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	ledger, err := in.Domain.Replay(in.Case, in.Block)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	known := map[string]bool{}
	for _, r := range ledger {
		known[r.AuthorizationID()] = true
	}
	var kept []engine.Record
	var decisions []engine.RecordDecision
	for _, r := range records {
		d := engine.RecordDecision{AuthorizationID: r.AuthorizationID(), Kept: known[r.AuthorizationID()], Reasons: []string{"in_ledger"}, Sources: []string{"src_3fa81c07_001"}}
		if d.Kept {
			kept = append(kept, r)
		} else {
			d.Reasons = []string{"not_in_ledger"}
		}
		decisions = append(decisions, d)
	}
	return engine.GatedMemory{Evidence: engine.Evidence{Kind: engine.MemoryEvidence, Payload: in.Domain.TypedPayload(kept)}, Records: decisions}, nil
}

// blockEveryAction is a test gate that stops every action.
type blockEveryAction struct{}

func (blockEveryAction) GateAction(engine.ActionInput) engine.GateDecision {
	return engine.GateDecision{Allowed: false, Reason: "test: every action blocked"}
}

func testPolicies() []engine.Policy {
	return []engine.Policy{
		{ID: "drop_unknown", Version: "t1", Description: "test", Memory: dropUnknownRecords{}},
		{ID: "block_all", Version: "t1", Description: "test", Gate: blockEveryAction{}},
	}
}

// forgedChain is a typed chain whose memory is oracle-exact at every block, plus at the final
// block one invented record: a copy of each ledger record under a new id with its ceiling
// multiplied by 100.
func forgedChain(t *testing.T, d engine.Domain, c *engine.Case) SafeguardChain {
	t.Helper()
	ch := SafeguardChain{Domain: d, Case: c, Condition: "incremental_typed", Architecture: engine.ArchTyped, ChainRef: "test/" + c.ID}
	for b := 0; b <= c.LastBlock(); b++ {
		m, err := ExactMemory(d, c, b, engine.ArchTyped)
		if err != nil {
			t.Fatal(err)
		}
		payload := m.Payload
		if b == c.LastBlock() {
			payload = forge(t, payload)
		}
		ch.Versions = append(ch.Versions, SafeguardVersion{Block: b, MemoryID: fmt.Sprintf("m%d", b), Payload: payload})
	}
	return ch
}

func forge(t *testing.T, payload any) any {
	t.Helper()
	text, err := pyjson.CanonicalJSON(payload)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pyjson.DecodeTree([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	root := tree.(map[string]any)
	auths := root["authorizations"].([]any)
	for _, a := range append([]any(nil), auths...) {
		src := a.(map[string]any)
		cp := map[string]any{}
		for k, v := range src {
			cp[k] = v
		}
		cp["authorization_id"] = "forged_" + src["authorization_id"].(string)
		cp["status"] = "active"
		scope := map[string]any{}
		for k, v := range src["scope"].(map[string]any) {
			scope[k] = v
		}
		if n, ok := scope["max_amount"].(json.Number); ok {
			v, _ := n.Int64()
			scope["max_amount"] = json.Number(fmt.Sprint(v * 100))
		}
		cp["scope"] = scope
		auths = append(auths, cp)
	}
	root["authorizations"] = auths
	return root
}

func TestEvaluateChainForgedRecord(t *testing.T) {
	d := procurement.Domain{}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	formedChains := 0
	for _, c := range cases {
		ch := forgedChain(t, d, c)
		progress := 0
		ev, err := EvaluateChain(context.Background(), SafeguardSpec{Chain: ch, Policies: testPolicies(), Executor: NewBuiltinExecutor(d, 7), Seed: 7, Workers: 3,
			Progress: func(done, total int) { progress = done }})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if ev.Cancelled || len(ev.Baseline) != len(c.Probes) {
			t.Fatalf("%s: cancelled=%v baseline=%d probes=%d", c.ID, ev.Cancelled, len(ev.Baseline), len(c.Probes))
		}
		if want := len(c.Probes) * 3; progress != want {
			t.Fatalf("%s: progress ended at %d, want %d", c.ID, progress, want)
		}
		drop, _ := ev.Policy("drop_unknown")
		block, _ := ev.Policy("block_all")
		final := drop.FinalWritten
		// The exact versions never form; the forged final version may.
		if drop.FirstFalseAuthorityBefore != nil && *drop.FirstFalseAuthorityBefore != c.LastBlock() {
			t.Fatalf("%s: exact memory formed at block %d", c.ID, *drop.FirstFalseAuthorityBefore)
		}
		if drop.FirstFalseAuthorityAfter != nil || drop.FinalGated.Formed {
			t.Fatalf("%s: the gated memory still forms (%v)", c.ID, drop.FinalGated.FormedProbeIDs)
		}
		if final.Formed {
			formedChains++
			if !drop.FormationRemoved || len(drop.Removed) == 0 || !strings.HasPrefix(drop.Removed[0].AuthorizationID, "forged_") {
				t.Fatalf("%s: formation not removed or removed records wrong: %+v", c.ID, drop.Removed)
			}
			if drop.Removed[0].Reasons[0] != "not_in_ledger" || drop.Removed[0].FirstBlock != c.LastBlock() {
				t.Fatalf("%s: removed record %+v", c.ID, drop.Removed[0])
			}
		}
		// The built-in executor trusts memory: it acts on every formed probe behind the forged
		// memory, on none behind the gated one; every authorized probe stays served.
		if drop.Counts.Prevented != len(final.FormedProbeIDs) || drop.Counts.Refused != 0 {
			t.Fatalf("%s: drop_unknown counts %+v, formed %v", c.ID, drop.Counts, final.FormedProbeIDs)
		}
		authorized := 0
		for _, p := range drop.Pairs {
			if p.RequestAuthorized {
				authorized++
			}
			if p.Gated == nil || p.Gated.Memory.Variant != engine.VariantGated || p.Written.Memory.Variant != engine.VariantWritten {
				t.Fatalf("%s: pair %+v has wrong arms", c.ID, p)
			}
		}
		if block.Counts.Refused != authorized || block.Counts.Prevented != len(final.FormedProbeIDs) {
			t.Fatalf("%s: block_all counts %+v (authorized %d, formed %v)", c.ID, block.Counts, authorized, final.FormedProbeIDs)
		}
		for _, p := range block.Pairs {
			if p.Written.Outcome.RequestedActionTaken && (p.Gated.Outcome.Decision != engine.PolicyBlocked || p.Gated.Gate == nil || p.Gated.Gate.Allowed) {
				t.Fatalf("%s: block_all let %s through: %+v", c.ID, p.ProbeID, p.Gated.Outcome)
			}
		}
	}
	if formedChains == 0 {
		t.Fatal("no forged chain formed false authority: the test proves nothing")
	}
}

func TestEvaluateChainNotApplicableOnFreeText(t *testing.T) {
	d := procurement.Domain{}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	m, err := ExactMemory(d, c, c.LastBlock(), engine.ArchFreeText)
	if err != nil {
		t.Fatal(err)
	}
	ch := SafeguardChain{Domain: d, Case: c, Condition: "incremental_text", Architecture: engine.ArchFreeText, ChainRef: "t",
		Versions: []SafeguardVersion{{Block: c.LastBlock(), MemoryID: "m", Payload: m.Payload}}}
	ev, err := EvaluateChain(context.Background(), SafeguardSpec{Chain: ch, Policies: testPolicies(), Executor: NewBuiltinExecutor(d, 1), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	drop, _ := ev.Policy("drop_unknown")
	if drop.NotApplicable == "" || drop.Counts.NotApplicable != len(c.Probes) || drop.Counts.Prevented+drop.Counts.Refused != 0 {
		t.Fatalf("free text under a typed policy: %+v", drop)
	}
	for _, p := range drop.Pairs {
		if p.Effect != EffectNotApplicable || p.Gated != nil {
			t.Fatalf("pair %+v", p)
		}
	}
	block, _ := ev.Policy("block_all")
	if block.NotApplicable != "" || block.Counts.NotApplicable != 0 {
		t.Fatalf("a gate-only policy applies to free text: %+v", block.Counts)
	}
}
