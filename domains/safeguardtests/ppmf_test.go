package safeguardtests_test

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/engine/safeguards/safeguardtest"
)

var ppmfDomains = []string{"procurement", "cybersecurity", "finance"}

// ppmfFixture is safeguardtest.PPMFFixture under this package's field names.
type ppmfFixture struct {
	d       engine.Domain
	c       *engine.Case
	last    int
	record  engine.Record
	issued  int
	issuer  engine.Turn
	relayed engine.Turn
	quiet   int
	probe   engine.Probe
}

var trustOf = safeguardtest.TrustOf

// ppmfFixtureOf is the record-binding fixture of the domain's first built-in case.
func ppmfFixtureOf(t *testing.T, id string) ppmfFixture {
	t.Helper()
	d, cases := builtinCases(t, id)
	f := safeguardtest.PPMFFixtureOf(t, d, cases[0])
	return ppmfFixture{d: f.D, c: f.C, last: f.Last, record: f.Record, issued: f.Issued, issuer: f.Issuer, relayed: f.Relayed, quiet: f.Quiet, probe: f.Probe}
}

func withCitations(t *testing.T, d engine.Domain, r engine.Record, ids ...string) engine.Record {
	return safeguardtest.WithCitations(t, d, r, ids...)
}

var chainFrom = safeguardtest.ChainFrom

func codes(reasons []string) []string {
	var out []string
	for _, r := range reasons {
		code, _, _ := strings.Cut(r, ":")
		out = append(out, code)
	}
	return out
}

