package safeguardtests_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/safeguards"
)

var allDomains = []string{"procurement", "cybersecurity", "finance"}

func gate(t *testing.T, p engine.Policy, d engine.Domain, c *engine.Case, block int, chain []engine.MemoryVersion, pr engine.Probe) (engine.GatedMemory, engine.GateDecision) {
	t.Helper()
	ev := chain[len(chain)-1].Evidence
	g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: block, Evidence: ev, Condition: "incremental_typed", Versions: chain})
	if err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	gd := p.Gate.GateAction(engine.ActionInput{Domain: d, Case: c, Block: block, Probe: pr, Evidence: g.Evidence,
		Outcome: engine.Outcome{Decision: engine.ExecuteRequested}, Condition: "incremental_typed", Versions: chain, Gated: &g})
	return g, gd
}

// On the faithful writer's chains MemTX never lets an unauthorized request through, lets
// every authorized one through in cybersecurity and finance, and in procurement refuses only
// the requests whose grant replaced a revoked one (MemTX blocks a write derived from a revoked
// record; EAL-Bench's procurement ledger lets a replace target a revoked record).
func TestMemTXOnFaithfulChains(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range allDomains {
		d, cases := builtinCases(t, id)
		authorized, allowed := 0, 0
		for _, c := range cases {
			last := c.LastBlock()
			chain := faithfulChain(t, d, c, last)
			for _, pr := range c.Probes {
				v, err := engine.Oracle(d, c, last, pr.Request)
				if err != nil {
					t.Fatal(err)
				}
				g, gd := gate(t, p, d, c, last, chain, pr)
				if !v.Authorized && gd.Allowed {
					t.Errorf("%s %s: unauthorized request allowed (%s)", c.ID, pr.ID, gd.Reason)
				}
				if !v.Authorized {
					continue
				}
				authorized++
				if gd.Allowed {
					allowed++
					continue
				}
				derived := slices.ContainsFunc(g.Records, func(r engine.RecordDecision) bool {
					return slices.ContainsFunc(r.Reasons, func(x string) bool { return strings.HasPrefix(x, safeguards.TxReasonDerivedFromRevoked) })
				})
				if id != "procurement" || !derived {
					t.Errorf("%s %s: authorized request refused: %s (records %+v)", c.ID, pr.ID, gd.Reason, g.Records)
				}
			}
		}
		t.Logf("%s: %d of %d authorized requests allowed on faithful chains", id, allowed, authorized)
		if allowed == 0 {
			t.Errorf("%s: no authorized request allowed", id)
		}
	}
}

// The decisions name a lifecycle state for every record, a reason for every one that is not
// action-safe, and keep exactly the records the executor is shown.
func TestMemTXRecordDecisions(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range allDomains {
		d, cases := builtinCases(t, id)
		for _, c := range cases {
			chain := faithfulChain(t, d, c, c.LastBlock())
			g, _ := gate(t, p, d, c, c.LastBlock(), chain, c.Probes[0])
			shown, err := d.ParseTyped(g.Evidence.Payload)
			if err != nil {
				t.Fatalf("%s: shown memory does not parse: %v", c.ID, err)
			}
			kept := map[string]bool{}
			for _, r := range shown {
				kept[r.AuthorizationID()] = true
			}
			for _, r := range g.Records {
				if !slices.Contains(safeguards.MTXLifecycleStates, r.State) {
					t.Errorf("%s %s: state %q", c.ID, r.AuthorizationID, r.State)
				}
				if r.State != safeguards.MTXStateActionSafe && len(r.Reasons) == 0 {
					t.Errorf("%s %s: %s with no reason", c.ID, r.AuthorizationID, r.State)
				}
				if r.Kept != kept[r.AuthorizationID] {
					t.Errorf("%s %s: kept %v, shown %v", c.ID, r.AuthorizationID, r.Kept, kept[r.AuthorizationID])
				}
				if r.Kept != (r.State == safeguards.MTXStateCommitted || r.State == safeguards.MTXStateActionSafe) {
					t.Errorf("%s %s: kept %v in state %s", c.ID, r.AuthorizationID, r.Kept, r.State)
				}
			}
		}
	}
}

