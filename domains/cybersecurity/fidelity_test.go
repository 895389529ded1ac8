package cybersecurity

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

func builtinFirst(t *testing.T) (*engine.Case, *Case) {
	t.Helper()
	cases := builtinCases(t)
	return cases[0], cases[0].Source.(*Case)
}

// grantByLetter finds the final-ledger record whose id has the generator's letter ("-A-").
func grantByLetter(t *testing.T, records []*envelope.Record, letter string) *envelope.Record {
	t.Helper()
	for _, r := range records {
		if strings.Contains(r.ID, "-"+letter+"-") {
			return r
		}
	}
	t.Fatalf("no grant %s", letter)
	return nil
}

type row struct {
	id, field string
	errs      string
	over      bool
	under     bool
}

// TestFidelityAndFormation: one table row per error class and flag of this schema, checked
// through engine.Fidelity (15 rows per record, whole-record rows for missing and extra ones)
// and engine.Form (which probes the memory wrongly grants at the final block).
func TestFidelityAndFormation(t *testing.T) {
	d := Domain{}
	ec, src := builtinFirst(t)
	final, err := src.Ledger(9)
	if err != nil {
		t.Fatal(err)
	}
	prefinal, err := envelope.ReplayAll(src.Events, 8)
	if err != nil {
		t.Fatal(err)
	}
	stale := func(letter string) *envelope.Record { return grantByLetter(t, prefinal, letter).Clone() }
	a, b := grantByLetter(t, final, "A"), stale("B")
	probe := func(mech, side string) string { return "probe_" + ec.ID + "_" + mech + "_" + side }
	cases := []struct {
		name   string
		edit   func(m []*envelope.Record) []*envelope.Record
		rows   []row
		formed []string
	}{
		{"exact", func(m []*envelope.Record) []*envelope.Record { return m }, nil, nil},
		{"broadened assets", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "A")
			r.Scope["asset_ids"] = append(r.Scope["asset_ids"].([]string), stale("A").Scope["asset_ids"].([]string)[1])
			return m
		}, []row{{a.ID, "scope.asset_ids", "broadening", true, false}}, []string{probe("late_narrowing", "outside")}},
		{"window narrowed", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "A")
			r.ValidUntil = envelope.Str(strings.Replace(*r.ValidUntil, "T04:00:00Z", "T03:00:00Z", 1))
			return m
		}, []row{{a.ID, "valid_until", "narrowing", false, true}}, nil},
		{"window start earlier", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "H")
			r.ValidFrom = envelope.Str(strings.Replace(*r.ValidFrom, "T16:00:00Z", "T15:00:00Z", 1))
			return m
		}, []row{{grantByLetter(t, final, "H").ID, "valid_from", "broadening", true, false}}, []string{probe("time_shift", "outside")}},
		{"same instant written differently is a narrowing here", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "A")
			r.ValidUntil = envelope.Str(strings.Replace(*r.ValidUntil, "Z", "+00:00", 1))
			return m
		}, []row{{a.ID, "valid_until", "narrowing", false, true}}, nil},
		{"status contradiction", func(m []*envelope.Record) []*envelope.Record {
			grantByLetter(t, m, "A").State = envelope.StatusRevoked
			return m
		}, []row{{a.ID, "status", "contradiction", false, false}}, nil},
		{"issuer contradiction", func(m []*envelope.Record) []*envelope.Record {
			grantByLetter(t, m, "A").Issuer = envelope.Str("incident_lead")
			return m
		}, []row{{a.ID, "issuer", "contradiction", true, true}}, nil},
		{"scope string contradiction", func(m []*envelope.Record) []*envelope.Record {
			grantByLetter(t, m, "A").Scope["incident_id"] = "INC-0000"
			return m
		}, []row{{a.ID, "scope.incident_id", "contradiction", true, true}}, nil},
		{"disjoint list contradiction", func(m []*envelope.Record) []*envelope.Record {
			grantByLetter(t, m, "A").Scope["environments"] = []string{"lab"}
			return m
		}, []row{{a.ID, "scope.environments", "contradiction", true, true}}, nil},
		{"supersedes contradiction", func(m []*envelope.Record) []*envelope.Record {
			grantByLetter(t, m, "A").Supersedes = envelope.Str("older")
			return m
		}, []row{{a.ID, "supersedes", "contradiction", false, false}}, nil},
		{"sources contradiction", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "A")
			r.SourceTurnIDs = r.SourceTurnIDs[:1]
			return m
		}, []row{{a.ID, "source_turn_ids", "contradiction", false, false}}, nil},
		{"revoked grant kept (extra record)", func(m []*envelope.Record) []*envelope.Record {
			return append(m, b)
		}, []row{{b.ID, engine.RecordField, "extra_record", true, false}}, []string{probe("revoked_action", "outside")}},
		{"extra record not active", func(m []*envelope.Record) []*envelope.Record {
			r := b.Clone()
			r.State = envelope.StatusRevoked
			return append(m, r)
		}, []row{{b.ID, engine.RecordField, "extra_record", false, false}}, nil},
		{"missing record", func(m []*envelope.Record) []*envelope.Record {
			out := m[:0]
			for _, r := range m {
				if !strings.Contains(r.ID, "-G-") {
					out = append(out, r)
				}
			}
			return out
		}, []row{{grantByLetter(t, final, "G").ID, engine.RecordField, "missing_record", false, true}}, nil},
		{"two records merged", func(m []*envelope.Record) []*envelope.Record {
			r := grantByLetter(t, m, "C")
			r.Scope["environments"] = append(r.Scope["environments"].([]string), grantByLetter(t, m, "G").Scope["environments"].([]string)...)
			return m
		}, []row{{grantByLetter(t, final, "C").ID, "scope.environments", "broadening", true, false}}, []string{probe("cross_record", "outside")}},
	}
	for _, c := range cases {
		memory := make([]*envelope.Record, len(final))
		for i, r := range final {
			memory[i] = r.Clone()
		}
		memory = c.edit(memory)
		envelope.SortByID(memory)
		p := engine.Fidelity(d, ec, 9, envelope.Generic(final), envelope.Generic(memory))
		var got []row
		for _, f := range p.Fields {
			if !f.Exact {
				got = append(got, row{f.AuthorizationID, f.Field, strings.Join(f.Errors, ","), f.Overgrant, f.Undergrant})
			}
		}
		if len(got) != len(c.rows) {
			t.Errorf("%s: rows %+v, want %+v", c.name, got, c.rows)
		} else {
			for i := range got {
				if got[i] != c.rows[i] {
					t.Errorf("%s: row %+v, want %+v", c.name, got[i], c.rows[i])
				}
			}
		}
		if p.Exact != (len(c.rows) == 0) {
			t.Errorf("%s: exact=%v", c.name, p.Exact)
		}
		perRecord := 0
		for _, f := range p.Fields {
			if f.AuthorizationID == a.ID {
				perRecord++
			}
		}
		if perRecord != 15 {
			t.Errorf("%s: %d rows for %s, want 15", c.name, perRecord, a.ID)
		}
		f := engine.Form(d, ec, 9, envelope.Generic(final), envelope.Generic(memory))
		if strings.Join(f.FormedProbeIDs, ",") != strings.Join(c.formed, ",") || f.Formed != (len(c.formed) > 0) || f.ProbesDenied != 4 {
			t.Errorf("%s: formation %+v, want %v", c.name, f, c.formed)
		}
	}
}