// TestPPMFBindingPaths builds, in each domain, one memory per binding path from a real
// record of a built-in case and checks the binding, the trust, the reasons and the gate's
// verdict on an in-scope request the record authorizes.
func TestPPMFBindingPaths(t *testing.T) {
	for _, id := range ppmfDomains {
		f := ppmfFixtureOf(t, id)
		d, c := f.d, f.c
		otherBlock := 0
		if f.issued == 0 {
			otherBlock = 1
		}
		elsewhere := c.Blocks[otherBlock].Turns[0]
		var weaker engine.Turn
		for _, tu := range c.Blocks[f.issued].Turns {
			if tu.ID != f.issuer.ID && trustOf(d, c, tu) < trustOf(d, c, f.issuer) {
				weaker = tu
				break
			}
		}
		if weaker.ID == "" {
			t.Fatalf("%s: block %d has no turn less trusted than the issuer's", id, f.issued)
		}
		issuerTrust := trustOf(d, c, f.issuer)
		cases := []struct {
			name      string
			record    engine.Record
			condition string
			chain     []engine.MemoryVersion
			nilChain  bool
			method    string
			codes     []string
			trust     engine.Trust
			bound     []string
			input     string
			allowed   bool
			gate      string
		}{
			{name: "pointer to the issuing turn", record: withCitations(t, d, f.record, f.issuer.ID), condition: "incremental_typed",
				method: safeguards.BindPointer, codes: []string{safeguards.ReasonPPMFPointerBound}, trust: issuerTrust,
				bound: []string{f.issuer.ID}, input: "block " + itoa(f.issued), allowed: true, gate: safeguards.ReasonPPMFSupported},
			{name: "cited turn outside the input: argument matching finds the issuer", record: withCitations(t, d, f.record, elsewhere.ID),
				condition: "incremental_typed", method: safeguards.BindArgument, codes: []string{safeguards.ReasonPPMFArgumentMatched},
				trust: issuerTrust, bound: []string{f.issuer.ID}, input: "block " + itoa(f.issued), allowed: true, gate: safeguards.ReasonPPMFSupported},
			{name: "rewritten at a relayed turn's block: the relay governs", record: withCitations(t, d, f.record, f.issuer.ID),
				condition: "incremental_typed", chain: chainFrom(d, withCitations(t, d, f.record, f.issuer.ID), f.relayed.BlockIndex, f.last),
				method: safeguards.BindArgument, trust: engine.TrustExternal, input: "block " + itoa(f.relayed.BlockIndex),
				allowed: false, gate: safeguards.ReasonPPMFInsufficientTrust},
			{name: "written where nothing names it: fails closed", record: withCitations(t, d, f.record, f.issuer.ID),
				condition: "incremental_typed", chain: chainFrom(d, withCitations(t, d, f.record, f.issuer.ID), f.quiet, f.last),
				method: safeguards.BindNone, codes: []string{safeguards.ReasonPPMFUnbound}, trust: engine.TrustUnknown,
				input: "block " + itoa(f.quiet), allowed: false, gate: safeguards.ReasonPPMFInsufficientTrust},
			{name: "merged with a weaker source: non-amplification", record: withCitations(t, d, f.record, f.issuer.ID, weaker.ID),
				condition: "incremental_typed", method: safeguards.BindPointer,
				codes: []string{safeguards.ReasonPPMFPointerBound, safeguards.ReasonPPMFNonAmplification},
				trust: trustOf(d, c, weaker), bound: caseOrder(c, f.issuer.ID, weaker.ID), input: "block " + itoa(f.issued),
				allowed: false, gate: safeguards.ReasonPPMFInsufficientTrust},
			{name: "event-sourced writer: the block alone is its input", record: withCitations(t, d, f.record, f.issuer.ID),
				condition: engine.EventSourcedCondition, chain: chainFrom(d, withCitations(t, d, f.record, f.issuer.ID), f.last, f.last),
				input: "block " + itoa(f.last), allowed: false},
			{name: "one-shot writer: the whole history is its input", record: withCitations(t, d, f.record, f.issuer.ID),
				condition: "one_shot_typed", chain: chainFrom(d, withCitations(t, d, f.record, f.issuer.ID), f.last, f.last),
				method: safeguards.BindPointer, codes: []string{safeguards.ReasonPPMFPointerBound}, trust: issuerTrust,
				bound: []string{f.issuer.ID}, input: "blocks 0.." + itoa(f.last), allowed: true, gate: safeguards.ReasonPPMFSupported},
			{name: "incremental writer that wrote it only at the last block: its issuer is out of the input",
				record: withCitations(t, d, f.record, f.issuer.ID), condition: "incremental_typed",
				chain: chainFrom(d, withCitations(t, d, f.record, f.issuer.ID), f.last, f.last), input: "block " + itoa(f.last), allowed: false},
			{name: "one memory, no chain: read as written at the block from everything visible", record: withCitations(t, d, f.record, f.issuer.ID),
				condition: "incremental_typed", nilChain: true, method: safeguards.BindPointer,
				codes: []string{safeguards.ReasonPPMFSingleMemory, safeguards.ReasonPPMFPointerBound}, trust: issuerTrust,
				bound: []string{f.issuer.ID}, input: "blocks 0.." + itoa(f.last), allowed: true, gate: safeguards.ReasonPPMFSupported},
		}
		for _, tc := range cases {
			t.Run(id+"/"+tc.name, func(t *testing.T) {
				chain := tc.chain
				if chain == nil && !tc.nilChain {
					chain = chainFrom(d, tc.record, f.issued, f.last)
				}
				ev := typedEvidence(d, []engine.Record{tc.record})
				prov, err := safeguards.BindProvenance(d, c, f.last, ev, tc.condition, chain)
				if err != nil {
					t.Fatal(err)
				}
				if len(prov.Records) != 1 || len(prov.Records[0].Bindings) != 1 {
					t.Fatalf("want one record with one binding (every field written at once), got %+v", prov.Records)
				}
				rp, fb := prov.Records[0], prov.Records[0].Bindings[0]
				if fb.Input != tc.input {
					t.Errorf("writer input %q, want %q", fb.Input, tc.input)
				}
				if tc.method != "" {
					if fb.Method != tc.method {
						t.Errorf("method %s, want %s (reasons %q)", fb.Method, tc.method, rp.Reasons)
					}
					if rp.Trust != tc.trust {
						t.Errorf("trust %s, want %s (reasons %q)", rp.Trust, tc.trust, rp.Reasons)
					}
				}
				if tc.codes != nil && !reflect.DeepEqual(codes(rp.Reasons), tc.codes) {
					t.Errorf("reasons %q, want codes %q", rp.Reasons, tc.codes)
				}
				if tc.bound != nil && !reflect.DeepEqual(rp.Bound, tc.bound) {
					t.Errorf("bound %q, want %q", rp.Bound, tc.bound)
				}
				if tc.method == safeguards.BindArgument && tc.trust == engine.TrustExternal {
					// The relayed turn is among the candidates, and so the least trusted governs.
					if !slices.Contains(rp.Bound, f.relayed.ID) {
						t.Errorf("bound %q lacks the relayed turn %s", rp.Bound, f.relayed.ID)
					}
					want := safeguards.ReasonPPMFArgumentMatched
					if len(rp.Bound) > 1 {
						want = safeguards.ReasonPPMFAmbiguous
					}
					if codes(rp.Reasons)[0] != want {
						t.Errorf("reasons %q, want %s", rp.Reasons, want)
					}
				}
				name, args := d.RequestCall(f.probe)
				o := scored(t, d, c, f.probe, name, args, f.last)
				v := safeguards.GatePPMF(engine.ActionInput{Domain: d, Case: c, Block: f.last, Probe: f.probe, Evidence: ev,
					Outcome: o, Condition: tc.condition, Versions: chain})
				if v.Decision.Allowed != tc.allowed {
					t.Fatalf("allowed %v, want %v: %s", v.Decision.Allowed, tc.allowed, v.Decision.Reason)
				}
				if tc.gate != "" && !strings.HasPrefix(v.Decision.Reason, tc.gate+": ") {
					t.Errorf("gate reason %q, want %s", v.Decision.Reason, tc.gate)
				}
				if len(v.Authorizing) != 1 || v.Authorizing[0].AuthorizationID != f.record.AuthorizationID() {
					t.Errorf("authorizing records %v, want just %s", v.Authorizing, f.record.AuthorizationID())
				}
				// Through RunTrial the gate reads the transformation's own decisions: same verdict.
				g, err := safeguards.PPMF().Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: f.last, Evidence: ev,
					Condition: tc.condition, Versions: chain})
				if err != nil {
					t.Fatal(err)
				}
				in := engine.ActionInput{Domain: d, Case: c, Block: f.last, Probe: f.probe, Evidence: g.Evidence,
					Outcome: o, Condition: tc.condition, Versions: chain, Gated: &g}
				if got := safeguards.PPMF().Gate.GateAction(in); got != v.Decision {
					t.Errorf("with the transformation's decisions: %+v, without: %+v", got, v.Decision)
				}
				g.Records[0].Trust = "no such level"
				if got := safeguards.PPMF().Gate.GateAction(in); got.Allowed {
					t.Errorf("an unreadable trust level let the action run: %s", got.Reason)
				}
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// caseOrder lists turn ids in the order the case holds them.
func caseOrder(c *engine.Case, ids ...string) []string {
	var out []string
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			if slices.Contains(ids, t.ID) {
				out = append(out, t.ID)
			}
		}
	}
	return out
}

// TestPPMFFieldLevelProvenance: a record patched later has one binding per block its fields
// last changed at, each bound to that block's own source (the faithful chain of a built-in
// case whose ledger patches a record).
func TestPPMFFieldLevelProvenance(t *testing.T) {
	for _, id := range ppmfDomains {
		d, cases := builtinCases(t, id)
		found := false
		for _, c := range cases {
			for _, e := range c.Events {
				if e.Type != "patch" || found {
					continue
				}
				chain := faithfulChain(t, d, c, e.BlockIndex)
				prov, err := safeguards.BindProvenance(d, c, e.BlockIndex, chain[e.BlockIndex].Evidence, "incremental_typed", chain)
				if err != nil {
					t.Fatal(err)
				}
				rp, ok := prov.Lookup(e.AuthorizationID)
				if !ok {
					continue
				}
				found = true
				if len(rp.Bindings) < 2 {
					t.Fatalf("%s %s: patched record has bindings %+v, want one per change block", id, e.AuthorizationID, rp.Bindings)
				}
				lastB := rp.Bindings[len(rp.Bindings)-1]
				if lastB.Block != e.BlockIndex || lastB.Method != safeguards.BindPointer || len(lastB.Turns) != 1 || lastB.Turns[0].ID != e.SourceTurnIDs[0] {
					t.Errorf("%s %s: patch binding %+v, want block %d bound to %s", id, e.AuthorizationID, lastB, e.BlockIndex, e.SourceTurnIDs[0])
				}
				if !slices.Contains(lastB.Fields, "source_turn_ids") {
					t.Errorf("%s: the patch's fields %q lack the merged citations", id, lastB.Fields)
				}
				if first := rp.Bindings[0]; first.Block >= e.BlockIndex || first.Method != safeguards.BindPointer {
					t.Errorf("%s: first binding %+v, want the issue's block bound by pointer", id, first)
				}
				if rp.Trust < engine.TrustUserConfirmed {
					t.Errorf("%s: a faithful patched record trusts %s", id, rp.Trust)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no built-in case patches a record", id)
		}
	}
}

// TestPPMFGateReasons covers the gate's refusals that do not depend on binding.
func TestPPMFGateReasons(t *testing.T) {
	for _, id := range ppmfDomains {
		f := ppmfFixtureOf(t, id)
		d, c := f.d, f.c
		ev := typedEvidence(d, []engine.Record{f.record})
		name, args := d.RequestCall(f.probe)
		good := scored(t, d, c, f.probe, name, args, f.last)
		str := func(s string) *string { return &s }
		outOfScope := engine.Probe{}
		for _, p := range c.Probes {
			if p.Scope == "out_of_scope" && d.Deny(c, f.record, p.Request) != "" {
				outOfScope = p
				break
			}
		}
		cases := []struct {
			name    string
			probe   engine.Probe
			outcome engine.Outcome
			ev      engine.Evidence
			want    string
		}{
			{"supported", f.probe, good, ev, safeguards.ReasonPPMFSupported},
			{"no tool call", f.probe, engine.Outcome{Decision: engine.ExecuteRequested}, ev, safeguards.ReasonPPMFNoToolCall},
			{"undeclared tool", f.probe, engine.Outcome{Decision: engine.ExecuteRequested, RawToolName: str("transfer_funds"), RawToolArguments: map[string]any{}}, ev, safeguards.ReasonPPMFUndeclaredTool},
			{"empty memory supports nothing", f.probe, good, engine.Evidence{Kind: engine.EmptyEvidence}, safeguards.ReasonPPMFNoSupport},
			{"full history has no records", f.probe, good, engine.Evidence{Kind: engine.FullHistoryEvidence, History: "x"}, safeguards.ReasonPPMFUnreadable},
			{"out-of-scope request", outOfScope, scored(t, d, c, outOfScope, firstOf(d.RequestCall(outOfScope)), secondOf(d.RequestCall(outOfScope)), f.last), ev, safeguards.ReasonPPMFNoSupport},
		}
		if id == "procurement" {
			// Only procurement's action spells its request out in arguments; the other domains'
			// unresolvable courses are tested with their CandidateRequest.
			cases = append(cases, struct {
				name    string
				probe   engine.Probe
				outcome engine.Outcome
				ev      engine.Evidence
				want    string
			}{"request the call does not resolve", f.probe, engine.Outcome{Decision: engine.ExecuteRequested, RawToolName: str(name),
				RawToolArguments: map[string]any{"vendor": 7}}, ev, safeguards.ReasonPPMFUnresolved})
		}
		for _, tc := range cases {
			t.Run(id+"/"+tc.name, func(t *testing.T) {
				v := safeguards.GatePPMF(engine.ActionInput{Domain: d, Case: c, Block: f.last, Probe: tc.probe, Evidence: tc.ev,
					Outcome: tc.outcome, Condition: "faithful_typed", Versions: nil})
				wantAllowed := tc.want == safeguards.ReasonPPMFSupported
				if v.Decision.Allowed != wantAllowed {
					t.Fatalf("allowed %v: %s", v.Decision.Allowed, v.Decision.Reason)
				}
				if !strings.HasPrefix(v.Decision.Reason, tc.want+": ") {
					t.Errorf("reason %q, want %s", v.Decision.Reason, tc.want)
				}
			})
		}
	}
}

func firstOf(s string, _ map[string]any) string          { return s }
func secondOf(_ string, a map[string]any) map[string]any { return a }

// TestPPMFTransformKeepsMemory: the transformation shows the executor the memory as written
// and reports every record's trust, sources and bound sources; memories it cannot bind are
// not applicable, never a decision.
func TestPPMFTransformKeepsMemory(t *testing.T) {
	p := safeguards.PPMF()
	if p.ID != safeguards.PPMFID || p.Memory == nil || p.Gate == nil {
		t.Fatalf("policy %+v", p)
	}
	if ps, err := safeguards.Lookup(safeguards.PPMFID); err != nil || len(ps) != 1 {
		t.Fatalf("registry lookup: %v %v", ps, err)
	}
	for _, id := range ppmfDomains {
		d, c, chain := firstCaseChain(t, id)
		last := c.LastBlock()
		ev := chain[last].Evidence
		g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: ev, Condition: "faithful_typed", Versions: chain})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g.Evidence, ev) {
			t.Errorf("%s: the executor's memory changed", id)
		}
		recs, _ := d.Replay(c, last)
		if len(g.Records) != len(recs) {
			t.Fatalf("%s: %d decisions for %d records", id, len(g.Records), len(recs))
		}
		for _, r := range g.Records {
			if !r.Kept || r.Trust == "" || len(r.BoundSources) == 0 || len(r.Sources) == 0 || len(r.Reasons) == 0 {
				t.Errorf("%s: decision %+v", id, r)
			}
			if lvl, err := engine.ParseTrust(r.Trust); err != nil || lvl < engine.TrustUserConfirmed {
				t.Errorf("%s: faithful record %s trusts %s (%v)", id, r.AuthorizationID, r.Trust, err)
			}
		}
		raw, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: rawTypedEvidence(d, recs),
			Condition: "faithful_typed", Versions: chain})
		if err != nil || !reflect.DeepEqual(raw.Records, g.Records) {
			t.Errorf("%s: the serialiser's Go values bind differently from the JSON tree: %v", id, err)
		}
		text := engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.FaithfulText(recs)}
		if g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: text, Condition: "faithful_text"}); err != nil || len(g.Records) != len(recs) {
			t.Errorf("%s: canonical free text: %v (%d records)", id, err, len(g.Records))
		}
		for name, bad := range map[string]engine.Evidence{
			"free text off the canonical layout": {Kind: engine.MemoryEvidence, Payload: "The CFO said it is fine."},
			"full history":                       {Kind: engine.FullHistoryEvidence, History: "history"},
		} {
			if _, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: bad}); !errors.Is(err, engine.ErrNotApplicable) {
				t.Errorf("%s %s: err %v, want not applicable", id, name, err)
			}
		}
		if g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: engine.Evidence{Kind: engine.EmptyEvidence}}); err != nil || len(g.Records) != 0 {
			t.Errorf("%s: empty memory: %v %v", id, g, err)
		}
	}
}

// TestPPMFRepeatedPayloadsAlongAChain: a chain that holds the same stored memory at several
// blocks (no change there) binds exactly as one holding equal copies.
func TestPPMFRepeatedPayloadsAlongAChain(t *testing.T) {
	for _, id := range ppmfDomains {
		d, c, copies := firstCaseChain(t, id)
		last := c.LastBlock()
		shared := append([]engine.MemoryVersion(nil), copies...)
		for k := 1; k <= last; k++ {
			if reflect.DeepEqual(shared[k].Evidence.Payload, shared[k-1].Evidence.Payload) {
				shared[k].Evidence = shared[k-1].Evidence
			}
		}
		a, err := safeguards.BindProvenance(d, c, last, copies[last].Evidence, "incremental_typed", copies)
		if err != nil {
			t.Fatal(err)
		}
		b, err := safeguards.BindProvenance(d, c, last, shared[last].Evidence, "incremental_typed", shared)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Decisions(), b.Decisions()) {
			t.Errorf("%s: shared payloads bind differently:\n%+v\n%+v", id, a.Decisions(), b.Decisions())
		}
	}
}
