package safeguardtests_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// builtinFixture is a built-in case of one domain with the turns the reason table cites.
type builtinFixture struct {
	d       engine.Domain
	rules   engine.SourceAuthorityRules
	c       *engine.Case
	ledger  []engine.Record
	capable string // a capable turn cited by the final ledger (visible at the final block)
	plain   string // a turn of a principal unable to grant
	late    string // a capable turn of a block > 0
	lateAt  int    // its block
}

func fixture(t *testing.T, id string) builtinFixture {
	t.Helper()
	d, err := domains.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	rules, ok := d.(engine.SourceAuthorityRules)
	if !ok {
		t.Fatalf("%s has no SourceAuthorityRules", id)
	}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	f := builtinFixture{d: d, rules: rules, c: cases[0]}
	f.ledger, err = d.Replay(f.c, f.c.LastBlock())
	if err != nil || len(f.ledger) == 0 {
		t.Fatalf("%s: replay: %v (%d records)", id, err, len(f.ledger))
	}
	f.capable = rules.RecordCitations(f.ledger[0])[0]
	capable := rules.AuthorityCapablePrincipals(f.c)
	for _, b := range f.c.Blocks {
		for _, turn := range b.Turns {
			isCapable := slices.Contains(capable, rules.TurnPrincipal(turn))
			if !isCapable && f.plain == "" {
				f.plain = turn.ID
			}
			if isCapable && b.Index > 0 {
				f.late, f.lateAt = turn.ID, b.Index
			}
		}
	}
	if f.plain == "" || f.late == "" {
		t.Fatalf("%s %s: no non-capable turn or no capable turn after block 0", id, f.c.ID)
	}
	return f
}

// payload is the typed memory of the first ledger record, once per citation list, with the
// citations written as the domain writes them (finance: one " | "-joined string).
func (f builtinFixture) payload(t *testing.T, citations ...[]string) any {
	t.Helper()
	var rows []any
	for i, cites := range citations {
		tree, err := pyjson.Retree(f.d.TypedPayload(f.ledger[:1]))
		if err != nil {
			t.Fatal(err)
		}
		row := tree.(map[string]any)["authorizations"].([]any)[0].(map[string]any)
		row["authorization_id"] = row["authorization_id"].(string) + "_" + string(rune('a'+i))
		if _, joined := row["source_turn_ids"].(string); joined {
			row["source_turn_ids"] = strings.Join(cites, " | ")
		} else {
			items := make([]any, len(cites))
			for j, c := range cites {
				items[j] = c
			}
			row["source_turn_ids"] = items
		}
		rows = append(rows, row)
	}
	return map[string]any{"schema_version": f.d.TypedSchemaVersion(), "authorizations": rows}
}

func intp(n int) *int { return &n }

