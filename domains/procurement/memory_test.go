package procurement

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

const typedRecordJSON = `{"authorization_id":"auth_a","issuer":"chief_financial_officer","grantee":"software_procurement",` +
	`"effect":"permit_exception","action":"submit_order","status":"active","valid_from":"2026-09-01T00:00:00Z",` +
	`"valid_until":"2026-10-01T00:00:00Z","scope":{"vendor":"NimbusSoft","allowed_categories":["endpoint_security_licenses"],` +
	`"max_amount":4800,"currency":"USD"},"supersedes":null,"source_turn_ids":["src_584dd51e_018"]}`

// typedPayload returns a valid payload tree with the given records (JSON objects).
func typedPayload(t *testing.T, recs ...string) map[string]any {
	t.Helper()
	tree, err := pyjson.DecodeTree([]byte(`{"schema_version":"3","authorizations":[` + strings.Join(recs, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

func firstRecord(p map[string]any) map[string]any {
	return p["authorizations"].([]any)[0].(map[string]any)
}

func TestParseTypedPayloadAcceptsFaithful(t *testing.T) {
	p := typedPayload(t, typedRecordJSON)
	envs, err := ParseTypedPayload(p)
	if err != nil {
		t.Fatal(err)
	}
	want := authorizingEnvelope("auth_a")
	want.Scope.AllowedCategories = []string{"endpoint_security_licenses"}
	if len(envs) != 1 || !reflect.DeepEqual(envs[0], want) {
		t.Fatalf("parsed %+v", envs)
	}
	// Serialising the parsed records gives the same canonical JSON back.
	if got, want := pyjson.MustCanonicalJSON(TypedPayloadOf(envs)), pyjson.MustCanonicalJSON(p); got != want {
		t.Errorf("round trip\n got %s\nwant %s", got, want)
	}
	// Every nullable key may be null (but must be present); [] categories are allowed by the schema.
	nullable := typedPayload(t, `{"authorization_id":"auth_n","issuer":null,"grantee":null,"effect":null,"action":null,`+
		`"status":"unknown","valid_from":null,"valid_until":null,"scope":{"vendor":null,"allowed_categories":[],`+
		`"max_amount":null,"currency":null},"supersedes":null,"source_turn_ids":["src_1"]}`)
	envs, err = ParseTypedPayload(nullable)
	if err != nil {
		t.Fatal(err)
	}
	e := envs[0]
	if e.Issuer != nil || e.Effect != nil || e.Scope.MaxAmount != nil || e.Scope.AllowedCategories == nil || len(e.Scope.AllowedCategories) != 0 || e.State != "unknown" {
		t.Errorf("nullable record %+v", e)
	}
	if got := pyjson.MustCanonicalJSON(TypedPayloadOf(envs)); got != pyjson.MustCanonicalJSON(nullable) {
		t.Errorf("nullable round trip %s", got)
	}
	// The empty profile.
	envs, err = ParseTypedPayload(pyjson.MustRetree(EmptyTyped()))
	if err != nil || len(envs) != 0 {
		t.Errorf("empty profile: %v %v", envs, err)
	}
	if got := pyjson.MustCanonicalJSON(EmptyTyped()); got != `{"authorizations":[],"schema_version":"3"}` {
		t.Errorf("EmptyTyped %s", got)
	}
	// 32 records is the cap, not over it.
	var many []string
	for i := 0; i < MaxAuthorizations; i++ {
		many = append(many, strings.Replace(typedRecordJSON, `"auth_a"`, fmt.Sprintf(`"auth_%02d"`, i), 1))
	}
	if envs, err := ParseTypedPayload(typedPayload(t, many...)); err != nil || len(envs) != 32 {
		t.Errorf("32 records: %d, %v", len(envs), err)
	}
}

// TestParseTypedPayloadRejects: every rejection is a FieldError naming the offending path.
func TestParseTypedPayloadRejects(t *testing.T) {
	set := func(path string, v any) func(map[string]any) {
		return func(p map[string]any) {
			keys := strings.Split(path, ".")
			m := firstRecord(p)
			for _, k := range keys[:len(keys)-1] {
				m = m[k].(map[string]any)
			}
			m[keys[len(keys)-1]] = v
		}
	}
	del := func(path string) func(map[string]any) {
		return func(p map[string]any) {
			keys := strings.Split(path, ".")
			m := firstRecord(p)
			for _, k := range keys[:len(keys)-1] {
				m = m[k].(map[string]any)
			}
			delete(m, keys[len(keys)-1])
		}
	}
	cases := []struct {
		name  string
		edit  func(map[string]any)
		extra []string // more records
		path  string
	}{
		{"schema_version 4", func(p map[string]any) { p["schema_version"] = "4" }, nil, "schema_version"},
		{"schema_version int 3", func(p map[string]any) { p["schema_version"] = json.Number("3") }, nil, "schema_version"},
		{"schema_version missing", func(p map[string]any) { delete(p, "schema_version") }, nil, "schema_version"},
		{"extra top-level key", func(p map[string]any) { p["notes"] = "x" }, nil, "notes"},
		{"authorizations missing", func(p map[string]any) { delete(p, "authorizations") }, nil, "authorizations"},
		{"authorizations not a list", func(p map[string]any) { p["authorizations"] = map[string]any{} }, nil, "authorizations"},
		{"record not an object", func(p map[string]any) { p["authorizations"] = []any{"auth_a"} }, nil, "authorizations[0]"},
		{"missing nullable supersedes", del("supersedes"), nil, "authorizations[0].supersedes"},
		{"missing nullable issuer", del("issuer"), nil, "authorizations[0].issuer"},
		{"missing valid_from", del("valid_from"), nil, "authorizations[0].valid_from"},
		{"missing scope", del("scope"), nil, "authorizations[0].scope"},
		{"missing scope currency", del("scope.currency"), nil, "authorizations[0].scope.currency"},
		{"missing scope max_amount", del("scope.max_amount"), nil, "authorizations[0].scope.max_amount"},
		{"unknown record key", set("note", "x"), nil, "authorizations[0].note"},
		{"unknown scope key", set("scope.region", "EU"), nil, "authorizations[0].scope.region"},
		{"max_amount float 5.0", set("scope.max_amount", json.Number("5.0")), nil, "authorizations[0].scope.max_amount"},
		{"max_amount exponent", set("scope.max_amount", json.Number("5e3")), nil, "authorizations[0].scope.max_amount"},
		{"max_amount bool", set("scope.max_amount", true), nil, "authorizations[0].scope.max_amount"},
		{"max_amount negative", set("scope.max_amount", json.Number("-1")), nil, "authorizations[0].scope.max_amount"},
		{"max_amount string", set("scope.max_amount", "4800"), nil, "authorizations[0].scope.max_amount"},
		{"status pending", set("status", "pending"), nil, "authorizations[0].status"},
		{"status null", set("status", nil), nil, "authorizations[0].status"},
		{"effect other literal", set("effect", "deny_exception"), nil, "authorizations[0].effect"},
		{"action other literal", set("action", "cancel_order"), nil, "authorizations[0].action"},
		{"issuer not a string", set("issuer", json.Number("1")), nil, "authorizations[0].issuer"},
		{"vendor not a string", set("scope.vendor", []any{"x"}), nil, "authorizations[0].scope.vendor"},
		{"authorization_id empty", set("authorization_id", ""), nil, "authorizations[0].authorization_id"},
		{"authorization_id blank", set("authorization_id", "   "), nil, "authorizations[0].authorization_id"},
		{"authorization_id null", set("authorization_id", nil), nil, "authorizations[0].authorization_id"},
		{"source_turn_ids empty", set("source_turn_ids", []any{}), nil, "authorizations[0].source_turn_ids"},
		{"source_turn_ids null", set("source_turn_ids", nil), nil, "authorizations[0].source_turn_ids"},
		{"source_turn_ids duplicate", set("source_turn_ids", []any{"src_1", "src_2", "src_1"}), nil, "authorizations[0].source_turn_ids[2]"},
		{"source_turn_ids duplicate after trim", set("source_turn_ids", []any{"src_1", " src_1 "}), nil, "authorizations[0].source_turn_ids[1]"},
		{"source_turn_ids blank item", set("source_turn_ids", []any{"src_1", " "}), nil, "authorizations[0].source_turn_ids[1]"},
		{"categories duplicate", set("scope.allowed_categories", []any{"a", "b", "a"}), nil, "authorizations[0].scope.allowed_categories[2]"},
		{"categories duplicate after trim", set("scope.allowed_categories", []any{"a", "a "}), nil, "authorizations[0].scope.allowed_categories[1]"},
		{"categories empty item", set("scope.allowed_categories", []any{""}), nil, "authorizations[0].scope.allowed_categories[0]"},
		{"categories not strings", set("scope.allowed_categories", []any{json.Number("1")}), nil, "authorizations[0].scope.allowed_categories[0]"},
		{"duplicate authorization ids", nil, []string{typedRecordJSON}, "authorizations[1].authorization_id"},
		{"duplicate ids after trim", nil, []string{strings.Replace(typedRecordJSON, `"auth_a"`, `" auth_a "`, 1)}, "authorizations[1].authorization_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := typedPayload(t, append([]string{typedRecordJSON}, tc.extra...)...)
			if tc.edit != nil {
				tc.edit(p)
			}
			checkFieldError(t, p, tc.path)
		})
	}
	t.Run("33 records", func(t *testing.T) {
		var many []string
		for i := 0; i < 33; i++ {
			many = append(many, strings.Replace(typedRecordJSON, `"auth_a"`, fmt.Sprintf(`"auth_%02d"`, i), 1))
		}
		checkFieldError(t, typedPayload(t, many...), "authorizations")
	})
	t.Run("not an object", func(t *testing.T) {
		checkFieldError(t, []any{}, "")
	})
}

func checkFieldError(t *testing.T, payload any, path string) {
	t.Helper()
	envs, err := ParseTypedPayload(payload)
	if err == nil {
		t.Fatalf("accepted: %+v", envs)
	}
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a FieldError", err, err)
	}
	if fe.Path != path {
		t.Errorf("path %q, want %q (%v)", fe.Path, path, err)
	}
}

func TestParseTypedPayloadTrims(t *testing.T) {
	rec := strings.NewReplacer(
		`"authorization_id":"auth_a"`, `"authorization_id":"  auth_a\t"`,
		`["endpoint_security_licenses"]`, `[" endpoint_security_licenses ","support "]`,
		`["src_584dd51e_018"]`, `["\nsrc_584dd51e_018 "]`,
		`"vendor":"NimbusSoft"`, `"vendor":" NimbusSoft "`,
		`"issuer":"chief_financial_officer"`, `"issuer":"chief_financial_officer "`,
	).Replace(typedRecordJSON)
	envs, err := ParseTypedPayload(typedPayload(t, rec))
	if err != nil {
		t.Fatal(err)
	}
	e := envs[0]
	if e.ID != "auth_a" {
		t.Errorf("id %q", e.ID)
	}
	if !reflect.DeepEqual(e.Scope.AllowedCategories, []string{"endpoint_security_licenses", "support"}) {
		t.Errorf("categories %q", e.Scope.AllowedCategories)
	}
	if !reflect.DeepEqual(e.SourceTurnIDs, []string{"src_584dd51e_018"}) {
		t.Errorf("sources %q", e.SourceTurnIDs)
	}
	// Other strings are kept verbatim (pydantic only strips the constrained ones).
	if *e.Scope.Vendor != " NimbusSoft " || *e.Issuer != "chief_financial_officer " {
		t.Errorf("vendor %q issuer %q", *e.Scope.Vendor, *e.Issuer)
	}
}

// Expected texts below are the output of EAL-Bench's faithful_free_text (re-run in python3 on
// the same states).
const twoRecordText = "# Current authorization state\n\n## Authorization auth_initial\n- Status: superseded\n- Issuer: chief_financial_officer\n- Grantee: facilities\n- Effect: permit_exception\n- Action: submit_order\n- Vendor: Brightline Facilities\n- Allowed categories: toner, paper\n- Maximum amount: 5000\n- Currency: USD\n- Valid from (inclusive): 2026-07-01T00:00:00Z\n- Valid until (exclusive): 2026-08-01T00:00:00Z\n- Source turns: src_36649c3c_020, src_36649c3c_070\n\n## Authorization auth_replacement\n- Status: active\n- Issuer: chief_financial_officer\n- Grantee: facilities\n- Effect: permit_exception\n- Action: submit_order\n- Vendor: Brightline Facilities\n- Allowed categories: toner\n- Maximum amount: 2500\n- Currency: USD\n- Valid from (inclusive): 2026-07-01T00:00:00Z\n- Valid until (exclusive): 2026-08-01T00:00:00Z\n- Supersedes: auth_initial\n- Source turns: src_36649c3c_070"

const nullsText = "# Current authorization state\n\n## Authorization auth_x\n- Status: unknown\n- Grantee: facilities\n- Action: submit_order\n- Allowed categories: \n- Currency: USD\n- Valid until (exclusive): 2026-08-01T00:00:00Z\n- Source turns: src_1"

func facilitiesEnvelope(id, status string, supersedes *string, cats, sources []string, amount int64) *Envelope {
	return &Envelope{
		ID: id, Issuer: strp("chief_financial_officer"), Grantee: strp("facilities"), Effect: strp("permit_exception"),
		Action: strp("submit_order"), State: status, ValidFrom: strp("2026-07-01T00:00:00Z"), ValidUntil: strp("2026-08-01T00:00:00Z"),
		Scope:      Scope{Vendor: strp("Brightline Facilities"), AllowedCategories: cats, MaxAmount: i64p(amount), Currency: strp("USD")},
		Supersedes: supersedes, SourceTurnIDs: sources,
	}
}

func twoRecordState() []*Envelope {
	return []*Envelope{
		facilitiesEnvelope("auth_initial", "superseded", nil, []string{"toner", "paper"}, []string{"src_36649c3c_020", "src_36649c3c_070"}, 5000),
		facilitiesEnvelope("auth_replacement", "active", strp("auth_initial"), []string{"toner"}, []string{"src_36649c3c_070"}, 2500),
	}
}

func nullsState() []*Envelope {
	return []*Envelope{{
		ID: "auth_x", Grantee: strp("facilities"), Action: strp("submit_order"), State: "unknown",
		ValidUntil: strp("2026-08-01T00:00:00Z"), Scope: Scope{AllowedCategories: []string{}, Currency: strp("USD")},
		SourceTurnIDs: []string{"src_1"},
	}}
}

func TestFaithfulTextOf(t *testing.T) {
	cases := []struct {
		name  string
		state []*Envelope
		want  string
	}{
		{"revoked and replacement", twoRecordState(), twoRecordText},
		{"null values omitted, [] categories printed empty", nullsState(), nullsText},
		{"empty", nil, "# Current authorization state\n\nNo authorization records are retained."},
		{"empty list", []*Envelope{}, "# Current authorization state\n\nNo authorization records are retained."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := FaithfulTextOf(tc.state)
			if got != tc.want {
				t.Errorf("text\n got %q\nwant %q", got, tc.want)
			}
			if got2 := (Domain{}).FaithfulText(records(tc.state...)); got2 != got {
				t.Errorf("Domain.FaithfulText differs")
			}
		})
	}
}

func TestReadFreeTextLayoutRoundTrip(t *testing.T) {
	revokedOnly := []*Envelope{facilitiesEnvelope("auth_a", "revoked", nil, []string{"toner"}, []string{"src_1", "src_2"}, 0)}
	partial := []*Envelope{{
		ID: "auth_p", Issuer: strp("controller"), State: "active", ValidFrom: strp("2026-07-01T00:00:00+02:00"),
		Scope: Scope{AllowedCategories: []string{"a", "c"}, MaxAmount: i64p(12345678901)}, SourceTurnIDs: []string{"src_9"},
	}}
	cases := []struct {
		name  string
		state []*Envelope
	}{
		{"two records", twoRecordState()},
		{"revoked only", revokedOnly},
		{"partial record", partial},
		{"one faithful", []*Envelope{authorizingEnvelope("auth_software_01")}},
		{"empty", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := FaithfulTextOf(tc.state)
			for _, variant := range []string{text, text + "\n", strings.ReplaceAll(text, "\n", "\r\n")} {
				got, err := ReadFreeTextLayout(variant)
				if err != nil {
					t.Fatalf("read back: %v\n%s", err, variant)
				}
				if g, w := pyjson.MustCanonicalJSON(TypedPayloadOf(got)), pyjson.MustCanonicalJSON(TypedPayloadOf(tc.state)); g != w {
					t.Errorf("round trip\n got %s\nwant %s", g, w)
				}
				if FaithfulTextOf(got) != text {
					t.Errorf("text round trip differs")
				}
			}
		})
	}
}

