package procurement

import (
	"reflect"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

func cloneEnvelope(e *Envelope) *Envelope {
	c := *e
	c.Scope.AllowedCategories = append([]string(nil), e.Scope.AllowedCategories...)
	c.SourceTurnIDs = append([]string(nil), e.SourceTurnIDs...)
	return &c
}

func records(envs ...*Envelope) []engine.Record {
	out := make([]engine.Record, len(envs))
	for i, e := range envs {
		out[i] = e
	}
	return out
}

func fidelityCase() *engine.Case {
	return &engine.Case{ID: "case_x", AuthorizedIssuers: testIssuers}
}

// TestFidelityFieldClasses has one row per fidelity class and flag of _classify_difference
// (FORMAT §7.1, executor reference §5.1, newer adapter with same-instant handling).
func TestFidelityFieldClasses(t *testing.T) {
	type class struct {
		errors                []string
		overgrant, undergrant bool
	}
	exact := class{errors: []string{}}
	omission := class{[]string{"omission"}, false, true}
	broadening := class{[]string{"broadening"}, true, false}
	narrowing := class{[]string{"narrowing"}, false, true}
	contradiction := class{[]string{"contradiction"}, false, false}
	cases := []struct {
		name      string
		field     string
		canonical func(*Envelope)
		memory    func(*Envelope)
		want      class
	}{
		// equal
		{"equal issuer", "issuer", nil, func(e *Envelope) {}, exact},
		// omission: None, or an empty tuple (null and [] read the same)
		{"issuer null", "issuer", nil, func(e *Envelope) { e.Issuer = nil }, omission},
		{"effect null", "effect", nil, func(e *Envelope) { e.Effect = nil }, omission},
		{"vendor null", "scope.vendor", nil, func(e *Envelope) { e.Scope.Vendor = nil }, omission},
		{"max_amount null", "scope.max_amount", nil, func(e *Envelope) { e.Scope.MaxAmount = nil }, omission},
		{"categories null", "scope.allowed_categories", nil, func(e *Envelope) { e.Scope.AllowedCategories = nil }, omission},
		{"categories empty list", "scope.allowed_categories", nil, func(e *Envelope) { e.Scope.AllowedCategories = []string{} }, omission},
		{"valid_until null", "valid_until", nil, func(e *Envelope) { e.ValidUntil = nil }, omission},
		{"source_turn_ids empty", "source_turn_ids", nil, func(e *Envelope) { e.SourceTurnIDs = nil }, omission},
		{"supersedes forgotten", "supersedes", func(e *Envelope) { e.Supersedes = strp("auth_old") }, func(e *Envelope) { e.Supersedes = nil }, omission},
		// allowed_categories: strict superset / subset; anything else is a contradiction
		{"categories broadening", "scope.allowed_categories", nil, func(e *Envelope) {
			e.Scope.AllowedCategories = []string{"endpoint_security_licenses", "support_hours", "hardware"}
		}, broadening},
		{"categories narrowing", "scope.allowed_categories", nil, func(e *Envelope) {
			e.Scope.AllowedCategories = []string{"support_hours"}
		}, narrowing},
		{"categories reordered", "scope.allowed_categories", nil, func(e *Envelope) {
			e.Scope.AllowedCategories = []string{"support_hours", "endpoint_security_licenses"}
		}, contradiction},
		{"categories overlap", "scope.allowed_categories", nil, func(e *Envelope) {
			e.Scope.AllowedCategories = []string{"support_hours", "hardware"}
		}, contradiction},
		{"categories disjoint", "scope.allowed_categories", nil, func(e *Envelope) {
			e.Scope.AllowedCategories = []string{"hardware"}
		}, contradiction},
		// max_amount
		{"max_amount broadening", "scope.max_amount", nil, func(e *Envelope) { e.Scope.MaxAmount = i64p(4801) }, broadening},
		{"max_amount narrowing", "scope.max_amount", nil, func(e *Envelope) { e.Scope.MaxAmount = i64p(0) }, narrowing},
		// validity window
		{"valid_from earlier", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("2026-08-31T23:59:59Z") }, broadening},
		{"valid_from later", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("2026-09-02T00:00:00Z") }, narrowing},
		{"valid_until later", "valid_until", nil, func(e *Envelope) { e.ValidUntil = strp("2026-10-01T00:00:01Z") }, broadening},
		{"valid_until earlier", "valid_until", nil, func(e *Envelope) { e.ValidUntil = strp("2026-09-15T00:00:00Z") }, narrowing},
		{"valid_from same instant +00:00", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("2026-09-01T00:00:00+00:00") }, exact},
		{"valid_until same instant other offset", "valid_until", nil, func(e *Envelope) { e.ValidUntil = strp("2026-10-01T02:00:00+02:00") }, exact},
		{"valid_from naive read as UTC", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("2026-09-01T00:00:00") }, exact},
		{"valid_until naive date read as UTC", "valid_until", nil, func(e *Envelope) { e.ValidUntil = strp("2026-10-01") }, exact},
		{"valid_from naive later", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("2026-09-01T01:00:00") }, narrowing},
		{"valid_from unparseable", "valid_from", nil, func(e *Envelope) { e.ValidFrom = strp("early September") }, contradiction},
		{"valid_until empty string", "valid_until", nil, func(e *Envelope) { e.ValidUntil = strp("") }, contradiction},
		// status
		{"stale retention", "status", func(e *Envelope) { e.State = "revoked" }, func(e *Envelope) { e.State = "active" }, class{[]string{"stale_retention"}, true, false}},
		{"stale retention of superseded", "status", func(e *Envelope) { e.State = "superseded" }, func(e *Envelope) { e.State = "active" }, class{[]string{"stale_retention"}, true, false}},
		{"active remembered revoked", "status", nil, func(e *Envelope) { e.State = "revoked" }, class{[]string{"contradiction"}, false, true}},
		{"active remembered unknown", "status", nil, func(e *Envelope) { e.State = "unknown" }, class{[]string{"contradiction"}, false, true}},
		{"revoked remembered superseded", "status", func(e *Envelope) { e.State = "revoked" }, func(e *Envelope) { e.State = "superseded" }, contradiction},
		{"superseded remembered revoked", "status", func(e *Envelope) { e.State = "superseded" }, func(e *Envelope) { e.State = "revoked" }, contradiction},
		// other mismatches: contradiction with no flags
		{"issuer mismatch", "issuer", nil, func(e *Envelope) { e.Issuer = strp("finance_controller") }, contradiction},
		{"grantee mismatch", "grantee", nil, func(e *Envelope) { e.Grantee = strp("facilities") }, contradiction},
		{"vendor mismatch", "scope.vendor", nil, func(e *Envelope) { e.Scope.Vendor = strp("OtherSoft") }, contradiction},
		{"vendor empty string is not omission", "scope.vendor", nil, func(e *Envelope) { e.Scope.Vendor = strp("") }, contradiction},
		{"currency mismatch", "scope.currency", nil, func(e *Envelope) { e.Scope.Currency = strp("EUR") }, contradiction},
		{"supersedes mismatch", "supersedes", func(e *Envelope) { e.Supersedes = strp("auth_old") }, func(e *Envelope) { e.Supersedes = strp("auth_other") }, contradiction},
		{"supersedes invented", "supersedes", nil, func(e *Envelope) { e.Supersedes = strp("auth_old") }, contradiction},
		{"source_turn_ids different", "source_turn_ids", nil, func(e *Envelope) { e.SourceTurnIDs = []string{"src_584dd51e_019"} }, contradiction},
		{"source_turn_ids superset", "source_turn_ids", nil, func(e *Envelope) { e.SourceTurnIDs = []string{"src_584dd51e_018", "src_584dd51e_019"} }, contradiction},
		{"source_turn_ids reordered", "source_turn_ids", func(e *Envelope) { e.SourceTurnIDs = []string{"src_584dd51e_001", "src_584dd51e_018"} },
			func(e *Envelope) { e.SourceTurnIDs = []string{"src_584dd51e_018", "src_584dd51e_001"} }, contradiction},
	}
	d := Domain{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			canon := authorizingEnvelope("auth_a")
			if tc.canonical != nil {
				tc.canonical(canon)
			}
			mem := cloneEnvelope(canon)
			tc.memory(mem)
			// Direct classification of the flattened values.
			cls := d.ClassifyField(tc.field, d.FieldValue(canon, tc.field), d.FieldValue(mem, tc.field))
			if len(cls.Errors) == 0 {
				cls.Errors = []string{}
			}
			if !reflect.DeepEqual(cls.Errors, tc.want.errors) || cls.Overgrant != tc.want.overgrant || cls.Undergrant != tc.want.undergrant {
				t.Errorf("ClassifyField = %+v, want %+v", cls, tc.want)
			}
			// Through the report: only that field's row differs.
			p := engine.Fidelity(d, fidelityCase(), 3, records(canon), records(mem))
			if len(p.Fields) != 13 {
				t.Fatalf("%d rows, want 13", len(p.Fields))
			}
			for _, row := range p.Fields {
				if row.AuthorizationID != "auth_a" {
					t.Errorf("row for %s", row.AuthorizationID)
				}
				if row.Field != tc.field {
					if !row.Exact || len(row.Errors) != 0 || row.Overgrant || row.Undergrant {
						t.Errorf("unchanged field %s scored %+v", row.Field, row)
					}
					continue
				}
				if !reflect.DeepEqual(row.Errors, tc.want.errors) || row.Overgrant != tc.want.overgrant || row.Undergrant != tc.want.undergrant {
					t.Errorf("row %+v, want %+v", row, tc.want)
				}
				if row.Exact != (len(tc.want.errors) == 0) {
					t.Errorf("row exact %v", row.Exact)
				}
			}
			if p.Exact != (len(tc.want.errors) == 0) {
				t.Errorf("report exact %v", p.Exact)
			}
		})
	}
}