// TestGateReasonsOnBuiltinCases: each of the gate's reasons on a built-in case of every
// domain, decided by the first failing citation, with visibility at the gated block.
func TestGateReasonsOnBuiltinCases(t *testing.T) {
	for _, id := range domains.IDs() {
		t.Run(id, func(t *testing.T) {
			f := fixture(t, id)
			final := intp(f.c.LastBlock())
			for _, tc := range []struct {
				name    string
				cites   []string
				through *int
				reason  string
				// citeReasons are the per-citation reasons, in order.
				citeReasons []string
			}{
				{"capable", []string{f.capable}, final, safeguards.ReasonRecordPassed, []string{safeguards.ReasonSourceCapable}},
				{"not capable", []string{f.plain}, final, safeguards.ReasonNotAuthorityCapable, []string{safeguards.ReasonNotAuthorityCapable}},
				{"unknown", []string{"src_not_in_this_case"}, final, safeguards.ReasonUnknownProvenance, []string{safeguards.ReasonUnknownProvenance}},
				{"case changed", []string{strings.ToUpper(f.capable)}, final, safeguards.ReasonUnknownProvenance, []string{safeguards.ReasonUnknownProvenance}},
				{"future", []string{f.late}, intp(f.lateAt - 1), safeguards.ReasonFutureProvenance, []string{safeguards.ReasonFutureProvenance}},
				{"through None", []string{f.late}, nil, safeguards.ReasonRecordPassed, []string{safeguards.ReasonSourceCapable}},
				{"beyond final", []string{f.late}, intp(f.c.LastBlock() + 5), safeguards.ReasonRecordPassed, []string{safeguards.ReasonSourceCapable}},
				{"negative", []string{f.late}, intp(-1), safeguards.ReasonFutureProvenance, []string{safeguards.ReasonFutureProvenance}},
				{"capable then not", []string{f.late, f.plain}, final, safeguards.ReasonNotAuthorityCapable,
					[]string{safeguards.ReasonSourceCapable, safeguards.ReasonNotAuthorityCapable}},
				{"not then unknown", []string{f.plain, "src_x"}, final, safeguards.ReasonNotAuthorityCapable,
					[]string{safeguards.ReasonNotAuthorityCapable, safeguards.ReasonUnknownProvenance}},
				{"unknown then not", []string{"src_x", f.plain}, final, safeguards.ReasonUnknownProvenance,
					[]string{safeguards.ReasonUnknownProvenance, safeguards.ReasonNotAuthorityCapable}},
			} {
				res, err := safeguards.GateTypedPayload(f.d, f.c, f.payload(t, tc.cites, []string{f.capable}), tc.through)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				dec := res.Decisions[0]
				var got []string
				for _, c := range dec.Citations {
					got = append(got, c.Reason)
				}
				if dec.Reason != tc.reason || !slices.Equal(got, tc.citeReasons) {
					t.Errorf("%s: reason %s %v, want %s %v", tc.name, dec.Reason, got, tc.reason, tc.citeReasons)
				}
				// The second record cites a capable turn of the final ledger: kept whenever every
				// turn is visible, removed when none is.
				allVisible := tc.through == nil || *tc.through >= f.c.LastBlock()
				if allVisible && !res.Decisions[1].Passed || tc.through != nil && *tc.through < 0 && res.Decisions[1].Passed {
					t.Errorf("%s: second record %+v at through %v", tc.name, res.Decisions[1], tc.through)
				}
				wantKept := 0
				for _, d := range res.Decisions {
					if d.Passed {
						wantKept++
					}
				}
				if res.InputRecordCount != 2 || res.RetainedRecordCount != wantKept || res.RemovedRecordCount() != 2-wantKept ||
					len(res.Retained) != wantKept || len(res.GatedState["authorizations"].([]any)) != wantKept {
					t.Errorf("%s: counts %d/%d/%d, %d retained records", tc.name, res.InputRecordCount,
						res.RetainedRecordCount, res.RemovedRecordCount(), len(res.Retained))
				}
				if dec.Passed != (tc.reason == safeguards.ReasonRecordPassed) {
					t.Errorf("%s: passed=%v", tc.name, dec.Passed)
				}
			}
		})
	}
}

// TestGateSourceMetadata: a visible or future turn carries its principal and capability; an
// id the case lacks carries no source.
func TestGateSourceMetadata(t *testing.T) {
	for _, id := range domains.IDs() {
		f := fixture(t, id)
		res, err := safeguards.GateTypedPayload(f.d, f.c, f.payload(t, []string{f.plain, "src_x", f.late}), intp(f.lateAt-1))
		if err != nil {
			t.Fatal(err)
		}
		cites := res.Decisions[0].Citations
		plainTurn, _ := f.c.Turn(f.plain)
		if s := cites[0].Source; s == nil || s.SourceTurnID != f.plain || s.PrincipalID != f.rules.TurnPrincipal(plainTurn) ||
			s.AuthorityClass != s.PrincipalID || s.AuthorizationCapable || s.SourceType != nil {
			t.Errorf("%s: non-capable source %+v", id, s)
		}
		if cites[1].Source != nil {
			t.Errorf("%s: unknown id has a source", id)
		}
		if s := cites[2].Source; s == nil || !s.AuthorizationCapable || cites[2].Reason != safeguards.ReasonFutureProvenance {
			t.Errorf("%s: future capable source %+v (%s)", id, s, cites[2].Reason)
		}
	}
}

