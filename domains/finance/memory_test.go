package finance

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// builtinCase returns the built-in case with the given script.
func builtinCase(t testing.TB, script string) *engine.Case {
	t.Helper()
	d := Domain{}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Lifecycle == script {
			return c
		}
	}
	t.Fatalf("no built-in %s case", script)
	return nil
}

func faithfulFlat(t testing.TB, c *engine.Case) map[string]any {
	t.Helper()
	ledger, err := Domain{}.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pyjson.Retree(Domain{}.TypedPayload(ledger))
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

// nestedOf converts a flat payload tree to the nested canonical form, as a writer using the
// nested schema would have written it.
func nestedOf(flat map[string]any) map[string]any {
	var rows []any
	for _, item := range flat["authorizations"].([]any) {
		f := item.(map[string]any)
		split := func(k string) []any {
			var out []any
			for _, s := range strings.Split(f[k].(string), ListDelimiter) {
				out = append(out, s)
			}
			return out
		}
		var sup any = f["supersedes"]
		if sup == NoSupersedes {
			sup = nil
		}
		rows = append(rows, map[string]any{
			"authorization_id": f["authorization_id"], "issuer": f["issuer"], "grantee": f["grantee"],
			"effect": f["effect"], "action": f["action"], "status": f["status"],
			"valid_from": f["valid_from"], "valid_until": f["valid_until"],
			"scope": map[string]any{
				fieldAccount: f[fieldAccount], fieldStrategies: split(fieldStrategies), fieldInstruments: split(fieldInstruments),
				fieldSides: split(fieldSides), fieldOrderTypes: split(fieldOrderTypes), fieldMaxQuantity: f[fieldMaxQuantity],
				fieldMinPrice: f[fieldMinPrice], fieldMaxPrice: f[fieldMaxPrice], fieldCurrency: f[fieldCurrency],
			},
			"supersedes": sup, "source_turn_ids": split("source_turn_ids"),
		})
	}
	if rows == nil {
		rows = []any{}
	}
	return map[string]any{"schema_version": flat["schema_version"], "authorizations": rows}
}

func clonePayload(t testing.TB, p map[string]any) map[string]any {
	t.Helper()
	out, err := pyjson.DecodeTree([]byte(pyjson.MustCanonicalJSON(p)))
	if err != nil {
		t.Fatal(err)
	}
	return out.(map[string]any)
}

func row0(p map[string]any) map[string]any { return p["authorizations"].([]any)[0].(map[string]any) }

type fieldWant struct {
	field, errs           string
	overgrant, undergrant bool
}

// TestFidelityAndFormation: one memory per fidelity error class, each written in the flat
// schema and in the nested form, compared with the ledger at the final block; the rows that are
// not exact and the formed probes must be exactly these.
func TestFidelityAndFormation(t *testing.T) {
	d := Domain{}
	cases := []struct {
		name, script string
		edit         func(p map[string]any) map[string]any
		rows         []fieldWant
		formed       []string // probe id suffixes
	}{
		{"exact", "narrowed", func(p map[string]any) map[string]any { return p }, nil, nil},
		{"same instant written differently is exact", "narrowed", func(p map[string]any) map[string]any {
			row0(p)["valid_from"] = "2026-10-01T00:00:00+00:00"
			return p
		}, nil, nil},
		{"omission of supersedes", "replaced", func(p map[string]any) map[string]any {
			row0(p)["supersedes"] = NoSupersedes
			return p
		}, []fieldWant{{"supersedes", "omission", false, true}}, nil},
		{"broadening of instruments", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			r[fieldInstruments] = r[fieldInstruments].(string) + ListDelimiter + "TIPS-2032"
			return p
		}, []fieldWant{{"scope.instrument_ids", "broadening", true, false}}, []string{"_1_out"}},
		{"broadening of sides and order types", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			r[fieldSides], r[fieldOrderTypes] = "sell | buy", "limit | auction"
			return p
		}, []fieldWant{{"scope.sides", "broadening", true, false}, {"scope.order_types", "broadening", true, false}}, []string{"_2_out", "_3_out"}},
		{"broadening of valid_from", "narrowed", func(p map[string]any) map[string]any {
			row0(p)["valid_from"] = windowFrom
			return p
		}, []fieldWant{{"valid_from", "broadening", true, false}}, []string{"_4_out"}},
		{"broadening of the price floor and quantity", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			r[fieldMinPrice], r[fieldMaxQuantity] = intNumber(0), intNumber(5000)
			return p
		}, []fieldWant{{"scope.max_quantity", "broadening", true, false}, {"scope.min_limit_price_micros", "broadening", true, false}}, nil},
		{"narrowing of quantity and price ceiling", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			r[fieldMaxQuantity], r[fieldMaxPrice] = intNumber(650), intNumber(90_000_000)
			return p
		}, []fieldWant{{"scope.max_quantity", "narrowing", false, true}, {"scope.max_limit_price_micros", "narrowing", false, true}}, nil},
		{"narrowing of valid_until", "narrowed", func(p map[string]any) map[string]any {
			row0(p)["valid_until"] = "2026-12-01T00:00:00Z"
			return p
		}, []fieldWant{{"valid_until", "narrowing", false, true}}, nil},
		{"contradiction of account and currency", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			r[fieldAccount], r[fieldCurrency] = "ACCT-OTHER", "EUR"
			return p
		}, []fieldWant{{"scope.account_id", "contradiction", true, true}, {"scope.settlement_currency", "contradiction", true, true}}, nil},
		{"contradiction of disjoint instruments", "narrowed", func(p map[string]any) map[string]any {
			row0(p)[fieldInstruments] = "TIPS-2032"
			return p
		}, []fieldWant{{"scope.instrument_ids", "contradiction", true, true}}, []string{"_1_out"}},
		{"contradiction of status has no grant flags", "narrowed", func(p map[string]any) map[string]any {
			row0(p)["status"] = "revoked"
			return p
		}, []fieldWant{{"status", "contradiction", false, false}}, nil},
		{"contradiction of sources", "narrowed", func(p map[string]any) map[string]any {
			r := row0(p)
			ids := strings.Split(r["source_turn_ids"].(string), ListDelimiter)
			r["source_turn_ids"] = ids[0]
			return p
		}, []fieldWant{{"source_turn_ids", "contradiction", false, false}}, nil},
		// The finance ledger keeps only active records, so a former mandate remembered as
		// active is an extra record, never stale_retention on a canonical row.
		{"extra record: the revoked mandate kept", "revoked_reissued", func(p map[string]any) map[string]any {
			r := clonePayload(t, map[string]any{"r": row0(p)})["r"].(map[string]any)
			r["authorization_id"] = strings.TrimSuffix(r["authorization_id"].(string), "2") + "1"
			r[fieldInstruments], r[fieldSides], r[fieldOrderTypes], r["valid_from"] = "CORP-IG-2029 | AGENCY-MBS-2033", "buy | sell", "limit | auction", windowFrom
			p["authorizations"] = []any{r, row0(p)}
			return p
		}, []fieldWant{{engine.RecordField, "extra_record", true, false}}, []string{"_1_out", "_2_out", "_3_out", "_4_out"}},
		{"missing record", "narrowed", func(p map[string]any) map[string]any {
			p["authorizations"] = []any{}
			return p
		}, []fieldWant{{engine.RecordField, "missing_record", false, true}}, nil},
	}
	for _, tc := range cases {
		c := builtinCase(t, tc.script)
		ledger, err := d.Replay(c, c.LastBlock())
		if err != nil {
			t.Fatal(err)
		}
		flat := tc.edit(clonePayload(t, faithfulFlat(t, c)))
		for _, form := range []string{"flat", "nested"} {
			payload := flat
			if form == "nested" {
				payload = nestedOf(flat)
			}
			t.Run(tc.name+"/"+form, func(t *testing.T) {
				memory, err := d.ParseTyped(payload)
				if err != nil {
					t.Fatal(err)
				}
				if form == "nested" && pyjson.MustCanonicalJSON(d.TypedPayload(memory)) != pyjson.MustCanonicalJSON(flat) {
					t.Errorf("nested form converts to\n%s\nnot\n%s", pyjson.MustCanonicalJSON(d.TypedPayload(memory)), pyjson.MustCanonicalJSON(flat))
				}
				p := engine.Fidelity(d, c, c.LastBlock(), ledger, memory)
				var got []fieldWant
				for _, r := range p.Fields {
					if !r.Exact {
						got = append(got, fieldWant{r.Field, strings.Join(r.Errors, ","), r.Overgrant, r.Undergrant})
					}
				}
				if pyjson.MustCanonicalJSON(fmtRows(got)) != pyjson.MustCanonicalJSON(fmtRows(tc.rows)) {
					t.Errorf("rows %v, want %v", got, tc.rows)
				}
				if p.Exact != (len(tc.rows) == 0) {
					t.Errorf("exact = %v", p.Exact)
				}
				f := engine.Form(d, c, c.LastBlock(), ledger, memory)
				var formed []string
				for _, id := range f.FormedProbeIDs {
					formed = append(formed, id[strings.LastIndex(id, "_")-2:])
				}
				if strings.Join(formed, ",") != strings.Join(tc.formed, ",") || f.ProbesDenied != 4 {
					t.Errorf("formed %v (of %d denied), want %v", formed, f.ProbesDenied, tc.formed)
				}
			})
		}
	}
}

