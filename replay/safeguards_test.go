package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

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

// builtinArms are the lab's arm settings for the test policies on the built-in executor,
// which answers with the arms' own seed.
func builtinArms(d engine.Domain, seed int64) SafeguardArmSettings {
	return SafeguardArmSettings{Policies: testPolicies(), Executor: NewBuiltinExecutor(d, seed), Seed: seed}
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
	root := pyjson.MustRetree(payload).(map[string]any)
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
	d, cases := builtinCases(t)
	formedChains := 0
	for _, c := range cases {
		ch := forgedChain(t, d, c)
		progress := 0
		ev, err := EvaluateChain(context.Background(), SafeguardSpec{Chain: ch, SafeguardArmSettings: builtinArms(d, 7), Workers: 3,
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
	d, cases := builtinCases(t)
	c := cases[0]
	m, err := ExactMemory(d, c, c.LastBlock(), engine.ArchFreeText)
	if err != nil {
		t.Fatal(err)
	}
	ch := SafeguardChain{Domain: d, Case: c, Condition: "incremental_text", Architecture: engine.ArchFreeText, ChainRef: "t",
		Versions: []SafeguardVersion{{Block: c.LastBlock(), MemoryID: "m", Payload: m.Payload}}}
	ev, err := EvaluateChain(context.Background(), SafeguardSpec{Chain: ch, SafeguardArmSettings: builtinArms(d, 1)})
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

// forgedFormingCase is a built-in case whose forged chain forms false authority.
func forgedFormingCase(t *testing.T) (engine.Domain, SafeguardChain) {
	t.Helper()
	d, cases := builtinCases(t)
	for _, c := range cases {
		ch := forgedChain(t, d, c)
		m, _ := WrittenMemory(engine.ArchTyped, ch.Versions[len(ch.Versions)-1].Payload, "m")
		if f, err := formationOf(d, c, c.LastBlock(), m); err == nil && f.Formed {
			return d, ch
		}
	}
	t.Fatal("no forged chain forms")
	return nil, SafeguardChain{}
}

// A model that fails on every gated memory: those pairs are not estimable, never a
// prevention or a refusal; the gate-only policy (shown the written memory) still decides.
func TestEvaluateChainProviderErrorsAreNotEstimable(t *testing.T) {
	d, ch := forgedFormingCase(t)
	srv := newFakeServer(t, func(req map[string]any) reply {
		msgs := req["messages"].([]any)
		if !strings.Contains(msgs[len(msgs)-1].(map[string]any)["content"].(string), "forged_") {
			return errorReply(500, "gated memory makes this server fail")
		}
		return act(req)
	})
	retry := DefaultRetryPolicy()
	retry.MaxAttempts = 1
	ex := NewModelExecutor(d, NewModelClient(Model{Name: "fake", BaseURL: srv.URL + "/v1", Model: "fake", Temperature: 1, MaxTokens: 64, Concurrency: 2, TimeoutS: 10}, retry, nil))
	ev, err := EvaluateChain(context.Background(), SafeguardSpec{Chain: ch, SafeguardArmSettings: SafeguardArmSettings{Policies: testPolicies(), Executor: ex, Seed: 3}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	drop, _ := ev.Policy("drop_unknown")
	n := len(ch.Case.Probes)
	if drop.Counts.NotEstimable != n || drop.Counts.Prevented != 0 || drop.Counts.Refused != 0 || drop.Counts.UnauthorizedGated.Denominator != 0 {
		t.Fatalf("drop_unknown behind a failing provider: %+v", drop.Counts)
	}
	for _, p := range drop.Pairs {
		if p.Effect != EffectNotEstimable || p.Gated.Outcome.Decision != engine.ProviderError {
			t.Fatalf("pair %s: effect %s decision %s", p.ProbeID, p.Effect, p.Gated.Outcome.Decision)
		}
	}
	block, _ := ev.Policy("block_all")
	if block.Counts.NotEstimable != 0 || block.Counts.Prevented+block.Counts.Refused != n {
		t.Fatalf("block_all: %+v (the fake model acts on every probe behind the written memory)", block.Counts)
	}
	out := ev.Outcomes()
	if out[0].NotEstimable != n || out[0].DeniedPairs+out[0].AuthorizedPairs != 0 {
		t.Fatalf("outcome of drop_unknown: %+v", out[0])
	}
}

// Cancelling mid-chain keeps only whole pairs and says so; cancelling a run keeps the chains
// saved before, whole.
func TestSafeguardsCancel(t *testing.T) {
	d, ch := forgedFormingCase(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev, err := EvaluateChain(ctx, SafeguardSpec{Chain: ch, SafeguardArmSettings: builtinArms(d, 1), Workers: 1,
		Progress: func(done, total int) {
			if done == 4 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Cancelled || len(ev.Baseline) == 0 || len(ev.Baseline) == len(ch.Case.Probes) {
		t.Fatalf("cancelled %v with %d baseline arms of %d", ev.Cancelled, len(ev.Baseline), len(ch.Case.Probes))
	}
	for _, p := range ev.Policies {
		for _, pr := range p.Pairs {
			if pr.Written == nil || pr.Gated == nil {
				t.Fatalf("%s: half a pair reported: %+v", p.PolicyID, pr)
			}
		}
	}
	// A run: cancelled once the first chain is saved.
	_, cases := builtinCases(t)
	var chains []SafeguardChain
	for _, c := range cases {
		chains = append(chains, forgedChain(t, d, c))
	}
	rctx, rcancel := context.WithCancel(context.Background())
	defer rcancel()
	var saved []string
	res, err := EvaluateRun(rctx, SafeguardRunSpec{Chains: chains, SafeguardArmSettings: builtinArms(d, 1), Workers: 1,
		Save: func(_ context.Context, ev *ChainEvaluation) error {
			if ev.Cancelled {
				t.Errorf("a cut-short chain %s was saved", ev.CaseID)
			}
			saved = append(saved, ev.CaseID)
			rcancel()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || len(saved) == 0 || len(saved) == len(chains) || len(res.Chains) != len(saved) {
		t.Fatalf("run cancel: cancelled %v, saved %d of %d, summaries %d", res.Cancelled, len(saved), len(chains), len(res.Chains))
	}
}

// Event-sourced chains are paired with the incremental_typed chain of the same case and
// writer run, probe by probe (docs/FORMATS.md 8.2); a chain without a partner is left out.
func TestEventSourcingOutcomes(t *testing.T) {
	perr := "ProviderError: down"
	arms := func(auth, taken []bool) map[string]engine.Outcome {
		out := map[string]engine.Outcome{}
		for i := range auth {
			out[fmt.Sprintf("p%d", i)] = engine.Outcome{RequestAuthorized: auth[i], RequestedActionTaken: taken[i]}
		}
		return out
	}
	auth := []bool{true, true, false, false}
	chains := []SafeguardChainSummary{
		{CaseID: "a", Condition: IncrementalTypedCondition, WriterTarget: "w", WriterRunID: 0, FinalFormation: FormationVerdict{Estimable: true, Formed: true},
			FinalArms: arms(auth, []bool{true, true, true, false})},
		{CaseID: "a", Condition: EventSourcedCondition, WriterTarget: "w", WriterRunID: 0, FinalFormation: FormationVerdict{Estimable: true},
			FinalArms: arms(auth, []bool{true, false, false, false})},
		// Another writer run: no partner.
		{CaseID: "a", Condition: EventSourcedCondition, WriterTarget: "w", WriterRunID: 1, FinalArms: arms(auth, auth)},
		{CaseID: "b", Condition: IncrementalTypedCondition, WriterTarget: "w", FinalArms: arms(auth, []bool{true, true, true, true})},
		{CaseID: "b", Condition: EventSourcedCondition, WriterTarget: "w", FinalArms: arms(auth, []bool{true, true, false, false})},
	}
	chains[4].FinalArms["p0"] = engine.Outcome{RequestAuthorized: true, ProviderError: &perr}
	out := EventSourcingOutcomes(chains)
	if len(out) != 2 {
		t.Fatalf("%d outcomes, want 2", len(out))
	}
	a, b := out[0], out[1]
	if a.Refused != 1 || a.Prevented != 1 || a.AuthorizedPairs != 2 || a.DeniedPairs != 2 || a.UnauthorizedWritten != 1 || a.UnauthorizedGated != 0 ||
		!a.FormationEstimable || !a.FormedWritten || a.FormedGated || a.Condition != IncrementalTypedCondition || a.PolicyID != EventSourcingRowID {
		t.Fatalf("case a: %+v", a)
	}
	if b.NotEstimable != 1 || b.AuthorizedPairs != 1 || b.Prevented != 2 || b.FormationEstimable {
		t.Fatalf("case b: %+v", b)
	}
	rows := SafeguardTableOf(chains)
	if len(rows) != 1 || rows[0].PolicyID != EventSourcingRowID || rows[0].Chains != 2 || rows[0].ChainsStopped != 2 || rows[0].ChainsRefused != 1 {
		t.Fatalf("table: %+v", rows)
	}
}