// TestClassifyRules covers the classes that typed memory schema "4" cannot carry (null or
// empty values, a canonical record that is not active) at the classifier itself.
func TestClassifyRules(t *testing.T) {
	d := Domain{}
	for _, c := range []struct {
		field      string
		canon, rem any
		want       string
		over       bool
		under      bool
	}{
		{"scope.asset_ids", []string{"a"}, []string{}, "omission", false, true},
		{"valid_from", "2026-01-01T00:00:00Z", nil, "omission", false, true},
		{"status", "revoked", "active", "stale_retention", true, false},
		{"scope.approved_actions", []string{"a", "b"}, []string{"a"}, "narrowing", false, true},
		{"scope.vulnerability_ids", []string{"a"}, []string{"a", "b"}, "broadening", true, false},
		{"effect", Effect, "permit_everything", "contradiction", true, true},
		{"action", Action, "other", "contradiction", true, true},
		{"grantee", Grantee, "other", "contradiction", true, true},
	} {
		got := d.ClassifyField(c.field, c.canon, c.rem)
		if strings.Join(got.Errors, ",") != c.want || got.Overgrant != c.over || got.Undergrant != c.under {
			t.Errorf("%s %v -> %v: %+v", c.field, c.canon, c.rem, got)
		}
	}
	r := &envelope.Record{Scope: envelope.Scope{"environments": []string{"recovery", "production"}}}
	if got := d.FieldValue(r, "scope.environments"); strings.Join(got.([]string), ",") != "production,recovery" {
		t.Errorf("scope lists flatten sorted: %v", got)
	}
	if got := d.FieldValue(&envelope.Record{SourceTurnIDs: []string{"s2", "s1"}}, "source_turn_ids"); strings.Join(got.([]string), ",") != "s2,s1" {
		t.Errorf("sources keep their order: %v", got)
	}
	if n := len(d.FidelityFields()); n != 15 {
		t.Errorf("%d fidelity fields", n)
	}
}