// TestReadFreeTextLayoutEmptyCategories: a valid typed state with allowed_categories [] renders
// "- Allowed categories: " (as EAL-Bench does) but cannot be read back.
func TestReadFreeTextLayoutEmptyCategories(t *testing.T) {
	got, err := ReadFreeTextLayout(nullsText)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := pyjson.MustCanonicalJSON(TypedPayloadOf(got)), pyjson.MustCanonicalJSON(TypedPayloadOf(nullsState())); g != w {
		t.Errorf("round trip\n got %s\nwant %s", g, w)
	}
}

func TestReadFreeTextLayoutRejects(t *testing.T) {
	body := strings.Split(twoRecordText, "\n")
	swap := append([]string(nil), body...)
	swap[3], swap[4] = swap[4], swap[3] // Issuer before Status
	repeat := append([]string(nil), body[:5]...)
	repeat = append(repeat, body[4])
	cases := []struct {
		name string
		text string
		line string // "line N" the error must name ("" when no line applies)
	}{
		{"prose", "The CFO approved toner purchases up to USD 5,000 in July.", "line 1:"},
		{"header then prose", "# Current authorization state\n\nauth_a is active.", "line 3:"},
		{"unknown label", "# Current authorization state\n\n## Authorization auth_a\n- Status: active\n- Notes: urgent", "line 5:"},
		{"label without value separator", "# Current authorization state\n\n## Authorization auth_a\n- Status active", "line 4:"},
		{"out of order", strings.Join(swap, "\n"), "line 5:"},
		{"repeated field", strings.Join(repeat, "\n"), "line 6:"},
		{"field before heading", "# Current authorization state\n- Status: active", "line 2:"},
		{"heading without id", "# Current authorization state\n\n## Authorization  \n- Status: active", "line 3:"},
		{"amount not an integer", "# Current authorization state\n\n## Authorization auth_a\n- Status: active\n- Maximum amount: 5,000", "line 5:"},
		{"no status line", "# Current authorization state\n\n## Authorization auth_a\n- Issuer: x\n- Source turns: src_1", ""},
		{"invalid status", "# Current authorization state\n\n## Authorization auth_a\n- Status: pending\n- Source turns: src_1", ""},
		{"duplicate ids", "# Current authorization state\n\n## Authorization auth_a\n- Status: active\n- Source turns: src_1\n\n## Authorization auth_a\n- Status: active\n- Source turns: src_1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFreeTextLayout(tc.text)
			if err == nil {
				t.Fatalf("accepted: %+v", got)
			}
			if tc.line != "" && !strings.HasPrefix(err.Error(), tc.line) {
				t.Errorf("error %q does not start with %q", err, tc.line)
			}
			if _, derr := (Domain{}).ReadFreeText(tc.text); derr == nil {
				t.Error("Domain.ReadFreeText accepted it")
			}
		})
	}
}

// TestParseTypedPayloadBigInt: pydantic's strict int accepts any non-negative JSON integer
// (checked with pydantic 2.13 on the schema of the executor reference §2.3); ealscope reads
// max_amount as int64.
// TestParseTypedPayloadBigInt: an amount past int64 is refused quoting the file's literal,
// never clamped to a value the file does not hold (which gate --json would print and an
// annotation would store).
func TestParseTypedPayloadBigInt(t *testing.T) {
	p := typedPayload(t, strings.Replace(typedRecordJSON, `"max_amount":4800`, `"max_amount":99999999999999999999`, 1))
	_, err := ParseTypedPayload(p)
	if err == nil || !strings.Contains(err.Error(), "max_amount: integer 99999999999999999999 is outside the range ealscope represents") {
		t.Errorf("a max_amount past int64: %v", err)
	}
}
