package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

func eventRunOptions(t *testing.T, d engine.Domain, cases []*engine.Case, out string, seed int64, rate float64) Options {
	opts := scriptedOptions(t, d, cases, out, seed)
	opts.Conditions = []engine.Condition{mustCondition(t, "incremental_typed"), mustCondition(t, engine.EventSourcedCondition)}
	opts.EventWriter = &ScriptedEventWriter{FaultRate: rate, Version: "test"}
	return opts
}

// statesByBlock maps an event chain's blocks to their memory payloads, per case.
func eventMemories(t *testing.T, run *rundir.Run) map[string]map[int]any {
	t.Helper()
	payloads := map[string]any{}
	for _, r := range run.Files[rundir.Memories] {
		payloads[r.Str("memory_id")] = r.Tree["payload"]
	}
	out := map[string]map[int]any{}
	for _, r := range run.Files[rundir.MemoryStates] {
		if r.Str("condition_id") != engine.EventSourcedCondition {
			continue
		}
		if out[r.Str("case_id")] == nil {
			out[r.Str("case_id")] = map[int]any{}
		}
		out[r.Str("case_id")][int(r.Int("block_index"))] = payloads[r.Str("current_memory_id")]
	}
	return out
}

// TestEventSourcedRunFaithful runs the built-in corpus of every domain under
// incremental_typed and bounded_event_sourced_typed with a fault-free event writer: every
// block's reduced state is the faithful typed memory, the event log holds every ledger event
// once, the representation metrics show no error and no false authority, and the manifest
// lists the new artifacts with their row counts.
func TestEventSourcedRunFaithful(t *testing.T) {
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(id, func(t *testing.T) {
			d, cases := domainCases(t, id)
			opts := eventRunOptions(t, d, cases, filepath.Join(t.TempDir(), "run"), 3, 0)
			if sum := mustRun(t, opts); sum.Status != rundir.StatusCompleted {
				t.Fatalf("status %s", sum.Status)
			}
			run := openRun(t, opts.Out, false)
			mems := eventMemories(t, run)
			ledgerEvents := 0
			for _, c := range cases {
				ledgerEvents += len(c.Events)
				for k := 0; k <= c.LastBlock(); k++ {
					records, err := d.Replay(c, k)
					if err != nil {
						t.Fatal(err)
					}
					want := pyjson.MustCanonicalJSON(pyjson.MustRetree(d.TypedPayload(records)))
					if got := pyjson.MustCanonicalJSON(mems[c.ID][k]); got != want {
						t.Fatalf("case %s block %d: reduced state\n got %s\nwant %s", c.ID, k, got, want)
					}
				}
			}
			if n := len(run.Files[EventLog]); n != ledgerEvents {
				t.Errorf("%d event log rows, %d ledger events", n, ledgerEvents)
			}
			transitions, formations := 0, 0
			for _, r := range run.Files[RepresentationMetrics] {
				switch r.Str("row_type") {
				case "state_transition":
					transitions++
					if r.Bool("semantic_error") || r.Bool("failed_update") {
						t.Errorf("faithful chain has an error: %v", r.Tree)
					}
				case "request_formation":
					formations++
					if r.Bool("false_authority") || r.Bool("representation_undergrant") {
						t.Errorf("faithful chain misrepresents a request: %v", r.Tree)
					}
				}
			}
			probes, blocks := 0, 0
			for _, c := range cases {
				probes += len(c.Probes)
				blocks += len(c.Blocks)
			}
			if transitions != blocks || formations != probes {
				t.Errorf("%d transitions (%d blocks), %d formations (%d probes)", transitions, blocks, formations, probes)
			}
			for _, name := range []string{EventLog, RepresentationMetrics} {
				entry, _ := run.Manifest["files"].(map[string]any)[name].(map[string]any)
				if rows, _ := entry["rows"].(json.Number).Int64(); entry == nil || int(rows) != len(run.Files[name]) || len(run.Files[name]) == 0 {
					t.Errorf("manifest entry for %s: %v (%d rows read)", name, entry, len(run.Files[name]))
				}
			}
			for _, r := range run.Files[rundir.Memories] {
				if r.Str("condition_id") == engine.EventSourcedCondition && r.Str("memory_implementation_id") != eventsource.ImplementationID {
					t.Fatalf("event memory implementation %q", r.Str("memory_implementation_id"))
				}
			}
			conds := map[string]int{}
			for _, r := range run.Files[rundir.Trials] {
				conds[r.Str("condition_id")]++
				study, _ := r.Tree["metadata"].(map[string]any)["study"].(map[string]any)
				if kind := study["replay_kind"]; (r.Str("condition_id") == engine.EventSourcedCondition) != (kind == "event_sourced_full") {
					t.Fatalf("trial of %s has replay_kind %v", r.Str("condition_id"), kind)
				}
			}
			if conds["incremental_typed"] != probes || conds[engine.EventSourcedCondition] != probes {
				t.Errorf("trials per condition %v, want %d each", conds, probes)
			}
		})
	}
}

