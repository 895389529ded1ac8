package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
)

const reducerCasesFile = "event_sourcing_reducer__shared_cases.json"

// TestReduceSharedCases replays EAL-Bench's own reference reductions
// (event_sourcing_reducer__shared_cases.json): every batch of every scenario, in order, from
// its records_before, must give the recorded status, error, events with their generated ids,
// reduced state, records and (with regex_fallback_v1) token count; each batch's
// records_before must be the previous accepted batch's records_after; and the reduced state
// must equal ealscope's own faithful typed memory at the block where EAL-Bench says it does.
func TestReduceSharedCases(t *testing.T) {
	const skipping = "the reducer against EAL-Bench's reference reductions"
	tree, err := pyjson.DecodeTree(ealDataFile(t, skipping, reducerCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	doc := tree.(map[string]any)
	if doc["event_schema_version"] != eventsource.EventSchemaVersion {
		t.Fatalf("event_schema_version %v", doc["event_schema_version"])
	}
	if n, _ := doc["max_events_per_block"].(json.Number).Int64(); n != eventsource.MaxEventsPerBlock {
		t.Fatalf("max_events_per_block %d", n)
	}
	batches := 0
	for domainID, v := range doc["domains"].(map[string]any) {
		d, err := domains.Get(domainID)
		if err != nil {
			t.Fatal(err)
		}
		spec := d.(engine.EventSourcingRules).EventSourcingSpec()
		dom := v.(map[string]any)
		checkSpec(t, domainID, spec, dom["event_sourcing_spec"].(map[string]any))
		cases, err := d.ParseCorpus(ealBenchCorpora[domainID], ealDataFile(t, skipping, ealBenchCorpora[domainID]))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range dom["scenarios"].([]any) {
			sc := s.(map[string]any)
			kase, err := domains.FindCase(cases, sc["case_id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			prev := canonOf(t, sc["initial_records"])
			canonical, err := eventsource.CanonicalEvents(spec, d, kase)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range sc["batches"].([]any) {
				bm := b.(map[string]any)
				name := domainID + "/" + sc["scenario_id"].(string) + "/" + bm["batch_id"].(string)
				batches++
				bf, err := eventsource.ParseBatchFile(bm)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := canonOf(t, bf.RecordsBefore); got != prev {
					t.Errorf("%s: records_before is not the previous batch's records_after", name)
				}
				// The batch's input is what ealscope derives from the case: the canonical events
				// of the block, the visible source ids and the addressable record ids.
				wantArgs := bm["input"].(map[string]any)["arguments"].(map[string]any)["events"]
				gotArgs := canonical[bf.BlockIndex]
				if gotArgs == nil {
					gotArgs = []map[string]any{}
				}
				if a, b := canonOf(t, gotArgs), canonOf(t, wantArgs); a != b {
					t.Errorf("%s: canonical events\n got %s\nwant %s", name, a, b)
				}
				before := eventsource.New(spec, d)
				if err := before.LoadRecords(bf.RecordsBefore); err != nil {
					t.Fatal(err)
				}
				prevState, err := before.VisibleState()
				if err != nil {
					t.Fatal(err)
				}
				visible, addressable := eventsource.BlockContext(before, prevState, kase, bf.BlockIndex, engine.RenderBlock(d, kase, bf.BlockIndex))
				if a, b := canonOf(t, nonNilStrings(visible)), canonOf(t, nonNilStrings(bf.Input.VisibleSourceIDs)); a != b {
					t.Errorf("%s: visible source ids\n got %s\nwant %s", name, a, b)
				}
				if a, b := canonOf(t, nonNilStrings(addressable)), canonOf(t, nonNilStrings(bf.Input.AddressableAuthorizationIDs)); a != b {
					t.Errorf("%s: addressable ids %s, want %s", name, a, b)
				}
				out, err := eventsource.Reduce(spec, d, bf, reftoken.RegexFallback())
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := bm["expected"].(map[string]any)
				compareOutcome(t, name, out, want)
				if want["status"] == eventsource.Accepted {
					prev = canonOf(t, want["records_after"])
				}
				if n, err := want["reduced_state_tokens_regex_fallback"].(json.Number).Int64(); err != nil || int(n) != out.ReducedStateTokens {
					t.Errorf("%s: %d reference tokens (regex_fallback_v1), EAL-Bench %v", name, out.ReducedStateTokens, want["reduced_state_tokens_regex_fallback"])
				}
				if want["equals_faithful_typed_at_block"] == true {
					records, err := d.Replay(kase, bf.BlockIndex)
					if err != nil {
						t.Fatal(err)
					}
					if got, exp := canonOf(t, d.TypedPayload(records)), canonOf(t, out.ReducedState); got != exp {
						t.Errorf("%s: reduced state differs from ealscope's faithful typed memory at block %d\n got %s\nwant %s", name, bf.BlockIndex, exp, got)
					}
				}
			}
		}
	}
	if batches < 28 {
		t.Fatalf("only %d batches read", batches)
	}
}

// compareOutcome compares a reduction with EAL-Bench's: canonical JSON for the trees; for a
// rejection the exception class, and the message exactly for the reducer's own ValueErrors
// (pydantic's ValidationError texts are version specific, note_on_error_messages).
func compareOutcome(t *testing.T, name string, out eventsource.Outcome, want map[string]any) {
	t.Helper()
	if out.Status != want["status"] {
		t.Errorf("%s: status %s (%v), EAL-Bench %v (%v)", name, out.Status, out.Error, want["status"], want["error"])
		return
	}
	if want["error"] != nil {
		we := want["error"].(map[string]any)
		exc, _ := we["exception"].(string)
		if exc == "" {
			exc, _ = we["type"].(string)
		}
		if out.Error == nil || out.Error.Exception != exc {
			t.Errorf("%s: error %v, EAL-Bench %v", name, out.Error, we)
		} else if exc == "ValueError" && out.Error.Message != we["message"] {
			t.Errorf("%s: message %q, EAL-Bench %q", name, out.Error.Message, we["message"])
		}
	} else if out.Error != nil {
		t.Errorf("%s: unexpected error %v", name, out.Error)
	}
	if got, exp := canonOf(t, out.Events), canonOf(t, want["events"]); got != exp {
		t.Errorf("%s: events\n got %s\nwant %s", name, got, exp)
	}
	if got, exp := canonOf(t, out.ReducedState), canonOf(t, want["reduced_state"]); got != exp {
		t.Errorf("%s: reduced state\n got %s\nwant %s", name, got, exp)
	}
	if ra, ok := want["records_after"]; ok {
		if got, exp := canonOf(t, out.RecordsAfter), canonOf(t, ra); got != exp {
			t.Errorf("%s: records after\n got %s\nwant %s", name, got, exp)
		}
	}
}

func checkSpec(t *testing.T, domainID string, spec engine.EventSourcingSpec, want map[string]any) {
	t.Helper()
	got := map[string]any{
		"retain_inactive_records":     spec.RetainInactiveRecords,
		"source_id_separator":         pyjson.OrNull(spec.SourceIDSeparator),
		"empty_supersedes":            pyjson.OrNull(spec.EmptySupersedes),
		"replacement_target_field":    spec.ReplacementTargetField,
		"order_by_effective_at":       spec.OrderByEffectiveAt,
		"nested_scope_fields":         nonNilStrings(spec.NestedScopeFields),
		"flattened_scope_list_fields": nonNilStrings(spec.FlattenedScopeListFields),
	}
	if a, b := canonOf(t, got), canonOf(t, want); a != b {
		t.Errorf("%s event_sourcing_spec\n got %s\nwant %s", domainID, a, b)
	}
}

func canonOf(t *testing.T, v any) string {
	t.Helper()
	tree, err := pyjson.Retree(v)
	if err != nil {
		t.Fatal(err)
	}
	return pyjson.MustCanonicalJSON(tree) // a tree Retree just decoded always encodes
}

// TestReduceCommand runs `ealscope reduce` on a batch file: an accepted batch, a rejected one
// (exit 0, the rejection printed) and bad input (exit 1, the field named).
func TestReduceCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, filepath.Join(dir, name), []byte(body)) }
	record := `{"authorization_id":"A-1","issuer":"security_duty_officer","grantee":"incident_response_team","effect":"permit_incident_response","action":"execute_response_action","valid_from":"2026-09-01T00:00:00Z","valid_until":"2026-09-02T00:00:00Z","scope":{"tenant_id":"t","incident_id":"i","asset_ids":["a"],"environments":["production"],"approved_actions":["isolate_host"],"vulnerability_ids":["CVE-1"]},"supersedes":null}`
	batch := func(events string) string {
		return `{"block_index":0,"input":{"arguments":{"events":[` + events + `]},"visible_source_ids":["s1"],"addressable_authorization_ids":[],"logical_update_id":"upd 1/x","capacity_tokens":100000},"records_before":{}}`
	}
	ok := write("ok.json", batch(`{"event_type":"issue","target_authorization_id":null,"source_turn_ids":["s1"],"record":`+record+`,"changes":null}`))
	reduce := []string{"--log-level", "off", "reduce", "--domain", "cybersecurity", "--batch"}
	var out map[string]any
	runJSON(t, &out, append(reduce, ok, "--json")...)
	if out["status"] != "accepted" || out["error"] != nil {
		t.Fatalf("got %v", out)
	}
	ev := out["events"].([]any)[0].(map[string]any)
	if ev["event_id"] != "evtgen_upd-1-x_00" {
		t.Errorf("event id %v", ev["event_id"])
	}
	state := out["reduced_state"].(map[string]any)["authorizations"].([]any)[0].(map[string]any)
	if state["status"] != "active" || len(state["source_turn_ids"].([]any)) != 1 {
		t.Errorf("reduced record %v", state)
	}
	if text := runOK(t, append(reduce, ok)...); !strings.Contains(text, "issue issued A-1") {
		t.Errorf("text output does not name the issued record:\n%s", text)
	}

	rejected := write("rej.json", batch(`{"event_type":"revoke","target_authorization_id":"A-9","source_turn_ids":["s1"],"record":null,"changes":null}`))
	out = nil
	runJSON(t, &out, append(reduce, rejected, "--json")...)
	if out["status"] != "rejected" || out["error"].(map[string]any)["message"] != "revoke target does not exist in bounded current state" {
		t.Fatalf("got %v", out)
	}

	bad := write("bad.json", `{"block_index":0,"input":{"arguments":{"events":[]},"visible_source_ids":"s1","addressable_authorization_ids":[],"logical_update_id":"u","capacity_tokens":1},"records_before":{}}`)
	_, errs, code := runCLI(t, append(reduce, bad)...)
	if code != 1 {
		t.Fatalf("bad input: exit %d", code)
	}
	if !strings.Contains(errs, "bad.json") || !strings.Contains(errs, "input.visible_source_ids") {
		t.Errorf("bad input error does not name the file and field: %s", errs)
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