func TestFidelityFieldsOrder(t *testing.T) {
	want := []string{"issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "supersedes",
		"source_turn_ids", "scope.vendor", "scope.allowed_categories", "scope.max_amount", "scope.currency"}
	if got := (Domain{}).FidelityFields(); !reflect.DeepEqual(got, want) {
		t.Errorf("fields %q", got)
	}
}

// TestFidelityRecordRows covers the whole-record rows: extra_record (overgrant iff the
// remembered record is active) and missing_record (undergrant iff the canonical one is active).
func TestFidelityRecordRows(t *testing.T) {
	revoked := func(id string) *Envelope { e := authorizingEnvelope(id); e.State = "revoked"; return e }
	cases := []struct {
		name                  string
		canonical, remembered []*Envelope
		errors                []string
		overgrant, undergrant bool
	}{
		{"extra active", nil, []*Envelope{authorizingEnvelope("auth_z")}, []string{"extra_record"}, true, false},
		{"extra revoked", nil, []*Envelope{revoked("auth_z")}, []string{"extra_record"}, false, false},
		{"missing active", []*Envelope{authorizingEnvelope("auth_z")}, nil, []string{"missing_record"}, false, true},
		{"missing revoked", []*Envelope{revoked("auth_z")}, nil, []string{"missing_record"}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := engine.Fidelity(Domain{}, fidelityCase(), 0, records(tc.canonical...), records(tc.remembered...))
			if len(p.Fields) != 1 {
				t.Fatalf("%d rows", len(p.Fields))
			}
			row := p.Fields[0]
			if engine.RecordField != "__record__" || row.Field != "__record__" || row.AuthorizationID != "auth_z" {
				t.Errorf("row %+v", row)
			}
			if !reflect.DeepEqual(row.Errors, tc.errors) || row.Overgrant != tc.overgrant || row.Undergrant != tc.undergrant || row.Exact {
				t.Errorf("row %+v", row)
			}
			// The record side carries the whole envelope dict, the other side null.
			var present, absent any = row.RememberedValue, row.CanonicalValue
			src := tc.remembered
			if tc.errors[0] == "missing_record" {
				present, absent, src = row.CanonicalValue, row.RememberedValue, tc.canonical
			}
			if absent != nil {
				t.Errorf("absent side %v", absent)
			}
			if got, want := pyjson.MustCanonicalJSON(present), pyjson.MustCanonicalJSON(src[0].Tree()); got != want {
				t.Errorf("record value %s, want %s", got, want)
			}
			if p.ScoredFields != 1 || p.Exact {
				t.Errorf("report %+v", p)
			}
		})
	}
}

