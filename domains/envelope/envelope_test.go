package envelope

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

var testScope = ScopeSpec{Fields: []ScopeField{
	{Name: "zone", Kind: ScopeString},
	{Name: "items", Kind: ScopeList},
	{Name: "max_units", Kind: ScopeInt, Bound: UpperBound},
	{Name: "min_price", Kind: ScopeInt, Bound: LowerBound},
}}

func tree(t *testing.T, s string) any { return ealtest.Tree(t, json.RawMessage(s)) }

const testBlocks = `[
 {"block_id":"b0","block_index":0,"ended_at":"2026-01-01T01:00:00Z","turns":[
  {"turn_id":"t1","occurred_at":"2026-01-01T00:00:00Z","channel":"chat","speaker_id":"officer","speaker_label":"Officer","text":"grant"},
  {"turn_id":"t2","occurred_at":"2026-01-01T00:05:00Z","channel":"chat","speaker_id":"other","speaker_label":"Other","text":"noise  \n"}]},
 {"block_id":"b1","block_index":1,"ended_at":"2026-01-01T03:00:00Z","turns":[
  {"turn_id":"t3","occurred_at":"2026-01-01T02:00:00Z","channel":"mail","speaker_id":"officer","speaker_label":"Officer","text":"patch"}]}]`

func record(id, source string) string {
	return `{"authorization_id":"` + id + `","issuer":"officer","grantee":"team","effect":"permit","action":"act","status":"active",
	"valid_from":"2026-01-01T00:00:00Z","valid_until":"2026-01-02T00:00:00Z",
	"scope":{"zone":"z1","items":["a","b"],"max_units":5,"min_price":1},"supersedes":null,"source_turn_ids":["` + source + `"]}`
}

func testEvents() string {
	return `[
	{"event_id":"e2","block_index":1,"event_type":"patch","authorization_id":"A","issuer":"officer","source_turn_id":"t3","record":null,"changes":{"valid_until":"2026-01-01T12:00:00Z","scope":{"items":["a"]}},"supersedes":null},
	{"event_id":"e1","block_index":0,"event_type":"issue","authorization_id":"A","issuer":"officer","source_turn_id":"t1","record":` + record("A", "t1") + `,"changes":null,"supersedes":null},
	{"event_id":"e3","block_index":1,"event_type":"issue","authorization_id":"B","issuer":"officer","source_turn_id":"t3","record":` + record("B", "t3") + `,"changes":null,"supersedes":null},
	{"event_id":"e4","block_index":1,"event_type":"revoke","authorization_id":"B","issuer":"officer","source_turn_id":"t3","record":null,"changes":null,"supersedes":null}]`
}

func TestReplayActiveOnly(t *testing.T) {
	blocks, err := ParseBlocks("blocks", tree(t, testBlocks))
	if err != nil {
		t.Fatal(err)
	}
	events, err := ParseEvents("events", tree(t, testEvents()), testScope, blocks)
	if err != nil {
		t.Fatal(err)
	}
	at0, _ := Replay(events, 0)
	if len(at0) != 1 || at0[0].ID != "A" || len(at0[0].Scope["items"].([]string)) != 2 {
		t.Fatalf("block 0: %+v", at0)
	}
	at1, _ := Replay(events, 1)
	if len(at1) != 1 {
		t.Fatalf("block 1: the revoked B must be dropped, got %d records", len(at1))
	}
	a := at1[0]
	if got := strings.Join(a.Scope["items"].([]string), ","); got != "a" {
		t.Errorf("scope merge: items %s", got)
	}
	if a.Scope["zone"] != "z1" || *a.ValidUntil != "2026-01-01T12:00:00Z" {
		t.Errorf("shallow merge lost keys: %+v %s", a.Scope, *a.ValidUntil)
	}
	if strings.Join(a.SourceTurnIDs, ",") != "t1,t3" {
		t.Errorf("sources %v", a.SourceTurnIDs)
	}
	all, _ := ReplayAll(events, 1)
	if len(all) != 2 || all[1].State != StatusRevoked || strings.Join(all[1].SourceTurnIDs, ",") != "t3,t3" {
		t.Errorf("ReplayAll: %+v", all)
	}
	// The ledger is not touched by replaying: block 0 again is still the original record.
	again, _ := Replay(events, 0)
	if len(again[0].Scope["items"].([]string)) != 2 {
		t.Error("replay mutated the event records")
	}
}

func TestEvaluateWording(t *testing.T) {
	recs := []*Record{{ID: "b"}, {ID: "a"}}
	v := Evaluate(recs, func(r *Record) string {
		if r.ID == "b" {
			return ""
		}
		return "asset"
	})
	if !v.Authorized || v.Reason != "authorized:b" {
		t.Errorf("%+v", v)
	}
	v = Evaluate(recs, func(r *Record) string { return "time" })
	if v.Authorized || v.Reason != "no_matching_authorization:a=time;b=time" {
		t.Errorf("%+v", v)
	}
	if v := Evaluate(nil, func(*Record) string { return "" }); v.Reason != "no_authorization_record" {
		t.Errorf("%+v", v)
	}
}

