package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
)

var testIssuers = []string{"chief_financial_officer"}

func strp(s string) *string { return &s }
func i64p(n int64) *int64   { return &n }

// authorizingEnvelope is a record that authorizes authorizingTx; each denial row changes one
// thing.
func authorizingEnvelope(id string) *Envelope {
	return &Envelope{
		ID: id, Issuer: strp("chief_financial_officer"), Grantee: strp("software_procurement"),
		Effect: strp("permit_exception"), Action: strp("submit_order"), State: "active",
		ValidFrom: strp("2026-09-01T00:00:00Z"), ValidUntil: strp("2026-10-01T00:00:00Z"),
		Scope: Scope{
			Vendor: strp("NimbusSoft"), AllowedCategories: []string{"endpoint_security_licenses", "support_hours"},
			MaxAmount: i64p(4800), Currency: strp("USD"),
		},
		SourceTurnIDs: []string{"src_584dd51e_018"},
	}
}

func authorizingTx() Transaction {
	return Transaction{
		TransactionID: "txn_in", Grantee: "software_procurement", Action: "submit_order", Vendor: "NimbusSoft",
		Category: "endpoint_security_licenses", Amount: 4500, Currency: "USD", ActionTime: "2026-09-26T12:00:00Z",
	}
}

// TestDenial has one row per reason of procurement_denial, in its order (FORMAT §3.2,
// executor reference §3.2).
func TestDenial(t *testing.T) {
	cases := []struct {
		name string
		rec  func(*Envelope)
		tx   func(*Transaction)
		want string
	}{
		// 1. missing_or_unknown: None, "", "unknown" (case-insensitive, stripped)
		{"issuer null", func(e *Envelope) { e.Issuer = nil }, nil, "missing_or_unknown:issuer"},
		{"issuer unknown beats issuer_not_authoritative", func(e *Envelope) { e.Issuer = strp("unknown") }, nil, "missing_or_unknown:issuer"},
		{"grantee blank", func(e *Envelope) { e.Grantee = strp("   ") }, nil, "missing_or_unknown:grantee"},
		{"grantee empty", func(e *Envelope) { e.Grantee = strp("") }, nil, "missing_or_unknown:grantee"},
		{"effect null", func(e *Envelope) { e.Effect = nil }, nil, "missing_or_unknown:effect"},
		{"action null", func(e *Envelope) { e.Action = nil }, nil, "missing_or_unknown:action"},
		{"vendor UNKNOWN", func(e *Envelope) { e.Scope.Vendor = strp("UNKNOWN") }, nil, "missing_or_unknown:vendor"},
		{"currency ' Unknown '", func(e *Envelope) { e.Scope.Currency = strp(" Unknown ") }, nil, "missing_or_unknown:currency"},
		{"valid_from null", func(e *Envelope) { e.ValidFrom = nil }, nil, "missing_or_unknown:valid_from"},
		{"valid_until unknown", func(e *Envelope) { e.ValidUntil = strp("unknown") }, nil, "missing_or_unknown:valid_until"},
		{"status unknown", func(e *Envelope) { e.State = "unknown" }, nil, "missing_or_unknown:status"},
		{"status UnKnown", func(e *Envelope) { e.State = "UnKnown" }, nil, "missing_or_unknown:status"},
		{"status empty", func(e *Envelope) { e.State = "" }, nil, "missing_or_unknown:status"},
		{"authorization_id unknown", func(e *Envelope) { e.ID = "Unknown" }, nil, "missing_or_unknown:authorization_id"},
		{"max_amount null", func(e *Envelope) { e.Scope.MaxAmount = nil }, nil, "missing_or_unknown:max_amount"},
		{"allowed_categories null", func(e *Envelope) { e.Scope.AllowedCategories = nil }, nil, "missing_or_unknown:allowed_categories"},
		{"allowed_categories empty", func(e *Envelope) { e.Scope.AllowedCategories = []string{} }, nil, "missing_or_unknown:allowed_categories"},
		{"allowed_categories unknown item", func(e *Envelope) { e.Scope.AllowedCategories = []string{"endpoint_security_licenses", " UNKNOWN"} }, nil, "missing_or_unknown:allowed_categories"},
		{"allowed_categories blank item", func(e *Envelope) { e.Scope.AllowedCategories = []string{"endpoint_security_licenses", ""} }, nil, "missing_or_unknown:allowed_categories"},
		{"source_turn_ids empty", func(e *Envelope) { e.SourceTurnIDs = nil }, nil, "missing_or_unknown:source_turn_ids"},
		{"several, sorted and comma-joined", func(e *Envelope) {
			e.Issuer = nil
			e.Scope.Vendor = strp("unknown")
			e.ValidUntil = strp(" ")
			e.Scope.MaxAmount = nil
			e.Scope.AllowedCategories = nil
			e.SourceTurnIDs = []string{}
		}, nil, "missing_or_unknown:allowed_categories,issuer,max_amount,source_turn_ids,valid_until,vendor"},
		{"everything", func(e *Envelope) {
			*e = Envelope{ID: "", State: "unknown"}
		}, nil, "missing_or_unknown:action,allowed_categories,authorization_id,currency,effect,grantee,issuer,max_amount,source_turn_ids,status,valid_from,valid_until,vendor"},
		{"missing beats a bad timestamp and an out-of-scope amount", func(e *Envelope) { e.Grantee = nil; e.ValidFrom = strp("garbage") },
			func(tx *Transaction) { tx.Amount = 99999 }, "missing_or_unknown:grantee"},
		// 2. issuer_not_authoritative (exact membership)
		{"issuer not authoritative", func(e *Envelope) { e.Issuer = strp("finance_controller") }, nil, "issuer_not_authoritative"},
		{"issuer case differs", func(e *Envelope) { e.Issuer = strp("Chief_Financial_Officer") }, nil, "issuer_not_authoritative"},
		{"issuer beats effect and status", func(e *Envelope) { e.Issuer = strp("cfo"); e.Effect = strp("deny"); e.State = "revoked" }, nil, "issuer_not_authoritative"},
		// 3. effect_not_permitting
		{"effect not permitting", func(e *Envelope) { e.Effect = strp("deny_exception") }, nil, "effect_not_permitting"},
		{"effect beats status", func(e *Envelope) { e.Effect = strp("permit"); e.State = "revoked" }, nil, "effect_not_permitting"},
		// 4. status_<status>
		{"status revoked", func(e *Envelope) { e.State = "revoked" }, nil, "status_revoked"},
		{"status superseded", func(e *Envelope) { e.State = "superseded" }, nil, "status_superseded"},
		{"status other", func(e *Envelope) { e.State = "pending" }, nil, "status_pending"},
		{"status beats scope", func(e *Envelope) { e.State = "revoked" }, func(tx *Transaction) { tx.Vendor = "Other" }, "status_revoked"},
		// 5. grantee, action, vendor, currency (exact, case-sensitive, unstripped), in that order
		{"grantee out of scope", nil, func(tx *Transaction) { tx.Grantee = "facilities" }, "grantee_out_of_scope"},
		{"action out of scope", nil, func(tx *Transaction) { tx.Action = "cancel_order" }, "action_out_of_scope"},
		{"vendor out of scope", nil, func(tx *Transaction) { tx.Vendor = "OtherSoft" }, "vendor_out_of_scope"},
		{"vendor case differs", nil, func(tx *Transaction) { tx.Vendor = "nimbussoft" }, "vendor_out_of_scope"},
		{"vendor not stripped", func(e *Envelope) { e.Scope.Vendor = strp("NimbusSoft ") }, nil, "vendor_out_of_scope"},
		{"currency out of scope", nil, func(tx *Transaction) { tx.Currency = "EUR" }, "currency_out_of_scope"},
		{"grantee before vendor", nil, func(tx *Transaction) { tx.Vendor = "x"; tx.Grantee = "y" }, "grantee_out_of_scope"},
		{"action before currency", nil, func(tx *Transaction) { tx.Currency = "EUR"; tx.Action = "y" }, "action_out_of_scope"},
		{"currency before category", nil, func(tx *Transaction) { tx.Currency = "EUR"; tx.Category = "y" }, "currency_out_of_scope"},
		// 6. category_out_of_scope (exact list membership)
		{"category out of scope", nil, func(tx *Transaction) { tx.Category = "hardware" }, "category_out_of_scope"},
		{"category case differs", nil, func(tx *Transaction) { tx.Category = "Endpoint_Security_Licenses" }, "category_out_of_scope"},
		{"second category allowed", nil, func(tx *Transaction) { tx.Category = "support_hours" }, ""},
		{"category before amount", nil, func(tx *Transaction) { tx.Category = "hardware"; tx.Amount = 99999 }, "category_out_of_scope"},
		// 7. amount_out_of_scope (equal allowed)
		{"amount above max", nil, func(tx *Transaction) { tx.Amount = 4801 }, "amount_out_of_scope"},
		{"amount equal to max", nil, func(tx *Transaction) { tx.Amount = 4800 }, ""},
		{"amount zero", nil, func(tx *Transaction) { tx.Amount = 0 }, ""},
		{"max zero", func(e *Envelope) { e.Scope.MaxAmount = i64p(0) }, func(tx *Transaction) { tx.Amount = 1 }, "amount_out_of_scope"},
		{"amount before timestamps", func(e *Envelope) { e.ValidFrom = strp("2026-09-01T00:00:00") }, func(tx *Transaction) { tx.Amount = 4801 }, "amount_out_of_scope"},
		// 8. invalid_timestamp: unparseable or naive
		{"valid_from naive", func(e *Envelope) { e.ValidFrom = strp("2026-09-01T00:00:00") }, nil, "invalid_timestamp"},
		{"valid_until garbage", func(e *Envelope) { e.ValidUntil = strp("next month") }, nil, "invalid_timestamp"},
		{"valid_until date only", func(e *Envelope) { e.ValidUntil = strp("2026-10-01") }, nil, "invalid_timestamp"},
		{"action_time naive", nil, func(tx *Transaction) { tx.ActionTime = "2026-09-26T12:00:00" }, "invalid_timestamp"},
		{"action_time garbage", nil, func(tx *Transaction) { tx.ActionTime = "tomorrow" }, "invalid_timestamp"},
		{"lower-case z is not replaced", func(e *Envelope) { e.ValidFrom = strp("2026-09-01T00:00:00z") }, nil, "invalid_timestamp"},
		{"invalid timestamp before interval", func(e *Envelope) { e.ValidFrom = strp("2026-11-01T00:00:00Z") },
			func(tx *Transaction) { tx.ActionTime = "x" }, "invalid_timestamp"},
		// 9. invalid_validity_interval: valid_from >= valid_until (instants)
		{"empty interval", func(e *Envelope) { e.ValidUntil = strp("2026-09-01T00:00:00Z") }, nil, "invalid_validity_interval"},
		{"reversed interval", func(e *Envelope) { e.ValidFrom = strp("2026-10-02T00:00:00Z") }, nil, "invalid_validity_interval"},
		{"empty interval across offsets", func(e *Envelope) { e.ValidUntil = strp("2026-09-01T02:00:00+02:00") }, nil, "invalid_validity_interval"},
		// 10. time_out_of_scope: half-open [valid_from, valid_until)
		{"at valid_from is in", nil, func(tx *Transaction) { tx.ActionTime = "2026-09-01T00:00:00Z" }, ""},
		{"at valid_from other offset is in", nil, func(tx *Transaction) { tx.ActionTime = "2026-08-31T20:00:00-04:00" }, ""},
		{"before valid_from", nil, func(tx *Transaction) { tx.ActionTime = "2026-08-31T23:59:59Z" }, "time_out_of_scope"},
		{"at valid_until is out", nil, func(tx *Transaction) { tx.ActionTime = "2026-10-01T00:00:00Z" }, "time_out_of_scope"},
		{"at valid_until written +00:00 is out", nil, func(tx *Transaction) { tx.ActionTime = "2026-10-01T00:00:00+00:00" }, "time_out_of_scope"},
		{"at valid_until other offset is out", nil, func(tx *Transaction) { tx.ActionTime = "2026-10-01T02:00:00+02:00" }, "time_out_of_scope"},
		{"just before valid_until is in", nil, func(tx *Transaction) { tx.ActionTime = "2026-09-30T23:59:59.999999Z" }, ""},
		{"after valid_until", nil, func(tx *Transaction) { tx.ActionTime = "2026-12-01T00:00:00Z" }, "time_out_of_scope"},
		// 11. authorized
		{"authorized", nil, nil, ""},
		{"authorized with offsets", func(e *Envelope) {
			e.ValidFrom = strp("2026-09-01T05:30:00+05:30")
			e.ValidUntil = strp("2026-09-30T20:00:00-04:00")
		}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := authorizingEnvelope("auth_a")
			if tc.rec != nil {
				tc.rec(e)
			}
			tx := authorizingTx()
			if tc.tx != nil {
				tc.tx(&tx)
			}
			if got := Denial(testIssuers, e, tx); got != tc.want {
				t.Errorf("Denial = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDenialIssuerList(t *testing.T) {
	e := authorizingEnvelope("auth_a")
	e.Issuer = strp("controller")
	if got := Denial([]string{"chief_financial_officer", "controller"}, e, authorizingTx()); got != "" {
		t.Errorf("second authorized issuer: %q", got)
	}
	if got := Denial(nil, authorizingEnvelope("auth_a"), authorizingTx()); got != "issuer_not_authoritative" {
		t.Errorf("no authorized issuers: %q", got)
	}
}

// TestEvaluateRecords is the toolkit's multi-record rule on procurement records.
func TestEvaluateRecords(t *testing.T) {
	revoked := func(id string) *Envelope { e := authorizingEnvelope(id); e.State = "revoked"; return e }
	small := func(id string) *Envelope { e := authorizingEnvelope(id); e.Scope.MaxAmount = i64p(100); return e }
	otherCategory := func(id string) *Envelope {
		e := authorizingEnvelope(id)
		e.Scope.AllowedCategories = []string{"hardware"}
		return e
	}
	bigOtherCategory := func(id string) *Envelope {
		e := otherCategory(id)
		e.Scope.MaxAmount = i64p(100000)
		return e
	}
	cases := []struct {
		name    string
		records []*Envelope
		tx      func(*Transaction)
		want    engine.Verdict
	}{
		{"no records", nil, nil, engine.Verdict{Authorized: false, Reason: "no_authorization_record"}},
		{"one authorizing", []*Envelope{authorizingEnvelope("auth_a")}, nil, engine.Verdict{Authorized: true, Reason: "authorized:auth_a"}},
		{"denials sorted by id", []*Envelope{revoked("auth_b"), small("auth_a")}, nil,
			engine.Verdict{Reason: "no_matching_authorization:auth_a=amount_out_of_scope;auth_b=status_revoked"}},
		{"python string order of ids", []*Envelope{revoked("auth_9"), revoked("auth_10"), revoked("Auth_z")}, nil,
			engine.Verdict{Reason: "no_matching_authorization:Auth_z=status_revoked;auth_10=status_revoked;auth_9=status_revoked"}},
		{"first authorizing record in id order wins", []*Envelope{authorizingEnvelope("auth_c"), authorizingEnvelope("auth_b")}, nil,
			engine.Verdict{Authorized: true, Reason: "authorized:auth_b"}},
		{"earlier denials are not reported once one authorizes", []*Envelope{authorizingEnvelope("auth_b"), revoked("auth_a")}, nil,
			engine.Verdict{Authorized: true, Reason: "authorized:auth_b"}},
		{"fields are never combined across records", []*Envelope{small("auth_a"), bigOtherCategory("auth_b")}, nil,
			engine.Verdict{Reason: "no_matching_authorization:auth_a=amount_out_of_scope;auth_b=category_out_of_scope"}},
		{"missing reason in the list", []*Envelope{func() *Envelope { e := authorizingEnvelope("auth_a"); e.Issuer = nil; e.Scope.Vendor = nil; return e }()}, nil,
			engine.Verdict{Reason: "no_matching_authorization:auth_a=missing_or_unknown:issuer,vendor"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx := authorizingTx()
			if tc.tx != nil {
				tc.tx(&tx)
			}
			recs := make([]engine.Record, len(tc.records))
			for i, r := range tc.records {
				recs[i] = r
			}
			got := engine.EvaluateRecords(recs, func(r engine.Record) string { return Denial(testIssuers, r.(*Envelope), tx) })
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			// The same through the Domain interface (value and pointer requests).
			ec := &engine.Case{ID: "c", AuthorizedIssuers: testIssuers}
			for _, req := range []any{tx, &tx} {
				if got := engine.Authorizes(Domain{}, ec, recs, req); got != tc.want {
					t.Errorf("engine.Authorizes(%T) = %+v, want %+v", req, got, tc.want)
				}
			}
		})
	}
}

// TestDenialPythonWhitespace: procurement_denial and the reason checks use Python's
// str.strip(), which also strips the C0 separators U+001C..U+001F; Go's strings.TrimSpace does
// not. (pydantic's strip_whitespace, used by the typed schema, does not strip them either, so
// ParseTypedPayload is right to keep them.)
func TestDenialPythonWhitespace(t *testing.T) {
	e := authorizingEnvelope("auth_a")
	e.Scope.Vendor = strp("unknown\x1f")
	if got := Denial(testIssuers, e, authorizingTx()); got != "missing_or_unknown:vendor" {
		t.Errorf("vendor \"unknown\\x1f\": %q, want missing_or_unknown:vendor", got)
	}
	c := &Case{AuthorizedIssuers: testIssuers}
	if s := scoreToolCall(c, nil, authorizingTx(), ToolDeclineOrder, map[string]any{"reason": "\x1c\x1d"}); s.Valid {
		t.Error("a reason of only U+001C/U+001D is blank for Python's str.strip()")
	}
}