// TestGateMissingProvenance: a record that cites nothing (an annotation state, which allows
// it; the strict parser does not) is removed as missing_provenance.
func TestGateMissingProvenance(t *testing.T) {
	f := fixture(t, "procurement")
	reader, ok := f.d.(engine.AnnotationReader)
	if !ok {
		t.Fatal("procurement reads annotation states")
	}
	tree := f.payload(t, []string{}, []string{f.capable}).(map[string]any)
	records, _, err := reader.ParseAnnotation(tree)
	if err != nil {
		t.Fatal(err)
	}
	res, err := safeguards.ApplySourceAuthorityGate(f.d, f.c, records, intp(f.c.LastBlock()))
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Decisions[0]; d.Passed || d.Reason != safeguards.ReasonMissingProvenance || len(d.Citations) != 0 {
		t.Errorf("record citing nothing: %+v", d)
	}
	if !res.Decisions[1].Passed || res.RetainedRecordCount != 1 {
		t.Errorf("second record: %+v, retained %d", res.Decisions[1], res.RetainedRecordCount)
	}
	out, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"citations": [], "passed": false, "reason": "missing_provenance"`) {
		t.Errorf("JSON: %s", out)
	}
}

// TestGateRefusesWhatTheParserRefuses: duplicate or empty citations never reach the gate.
func TestGateRefusesWhatTheParserRefuses(t *testing.T) {
	for _, id := range domains.IDs() {
		f := fixture(t, id)
		for _, cites := range [][]string{{f.capable, f.capable}, {}} {
			if _, err := safeguards.GateTypedPayload(f.d, f.c, f.payload(t, cites), intp(0)); err == nil {
				t.Errorf("%s: citations %q accepted", id, cites)
			}
		}
	}
}

// TestSourceAuthorityGatePolicy: the registered policy gates typed memory at the memory's
// block, reports one decision per record, and says it does not apply to free text or to
// evidence without memory.
func TestSourceAuthorityGatePolicy(t *testing.T) {
	ps, err := safeguards.Lookup(safeguards.SourceAuthorityGateID)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if p.Memory == nil || p.Gate != nil || p.Version != safeguards.GateSchemaVersion {
		t.Fatalf("policy %+v", p)
	}
	for _, id := range domains.IDs() {
		f := fixture(t, id)
		ev := engine.Evidence{Kind: engine.MemoryEvidence, Payload: f.payload(t, []string{f.late}, []string{f.plain}, []string{f.capable})}
		g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: f.d, Case: f.c, Block: f.lateAt - 1, Evidence: ev})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Records) != 3 || g.Records[0].Kept || g.Records[0].Reasons[0] != safeguards.ReasonFutureProvenance ||
			g.Records[1].Kept || g.Records[1].Reasons[0] != safeguards.ReasonNotAuthorityCapable ||
			!slices.Equal(g.Records[0].Sources, []string{f.late}) {
			t.Errorf("%s: records %+v", id, g.Records)
		}
		kept, err := f.d.ParseTyped(g.Evidence.Payload)
		if err != nil {
			t.Fatalf("%s: gated memory does not parse: %v", id, err)
		}
		if (len(kept) == 1) != g.Records[2].Kept || len(kept) > 1 {
			t.Errorf("%s: %d records kept, third decision %+v", id, len(kept), g.Records[2])
		}
		// A payload as the domain's serialiser builds it (Go ints, not a JSON tree): the
		// faithful final memory keeps every record.
		g, err = p.Memory.TransformMemory(engine.MemoryInput{Domain: f.d, Case: f.c, Block: f.c.LastBlock(),
			Evidence: engine.Evidence{Kind: engine.MemoryEvidence, Payload: f.d.TypedPayload(f.ledger)}})
		if err != nil {
			t.Fatalf("%s: faithful memory: %v", id, err)
		}
		for _, r := range g.Records {
			if !r.Kept {
				t.Errorf("%s: faithful record %+v removed", id, r)
			}
		}
		for _, ev := range []engine.Evidence{
			{Kind: engine.MemoryEvidence, Payload: f.d.FaithfulText(f.ledger)},
			{Kind: engine.EmptyEvidence},
			{Kind: engine.FullHistoryEvidence, History: "x"},
		} {
			if _, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: f.d, Case: f.c, Block: 0, Evidence: ev}); !errors.Is(err, engine.ErrNotApplicable) {
				t.Errorf("%s: evidence kind %d: %v, want not applicable", id, ev.Kind, err)
			}
		}
	}
}