// A laundered grant: the writer records a legitimate grant under a new id, with its limits
// widened, citing a turn of a principal who cannot grant. MemTX quarantines it on evidence
// (the cited turn's principal, never the memory's own issuer field), so the request only
// it covers is refused, in every domain.
func TestMemTXRefusesLaunderedGrant(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range allDomains {
		d, cases := builtinCases(t, id)
		rules := d.(engine.SourceAuthorityRules)
		schema := d.Schema()
		caught, unauthorized := 0, 0
		for _, c := range cases {
			last := c.LastBlock()
			chain := faithfulChain(t, d, c, last)
			capable := map[string]bool{}
			for _, pr := range rules.AuthorityCapablePrincipals(c) {
				capable[pr] = true
			}
			var turn engine.Turn
			found := false
			for _, b := range c.Blocks {
				for _, tu := range b.Turns {
					if !found && !capable[rules.TurnPrincipal(tu)] {
						turn, found = tu, true
					}
				}
			}
			if !found {
				continue
			}
			for i := range chain {
				if chain[i].Block < turn.BlockIndex {
					chain[i].Evidence = emptyTyped(t, d)
					continue
				}
				chain[i].Evidence = launder(t, d, schema, chain[i].Evidence, turn.ID)
			}
			invented, err := d.ParseTyped(chain[len(chain)-1].Evidence.Payload)
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range c.Probes {
				v, _ := engine.Oracle(d, c, last, pr.Request)
				if !engine.Authorizes(d, c, invented, pr.Request).Authorized {
					continue
				}
				if !v.Authorized {
					unauthorized++
				}
				g, gd := gate(t, p, d, c, last, chain, pr)
				if gd.Allowed {
					t.Errorf("%s %s: laundered grant authorized the request (%s)", c.ID, pr.ID, gd.Reason)
					continue
				}
				for _, r := range g.Records {
					if r.State != safeguards.MTXStateQuarantined || !strings.HasPrefix(r.Reasons[0], safeguards.TxReasonNotAuthorityCapable+":"+turn.ID) {
						t.Errorf("%s %s: %s %v, want quarantined for %s", c.ID, r.AuthorizationID, r.State, r.Reasons, turn.ID)
					}
				}
				caught++
			}
		}
		t.Logf("%s: %d requests covered only by laundered grants refused (%d of them unauthorized in the ledger)", id, caught, unauthorized)
		if caught == 0 {
			t.Errorf("%s: no request was covered by a laundered grant alone", id)
		}
	}
}

func emptyTyped(t *testing.T, d engine.Domain) engine.Evidence {
	tree, err := pyjson.Retree(d.TypedPayload(nil))
	if err != nil {
		t.Fatal(err)
	}
	return engine.Evidence{Kind: engine.MemoryEvidence, Payload: tree}
}

// launder rewrites every record of a memory as a claim: a new id, limits widened, no
// supersedes, and the one cited turn given.
func launder(t *testing.T, d engine.Domain, schema engine.RecordSchema, ev engine.Evidence, turn string) engine.Evidence {
	t.Helper()
	records, err := d.ParseTyped(ev.Payload)
	if err != nil {
		t.Fatal(err)
	}
	payload := d.TypedPayload(records)
	auths, _ := payload["authorizations"].([]any)
	for _, a := range auths {
		rec := a.(map[string]any)
		for _, f := range schema.Fields {
			switch {
			case f.Role == engine.RoleID:
				engine.SetPath(rec, f.Path, engine.GetPath(rec, f.Path).(string)+"_claim")
			case f.Role == engine.RoleSupersedes:
				if f.NullText != "" {
					engine.SetPath(rec, f.Path, f.NullText)
				} else {
					engine.SetPath(rec, f.Path, nil)
				}
			case f.Role == engine.RoleSources:
				if f.Joined != "" {
					engine.SetPath(rec, f.Path, turn)
				} else {
					engine.SetPath(rec, f.Path, []any{turn})
				}
			case f.Kind == engine.KindLimit && f.Scope:
				if f.Direction == engine.UpperLimit {
					engine.SetPath(rec, f.Path, int64(math.MaxInt32))
				} else {
					engine.SetPath(rec, f.Path, int64(0))
				}
			}
		}
	}
	tree, err := pyjson.Retree(payload)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ParseTyped(tree); err != nil {
		t.Fatalf("laundered memory does not parse: %v", err)
	}
	return engine.Evidence{Kind: engine.MemoryEvidence, Payload: tree}
}

// MemTX judges typed records: free text and empty memory are "not applicable".
func TestMemTXNotApplicable(t *testing.T) {
	p := safeguards.MemTX()
	d, cases := builtinCases(t, "procurement")
	c := cases[0]
	for _, ev := range []engine.Evidence{
		{Kind: engine.MemoryEvidence, Payload: "# Current authorization state\n"},
		{Kind: engine.EmptyEvidence},
		{Kind: engine.FullHistoryEvidence, History: "..."},
	} {
		_, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: c.LastBlock(), Evidence: ev})
		if !errors.Is(err, engine.ErrNotApplicable) {
			t.Errorf("evidence kind %d: %v, want not applicable", ev.Kind, err)
		}
	}
	if ps, err := safeguards.Lookup(safeguards.MemTXID); err != nil || ps[0].Memory == nil || ps[0].Gate == nil {
		t.Fatalf("memtx not registered with both parts: %v", err)
	}
}

// Without versions the memory is one transaction at the block from nothing, and an action
// other than the request is refused.
func TestMemTXSingleVersionAndOtherAction(t *testing.T) {
	p := safeguards.MemTX()
	for _, id := range allDomains {
		d, c, chain := firstCaseChain(t, id)
		last := c.LastBlock()
		ev := chain[last].Evidence
		g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: ev})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Records) == 0 {
			t.Fatalf("%s: no records", id)
		}
		for _, pr := range c.Probes {
			gd := p.Gate.GateAction(engine.ActionInput{Domain: d, Case: c, Block: last, Probe: pr, Evidence: g.Evidence,
				Outcome: engine.Outcome{Decision: engine.ExecuteOther}, Gated: &g})
			if gd.Allowed || !strings.Contains(gd.Reason, "action_differs_from_request") {
				t.Errorf("%s %s: other action %+v", id, pr.ID, gd)
			}
		}
	}
}