// TestEventSourcedRunFaults runs the cybersecurity built-in corpus with the default fault
// rate: the seeded event faults appear (omitted revokes, kept narrowed fields, widened
// patches, unseen sources), some updates fail and retain the previous state, some requests
// form false authority, and the same seed gives the same bytes.
func TestEventSourcedRunFaults(t *testing.T) {
	d, cases := domainCases(t, "cybersecurity")
	dir := t.TempDir()
	opts := eventRunOptions(t, d, cases, filepath.Join(dir, "a"), 11, DefaultFaultRate)
	mustRun(t, opts)
	run := openRun(t, opts.Out, false)
	families := map[string]int{}
	for _, r := range run.Files[rundir.Faults] {
		if r.Str("condition_id") == engine.EventSourcedCondition {
			families[r.Str("family")]++
		}
	}
	for _, f := range EventFaultFamilies {
		if families[f] == 0 {
			t.Errorf("no %s fault in %v", f, families)
		}
	}
	retained, rejected := 0, 0
	for _, r := range run.Files[rundir.MemoryStates] {
		if r.Str("condition_id") == engine.EventSourcedCondition && r.Str("status") == StatusRetainedAfter {
			retained++
		}
	}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		if r.Str("condition_id") == engine.EventSourcedCondition && r.Str("status") == StatusInvalid {
			rejected++
			// An unseen source, or (after an update that failed for good) a target whose issue
			// was lost with it.
			if d := r.Str("detail"); !strings.Contains(d, "cites source IDs outside the model-visible state/block") && !strings.HasSuffix(d, "target does not exist in bounded current state") {
				t.Errorf("rejection detail %q", r.Str("detail"))
			}
		}
	}
	falseAuthority, failed := 0, 0
	for _, r := range run.Files[RepresentationMetrics] {
		if r.Bool("false_authority") {
			falseAuthority++
		}
		if r.Bool("failed_update") {
			failed++
		}
	}
	if retained == 0 || rejected <= retained || falseAuthority == 0 || failed != retained {
		t.Errorf("retained %d, rejected attempts %d, false authority %d, failed updates %d", retained, rejected, falseAuthority, failed)
	}
	again := eventRunOptions(t, d, cases, filepath.Join(dir, "b"), 11, DefaultFaultRate)
	mustRun(t, again)
	a, b := jsonlFiles(t, opts.Out), jsonlFiles(t, again.Out)
	for _, name := range []string{EventLog + ".jsonl", RepresentationMetrics + ".jsonl", "memories.jsonl", "faults.jsonl"} {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
}