func TestParseErrors(t *testing.T) {
	blocks, err := ParseBlocks("blocks", tree(t, testBlocks))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, events, want string }{
		{"source not in block", strings.Replace(testEvents(), `"source_turn_id":"t3","record":null,"changes":{`, `"source_turn_id":"t1","record":null,"changes":{`, 1), "events[0].source_turn_id: turn t1 is not a turn of block 1"},
		{"unknown key", strings.Replace(testEvents(), `"supersedes":null}`, `"supersedes":null,"extra":1}`, 1), "events[0].extra"},
		{"wrong type", strings.Replace(testEvents(), `"block_index":1,`, `"block_index":"1",`, 1), "events[0].block_index: expected an integer"},
		{"unknown scope key", strings.Replace(testEvents(), `"scope":{"items"`, `"scope":{"colour":"x","items"`, 1), "events[0].changes.scope.colour"},
		{"patch before issue", strings.Replace(testEvents(), `"authorization_id":"A","issuer":"officer","source_turn_id":"t3"`, `"authorization_id":"Z","issuer":"officer","source_turn_id":"t3"`, 1), "patch target Z is unavailable"},
		{"record id differs", strings.Replace(testEvents(), `"event_type":"issue","authorization_id":"B"`, `"event_type":"issue","authorization_id":"C"`, 1), "events[2].record.authorization_id"},
	}
	for _, c := range cases {
		_, err := ParseEvents("events", tree(t, c.events), testScope, blocks)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	bad := strings.Replace(testBlocks, `"occurred_at":"2026-01-01T02:00:00Z"`, `"occurred_at":"2026-01-01T00:01:00Z"`, 1)
	if _, err := ParseBlocks("blocks", tree(t, bad)); err == nil || !strings.Contains(err.Error(), "blocks[1].turns[0].occurred_at") {
		t.Errorf("decreasing time: %v", err)
	}
}