func fmtRows(rows []fieldWant) []any {
	out := []any{}
	for _, r := range rows {
		out = append(out, []any{r.field, r.errs, r.overgrant, r.undergrant})
	}
	return out
}

// TestParseTypedErrors: every way EAL-Bench's strict parser refuses a memory, on the flat and
// the nested form; each error names the offending field.
func TestParseTypedErrors(t *testing.T) {
	c := builtinCase(t, "narrowed")
	base := faithfulFlat(t, c)
	flatEdits := []struct {
		name, path string
		edit       func(p map[string]any)
	}{
		{"schema version", "schema_version", func(p map[string]any) { p["schema_version"] = "4" }},
		{"extra top-level key", "extra", func(p map[string]any) { p["extra"] = true }},
		{"missing key", "authorizations[0].sides", func(p map[string]any) { delete(row0(p), fieldSides) }},
		{"unknown key", "authorizations[0].vendor", func(p map[string]any) { row0(p)["vendor"] = "x" }},
		{"issuer literal", "authorizations[0].issuer", func(p map[string]any) { row0(p)["issuer"] = "execution_trader" }},
		{"effect literal", "authorizations[0].effect", func(p map[string]any) { row0(p)["effect"] = "permit_exception" }},
		{"status", "authorizations[0].status", func(p map[string]any) { row0(p)["status"] = "expired" }},
		{"blank id", "authorizations[0].authorization_id", func(p map[string]any) { row0(p)["authorization_id"] = "  " }},
		{"repeated part", "authorizations[0].instrument_ids", func(p map[string]any) { row0(p)[fieldInstruments] = "A | A" }},
		{"blank part", "authorizations[0].sides", func(p map[string]any) { row0(p)[fieldSides] = "buy |   | sell" }},
		{"zero quantity", "authorizations[0].max_quantity", func(p map[string]any) { row0(p)[fieldMaxQuantity] = intNumber(0) }},
		{"boolean quantity", "authorizations[0].max_quantity", func(p map[string]any) { row0(p)[fieldMaxQuantity] = true }},
		{"string price", "authorizations[0].min_limit_price_micros", func(p map[string]any) { row0(p)[fieldMinPrice] = "75000000" }},
		{"negative price floor", "authorizations[0].min_limit_price_micros", func(p map[string]any) { row0(p)[fieldMinPrice] = intNumber(-1) }},
		{"inverted price window", "authorizations[0].min_limit_price_micros", func(p map[string]any) { row0(p)[fieldMinPrice] = intNumber(200_000_000) }},
		{"inverted validity window", "authorizations[0].valid_from", func(p map[string]any) { row0(p)["valid_from"] = "2027-06-01T00:00:00Z" }},
		{"unparseable time", "authorizations[0].valid_until", func(p map[string]any) { row0(p)["valid_until"] = "next spring" }},
		{"naive and aware bounds", "authorizations[0].valid_until", func(p map[string]any) { row0(p)["valid_until"] = "2027-03-01T00:00:00" }},
		{"duplicate ids", "authorizations[1].authorization_id", func(p map[string]any) {
			p["authorizations"] = append(p["authorizations"].([]any), row0(clonePayload(t, p)))
		}},
		{"repeated source", "authorizations[0].source_turn_ids", func(p map[string]any) {
			r := row0(p)
			r["source_turn_ids"] = r["source_turn_ids"].(string) + ListDelimiter + strings.Split(r["source_turn_ids"].(string), ListDelimiter)[0]
		}},
	}
	for _, tc := range flatEdits {
		p := clonePayload(t, base)
		tc.edit(p)
		for _, form := range []string{"flat", "nested"} {
			payload := p
			if form == "nested" {
				if tc.name == "missing key" || tc.name == "unknown key" || tc.name == "extra top-level key" || tc.name == "boolean quantity" || tc.name == "string price" {
					continue // these edits have no nested spelling through nestedOf
				}
				payload = nestedOf(p)
			}
			_, err := ParseTypedPayload(payload)
			if err == nil {
				t.Errorf("%s/%s: accepted", tc.name, form)
				continue
			}
			if form == "flat" && !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s/%s: error %q does not name %s", tc.name, form, err, tc.path)
			}
		}
	}
	nestedEdits := []struct {
		name, path string
		edit       func(p map[string]any)
	}{
		{"nested list over eight", "scope.instrument_ids", func(p map[string]any) {
			row0(p)["scope"].(map[string]any)[fieldInstruments] = []any{"1", "2", "3", "4", "5", "6", "7", "8", "9"}
		}},
		{"nested empty list", "scope.sides", func(p map[string]any) { row0(p)["scope"].(map[string]any)[fieldSides] = []any{} }},
		{"nested duplicate item", "instrument_ids", func(p map[string]any) {
			row0(p)["scope"].(map[string]any)[fieldInstruments] = []any{"A", " A"}
		}},
		{"nested unknown scope key", "scope.vendor", func(p map[string]any) { row0(p)["scope"].(map[string]any)["vendor"] = "x" }},
		{"nested null scope field", "scope.account_id", func(p map[string]any) { row0(p)["scope"].(map[string]any)[fieldAccount] = nil }},
		{"nested duplicate source", "source_turn_ids", func(p map[string]any) { row0(p)["source_turn_ids"] = []any{"src_a", "src_a "} }},
		{"nested no source", "source_turn_ids", func(p map[string]any) { row0(p)["source_turn_ids"] = []any{} }},
		{"mixed nested and flat", "authorizations[0].account_id", func(p map[string]any) {
			p["authorizations"] = append(p["authorizations"].([]any), row0(clonePayload(t, base)))
		}},
	}
	for _, tc := range nestedEdits {
		p := nestedOf(clonePayload(t, base))
		tc.edit(p)
		_, err := ParseTypedPayload(p)
		if err == nil || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: error %v does not name %s", tc.name, err, tc.path)
		}
	}
	for _, bad := range []any{nil, "text", []any{}, map[string]any{"schema_version": "5"}, map[string]any{"schema_version": "5", "authorizations": "none"}} {
		if _, err := ParseTypedPayload(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	// Whitespace: the whole flat string is stripped, the parts keep their spacing (fidelity
	// sees " b"), and the predicate judges stripped items.
	p := clonePayload(t, base)
	row0(p)[fieldInstruments] = "  UST-NOTE-2031 |  TIPS-2032 "
	recs, err := ParseTypedPayload(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := scopeList(recs[0].Scope, fieldInstruments); strings.Join(got, "/") != "UST-NOTE-2031/ TIPS-2032" {
		t.Errorf("parts %q", got)
	}
	out, _ := c.Probe("probe_" + c.ID + "_1_out")
	if Denial(recs[0], *out.Request.(*TradeRequest)) != "" {
		t.Error("a stripped item must cover the order")
	}
	// An empty memory is valid in both forms.
	for _, e := range []map[string]any{EmptyTyped(), {"schema_version": "5", "authorizations": []any{}}} {
		if r, err := ParseTypedPayload(e); err != nil || len(r) != 0 {
			t.Errorf("empty memory: %v %v", r, err)
		}
	}
}

// TestFreeText: the canonical layout round-trips, the empty layout reads as no mandates, and
// anything else is an error naming its line.
func TestFreeText(t *testing.T) {
	d := Domain{}
	for _, script := range Scripts {
		c := builtinCase(t, script)
		for b := 0; b <= c.LastBlock(); b++ {
			ledger, err := d.Replay(c, b)
			if err != nil {
				t.Fatal(err)
			}
			text := d.FaithfulText(ledger)
			back, err := d.ReadFreeText(text)
			if err != nil {
				t.Fatalf("%s block %d: %v\n%s", script, b, err, text)
			}
			if p := engine.Fidelity(d, c, b, ledger, back); !p.Exact {
				t.Errorf("%s block %d: free text read back is not exact", script, b)
			}
		}
	}
	if got := d.FaithfulText(nil); got != "# Current portfolio mandates\n\nNo active portfolio-order mandate is recorded." {
		t.Errorf("empty layout %q", got)
	}
	c := builtinCase(t, "narrowed")
	ledger, _ := d.Replay(c, c.LastBlock())
	text := d.FaithfulText(ledger)
	bad := map[string]string{
		"header":        strings.Replace(text, "# Current portfolio mandates", "# Mandates", 1),
		"missing line":  strings.Replace(text, "\n- Sides: buy", "", 1),
		"swapped lines": strings.Replace(strings.Replace(text, "- Issuer:", "- TMP:", 1), "- Trader: portfolio_execution_agent", "- Issuer: portfolio_execution_agent", 1),
		"prose":         text + "\nPlease also allow sells.",
		"bad quantity":  strings.Replace(text, "Maximum quantity: 800", "Maximum quantity: eight hundred", 1),
		"bad range":     strings.Replace(text, " through ", " to ", 1),
		"bad window":    strings.Replace(text, "Half-open validity window: [", "Half-open validity window: (", 1),
		"invalid state": strings.Replace(text, "Status: active", "Status: paused", 1),
	}
	for name, tx := range bad {
		if _, err := d.ReadFreeText(tx); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