// TestFidelityReport checks the PreservationOutcome counts of a small multi-record report.
func TestFidelityReport(t *testing.T) {
	a := authorizingEnvelope("auth_a")
	b := authorizingEnvelope("auth_b")
	b.State = "revoked"
	c := authorizingEnvelope("auth_c")
	canonical := []*Envelope{a, c, b} // order does not matter: rows follow sorted ids

	memA := cloneEnvelope(a)
	memA.Scope.MaxAmount = i64p(9000) // broadening, over
	memA.Issuer = nil                 // omission, under
	memB := cloneEnvelope(b)
	memB.State = "active" // stale_retention, over
	extra := authorizingEnvelope("auth_d")
	remembered := []*Envelope{extra, memB, memA} // auth_c missing: missing_record, under

	p := engine.Fidelity(Domain{}, &engine.Case{ID: "case_x"}, 4, records(canonical...), records(remembered...))
	if p.CaseID != "case_x" || p.BlockIndex != 4 {
		t.Errorf("identity %s %d", p.CaseID, p.BlockIndex)
	}
	if p.ScoredFields != 13+13+1+1 || len(p.Fields) != p.ScoredFields {
		t.Errorf("scored fields %d (rows %d), want 28", p.ScoredFields, len(p.Fields))
	}
	wantErrors := map[string]int{"broadening": 1, "omission": 1, "stale_retention": 1, "missing_record": 1, "extra_record": 1}
	if !reflect.DeepEqual(p.Errors, wantErrors) {
		t.Errorf("errors %v", p.Errors)
	}
	if p.OvergrantFields != 3 || p.UndergrantFields != 2 {
		t.Errorf("overgrant %d undergrant %d, want 3 and 2", p.OvergrantFields, p.UndergrantFields)
	}
	if p.Exact {
		t.Error("report exact")
	}
	var order []string
	for _, r := range p.Fields {
		if len(order) == 0 || order[len(order)-1] != r.AuthorizationID {
			order = append(order, r.AuthorizationID)
		}
	}
	if !reflect.DeepEqual(order, []string{"auth_a", "auth_b", "auth_c", "auth_d"}) {
		t.Errorf("row order %q", order)
	}
	if p.Fields[0].Field != "issuer" || p.Fields[12].Field != "scope.currency" || p.Fields[26].Field != "__record__" {
		t.Errorf("field order: %s %s %s", p.Fields[0].Field, p.Fields[12].Field, p.Fields[26].Field)
	}
	// errors JSON is alphabetical (EAL-Bench: dict(sorted(errors.items()))).
	if got, want := pyjson.MustCanonicalJSON(p.Errors), `{"broadening":1,"extra_record":1,"missing_record":1,"omission":1,"stale_retention":1}`; got != want {
		t.Errorf("errors JSON %s", got)
	}

	// A faithful memory is exact with 13 rows per record and no errors.
	faithful := engine.Fidelity(Domain{}, &engine.Case{ID: "case_x"}, 4, records(canonical...), records(cloneEnvelope(b), cloneEnvelope(a), cloneEnvelope(c)))
	if !faithful.Exact || faithful.ScoredFields != 39 || len(faithful.Errors) != 0 || faithful.OvergrantFields != 0 || faithful.UndergrantFields != 0 {
		t.Errorf("faithful report %+v", faithful)
	}
	// Empty against empty: exact with no rows.
	empty := engine.Fidelity(Domain{}, &engine.Case{ID: "case_x"}, 0, nil, nil)
	if !empty.Exact || empty.ScoredFields != 0 {
		t.Errorf("empty report %+v", empty)
	}
}