// TestModelEventWriterOverLoopback drives the model event writer against a real loopback
// chat-completions server that answers with each block's canonical events, after one
// malformed first answer: the first attempt is rejected and repaired with EAL-Bench's repair
// text, every block's state is the faithful memory, and the request carries docs/FORMATS.md 8.2's
// user message, the forced record_authorization_events tool and its schema.
func TestModelEventWriterOverLoopback(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	d, cases := domainCases(t, "cybersecurity")
	c := cases[0]
	r, err := eventsource.ForDomain(d)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := eventsource.CanonicalEvents(r.Spec, d, c)
	if err != nil {
		t.Fatal(err)
	}
	blockOf := func(req map[string]any) int {
		msgs := req["messages"].([]any)
		user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
		_, text, _ := strings.Cut(user, "\n\nCURRENT CONVERSATION BLOCK\n")
		for k := range c.Blocks {
			if engine.RenderBlock(d, c, k) == text {
				return k
			}
		}
		t.Fatalf("no block renders as the request's block text")
		return -1
	}
	answer := func(req map[string]any) reply {
		events := canonical[blockOf(req)]
		if events == nil {
			events = []map[string]any{}
		}
		args, _ := json.Marshal(map[string]any{"events": events})
		return completion(nil, fakeCall{eventsource.ToolName, string(args)})
	}
	srv := newFakeServer(t, answer,
		func(map[string]any) reply { return completion("I see no events.") },
		func(req map[string]any) reply {
			sys := req["messages"].([]any)[0].(map[string]any)["content"].(string)
			if !strings.Contains(sys, "Correct only the structural problem in the rejected delta: exactly one record_authorization_events tool call with JSON arguments is required") {
				t.Errorf("repair request lacks the repair text: %.200s", sys[len(sys)-min(len(sys), 400):])
			}
			return answer(req)
		})
	opts := scriptedOptions(t, d, []*engine.Case{c}, filepath.Join(t.TempDir(), "run"), 5)
	opts.Conditions = []engine.Condition{mustCondition(t, engine.EventSourcedCondition)}
	opts.EventWriter = NewModelEventWriter(NewModelClient(testModel(srv.URL), fastRetry, nil))
	opts.Concurrency = 1
	if sum := mustRun(t, opts); sum.Status != rundir.StatusCompleted {
		t.Fatalf("status %s", sum.Status)
	}
	run := openRun(t, opts.Out, false)
	attempts := run.Files[rundir.MemoryAttempts]
	if attempts[0].Str("status") != StatusInvalid || attempts[1].Str("status") != StatusAccepted || attempts[1].Str("repair_of_attempt_id") != attempts[0].Str("attempt_id") {
		t.Fatalf("first update: %v / %v", attempts[0].Tree["status"], attempts[1].Tree["status"])
	}
	if len(attempts) != len(c.Blocks)+1 {
		t.Fatalf("%d attempts for %d blocks", len(attempts), len(c.Blocks))
	}
	mems := eventMemories(t, run)
	for k := range c.Blocks {
		records, _ := d.Replay(c, k)
		if got, want := pyjson.MustCanonicalJSON(mems[c.ID][k]), pyjson.MustCanonicalJSON(pyjson.MustRetree(d.TypedPayload(records))); got != want {
			t.Fatalf("block %d: reduced state differs from the faithful memory", k)
		}
	}
	first := srv.bodies[0]
	user := first["messages"].([]any)[1].(map[string]any)["content"].(string)
	empty := pyjson.MustCanonicalJSON(pyjson.MustRetree(d.TypedPayload(nil)))
	if !strings.HasPrefix(user, "PREVIOUS CURRENT AUTHORIZATION STATE\n"+empty+"\n\nCURRENT CONVERSATION BLOCK\n") {
		t.Errorf("user message %.200q", user)
	}
	if tc := first["tool_choice"].(map[string]any); tc["function"].(map[string]any)["name"] != eventsource.ToolName {
		t.Errorf("tool_choice %v", first["tool_choice"])
	}
	tool := first["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	items := tool["parameters"].(map[string]any)["properties"].(map[string]any)["events"].(map[string]any)["items"].(map[string]any)
	record := items["properties"].(map[string]any)["record"].(map[string]any)["anyOf"].([]any)[0].(map[string]any)
	props := record["properties"].(map[string]any)
	if _, ok := props["status"]; ok {
		t.Error("the record schema exposes status")
	}
	if _, ok := props["authorization_id"]; !ok {
		t.Error("the record schema lacks authorization_id")
	}
	changes := items["properties"].(map[string]any)["changes"].(map[string]any)["anyOf"].([]any)[0].(map[string]any)["properties"].(map[string]any)
	if _, ok := changes["authorization_id"]; ok {
		t.Error("changes may rename a record")
	}
	if contexts := checkWriterContexts(t, run); contexts != len(attempts) {
		t.Errorf("%d writer contexts for %d attempts", contexts, len(attempts))
	}
	assertNoSecret(t, opts.Out, testAPIKey)
	_ = context.Background
}