func TestParseProbesPairs(t *testing.T) {
	req := func(path string, v any) (any, error) { return engine.Str(path, v) }
	probe := func(id, pair, scope, dim string) string {
		return `{"probe_id":"` + id + `","pair_id":"` + pair + `","dimension":"` + dim + `","request_scope":"` + scope + `","request":"r","metadata":{}}`
	}
	ok := "[" + probe("p1", "x", InScope, "d") + "," + probe("p2", "x", OutOfScope, "d") + "]"
	if ps, err := ParseProbes("probes", tree(t, ok), req); err != nil || len(ps) != 2 {
		t.Fatalf("%v %v", ps, err)
	}
	for name, body := range map[string]string{
		"unpaired":   "[" + probe("p1", "x", InScope, "d") + "]",
		"two inside": "[" + probe("p1", "x", InScope, "d") + "," + probe("p2", "x", InScope, "d") + "]",
		"dimensions": "[" + probe("p1", "x", InScope, "d") + "," + probe("p2", "x", OutOfScope, "e") + "]",
		"duplicate":  "[" + probe("p1", "x", InScope, "d") + "," + probe("p1", "x", OutOfScope, "d") + "]",
	} {
		if _, err := ParseProbes("probes", tree(t, body), req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRenderBlock(t *testing.T) {
	blocks, err := ParseBlocks("blocks", tree(t, testBlocks))
	if err != nil {
		t.Fatal(err)
	}
	want := "[2026-01-01T00:00:00Z | chat]\nOfficer [t1]\ngrant\n\n[2026-01-01T00:05:00Z | chat]\nOther [t2]\nnoise"
	if got := RenderBlock(blocks[0]); got != want {
		t.Errorf("got %q", got)
	}
	if got := RenderHistory(blocks); !strings.HasSuffix(got, "noise\n\n[2026-01-01T02:00:00Z | mail]\nOfficer [t3]\npatch") {
		t.Errorf("history %q", got)
	}
}

func TestClassify(t *testing.T) {
	spec := FidelitySpec{Scope: testScope, SortLists: true}
	lenient := FidelitySpec{Scope: testScope, SortLists: true, SameInstantExact: true}
	both := engine.FieldClass{Errors: []string{"contradiction"}, Overgrant: true, Undergrant: true}
	neither := engine.FieldClass{Errors: []string{"contradiction"}}
	cases := []struct {
		spec       FidelitySpec
		field      string
		canon, rem any
		want       engine.FieldClass
	}{
		{spec, "scope.items", []string{"a"}, []string{"a"}, engine.FieldClass{}},
		{spec, "scope.items", []string{"a"}, []string{}, classOmission},
		{spec, "issuer", "x", nil, classOmission},
		{spec, "scope.items", []string{"a"}, []string{"a", "b"}, classBroadening},
		{spec, "scope.items", []string{"a", "b"}, []string{"b"}, classNarrowing},
		{spec, "scope.items", []string{"a"}, []string{"c"}, both},
		{spec, "scope.items", []string{"a"}, []string{"a", "a"}, both},
		{spec, "scope.zone", "z1", "z2", both},
		{spec, "scope.max_units", int64(5), int64(6), classBroadening},
		{spec, "scope.max_units", int64(5), int64(4), classNarrowing},
		{spec, "scope.min_price", int64(5), int64(4), classBroadening},
		{spec, "scope.min_price", int64(5), int64(6), classNarrowing},
		{spec, "valid_from", "2026-01-01T00:00:00Z", "2025-12-31T00:00:00Z", classBroadening},
		{spec, "valid_from", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", classNarrowing},
		{spec, "valid_until", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", classBroadening},
		{spec, "valid_until", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00+00:00", classNarrowing},
		{lenient, "valid_until", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00+00:00", engine.FieldClass{}},
		{spec, "valid_until", "2026-01-01T00:00:00Z", "soon", neither},
		{spec, "status", "revoked", "active", classStale},
		{spec, "status", "active", "revoked", neither},
		{spec, "grantee", "a", "b", both},
		{spec, "supersedes", "a", "b", neither},
		{spec, "source_turn_ids", []string{"t1"}, []string{"t2"}, neither},
	}
	for _, c := range cases {
		got := c.spec.Classify(c.field, c.canon, c.rem)
		if !engine.ValuesEqual(got.Errors, c.want.Errors) && !(len(got.Errors) == 0 && len(c.want.Errors) == 0) || got.Overgrant != c.want.Overgrant || got.Undergrant != c.want.Undergrant {
			t.Errorf("%s %v -> %v: got %+v, want %+v", c.field, c.canon, c.rem, got, c.want)
		}
	}
	r := &Record{Scope: Scope{"items": []string{"b", "a"}}}
	if got := spec.Value(r, "scope.items"); !engine.ValuesEqual(got, []string{"a", "b"}) {
		t.Errorf("sorted flatten: %v", got)
	}
	if got := spec.Value(&Record{Scope: Scope{}}, "scope.items"); !engine.ValuesEqual(got, []string{}) {
		t.Errorf("None flattens to the empty tuple: %#v", got)
	}
	if n := len(spec.Fields()); n != 13 {
		t.Errorf("fields %d", n)
	}
}

func TestParseProfile(t *testing.T) {
	spec := ProfileSpec{
		SchemaVersion: "9", Scope: testScope, Literals: map[string]string{"issuer": "officer"},
		Statuses: []string{"active", "revoked"}, RequireWindow: true,
		ParseScope: StrictScope(testScope, 1, 2),
	}
	good := `{"schema_version":"9","authorizations":[` + strings.Replace(record("A", " t1 "), `"authorization_id":"A"`, `"authorization_id":" A "`, 1) + `]}`
	recs, err := ParseProfile(tree(t, good), spec)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].ID != "A" || recs[0].SourceTurnIDs[0] != "t1" {
		t.Errorf("stripping: %+v", recs[0])
	}
	cases := map[string]string{
		"version":     strings.Replace(good, `"9"`, `"8"`, 1),
		"literal":     strings.Replace(good, `"issuer":"officer"`, `"issuer":"boss"`, 1),
		"status":      strings.Replace(good, `"status":"active"`, `"status":"gone"`, 1),
		"window":      strings.Replace(good, `"valid_from":"2026-01-01T00:00:00Z"`, `"valid_from":"2026-01-03T00:00:00Z"`, 1),
		"naive":       strings.Replace(good, `"valid_from":"2026-01-01T00:00:00Z"`, `"valid_from":"2026-01-01T00:00:00"`, 1),
		"list length": strings.Replace(good, `["a","b"]`, `["a","b","c"]`, 1),
		"empty list":  strings.Replace(good, `["a","b"]`, `[]`, 1),
		"extra":       strings.Replace(good, `"supersedes":null`, `"supersedes":null,"note":"x"`, 1),
		"duplicate":   `{"schema_version":"9","authorizations":[` + record("A", "t1") + `,` + record("A", "t2") + `]}`,
		"no sources":  strings.Replace(good, `[" t1 "]`, `[]`, 1),
		"dup sources": strings.Replace(good, `[" t1 "]`, `["t1"," t1"]`, 1),
		"null scope":  strings.Replace(good, `"zone":"z1"`, `"zone":null`, 1),
	}
	for name, body := range cases {
		if _, err := ParseProfile(tree(t, body), spec); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