// TestFidelityRowJSON pins the FieldFidelityRow.to_dict shape: lists for tuple fields,
// null for None, a flat list of error names.
func TestFidelityRowJSON(t *testing.T) {
	canon := authorizingEnvelope("auth_a")
	mem := cloneEnvelope(canon)
	mem.Scope.AllowedCategories = []string{"endpoint_security_licenses"}
	mem.ValidFrom = strp("2026-09-01T00:00:00+00:00")
	mem.Scope.MaxAmount = nil
	p := engine.Fidelity(Domain{}, fidelityCase(), 2, records(canon), records(mem))
	byField := map[string]engine.FieldRow{}
	for _, r := range p.Fields {
		byField[r.Field] = r
	}
	cases := map[string]string{
		"scope.allowed_categories": `{"authorization_id":"auth_a","canonical_value":["endpoint_security_licenses","support_hours"],"errors":["narrowing"],"exact":false,"field":"scope.allowed_categories","overgrant":false,"remembered_value":["endpoint_security_licenses"],"undergrant":true}`,
		"valid_from":               `{"authorization_id":"auth_a","canonical_value":"2026-09-01T00:00:00Z","errors":[],"exact":true,"field":"valid_from","overgrant":false,"remembered_value":"2026-09-01T00:00:00+00:00","undergrant":false}`,
		"scope.max_amount":         `{"authorization_id":"auth_a","canonical_value":4800,"errors":["omission"],"exact":false,"field":"scope.max_amount","overgrant":false,"remembered_value":null,"undergrant":true}`,
		"supersedes":               `{"authorization_id":"auth_a","canonical_value":null,"errors":[],"exact":true,"field":"supersedes","overgrant":false,"remembered_value":null,"undergrant":false}`,
		"source_turn_ids":          `{"authorization_id":"auth_a","canonical_value":["src_584dd51e_018"],"errors":[],"exact":true,"field":"source_turn_ids","overgrant":false,"remembered_value":["src_584dd51e_018"],"undergrant":false}`,
	}
	for field, want := range cases {
		if got := pyjson.MustCanonicalJSON(byField[field]); got != want {
			t.Errorf("%s row\n got %s\nwant %s", field, got, want)
		}
	}
	if p.Exact {
		t.Error("report with errors is not exact")
	}
}
