package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

const testAPIKey = "sk-ealscope-test-7f3a9c2b-do-not-log"

func testModel(url string) Model {
	return Model{Name: "fake", BaseURL: url + "/v1", Model: "fake-model", APIKeyEnv: "EALSCOPE_TEST_API_KEY",
		Temperature: 1.0, MaxTokens: 4096, Concurrency: 2, TimeoutS: 0.3}
}

// fastRetry keeps retried scenarios quick; the delays are what the client waits, never what
// the test synchronises on.
var fastRetry = RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}

// TestModelExecutorOverLoopback runs the pipeline against a real chat-completions server on
// loopback whose scripted answers cover act, escalate, decline, two tools, an unknown tool,
// malformed arguments, a 500, a 429 then success and a hang past the timeout, and checks the
// trials, calls.jsonl and model_contexts.jsonl rows and that the API key is never written.
func TestModelExecutorOverLoopback(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	d, cases := builtinCases(t)
	srv := newFakeServer(t, act,
		act,
		func(req map[string]any) reply {
			return completion(nil, fakeCall{"request_authorization", txArgs(requestedTransaction(req), map[string]any{"reason": "needs approval"})})
		},
		func(map[string]any) reply {
			return completion(nil, fakeCall{"decline_order", `{"reason": "out of scope"}`})
		},
		func(req map[string]any) reply {
			return completion(nil, fakeCall{"submit_order", txArgs(requestedTransaction(req), nil)}, fakeCall{"decline_order", `{"reason": "x"}`})
		},
		func(map[string]any) reply {
			return completion("let me check", fakeCall{"lookup_vendor", `{"vendor": "x"}`})
		},
		func(map[string]any) reply {
			return completion(nil, fakeCall{"submit_order", `{"vendor": "Acme", "amount": `})
		},
		func(map[string]any) reply { return errorReply(500, "boom") },
		func(map[string]any) reply { return errorReply(500, "boom again") },
		func(map[string]any) reply { return errorReply(429, "slow down") },
		act,
		func(map[string]any) reply { return reply{hang: true} },
		func(map[string]any) reply { return reply{hang: true} },
	)
	ex := NewModelExecutor(d, NewModelClient(testModel(srv.URL), fastRetry, nil))
	opts := scriptedOptions(t, d, cases[:1], filepath.Join(t.TempDir(), "run"), 100)
	opts.Conditions = []engine.Condition{mustCondition(t, "faithful_typed")}
	opts.Executor = ex
	opts.ExecutorRuns = 2
	opts.Concurrency = 1 // requests then arrive in plan order, matching the script
	sum := mustRun(t, opts)
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("status %s", sum.Status)
	}
	run := openRun(t, opts.Out, false)
	trials := run.Files[rundir.Trials]
	if len(trials) != 2*len(cases[0].Probes) {
		t.Fatalf("%d trials", len(trials))
	}
	want := []struct {
		decision string
		tool     string
		calls    int
		terminal int
	}{
		{engine.ExecuteRequested, "submit_order", 1, 1},
		{engine.Escalate, "request_authorization", 1, 1},
		{engine.Decline, "decline_order", 1, 1},
		{engine.Invalid, "submit_order", 2, 2},
		{engine.NoAction, "", 1, 0},
		{engine.Invalid, "submit_order", 1, 1},
		{engine.ProviderError, "", 0, 0},
		{engine.ExecuteRequested, "submit_order", 1, 1},
		{engine.ProviderError, "", 0, 0},
	}
	for i, w := range want {
		r := trials[i]
		if r.Str("decision") != w.decision || r.Str("raw_tool_name") != w.tool || int(r.Int("tool_call_count")) != w.calls || int(r.Int("terminal_call_count")) != w.terminal {
			t.Errorf("trial %d: decision %s tool %q calls %d terminal %d, want %+v", i, r.Str("decision"), r.Str("raw_tool_name"), r.Int("tool_call_count"), r.Int("terminal_call_count"), w)
		}
	}
	if s, ok := trials[5].Tree["raw_tool_arguments"].(string); !ok || s != `{"vendor": "Acme", "amount": ` {
		t.Errorf("malformed arguments not kept raw: %#v", trials[5].Tree["raw_tool_arguments"])
	}
	if pe := trials[6].Str("provider_error"); !strings.HasPrefix(pe, "InternalServerError: Error code: 500") {
		t.Errorf("500 provider error %q", pe)
	}
	if pe := trials[8].Str("provider_error"); !strings.HasPrefix(pe, "APITimeoutError: ") {
		t.Errorf("timeout provider error %q", pe)
	}
	if got := trials[4].Str("response_text"); got != "let me check" {
		t.Errorf("response text %q", got)
	}
	if exec := trials[0].Tree["executor"].(map[string]any); exec["response_model"] != "fake-model-2026" || exec["target_id"] != "fake" {
		t.Errorf("executor provenance %v", exec)
	}
	if exec := trials[6].Tree["executor"].(map[string]any); exec["response_model"] != nil {
		t.Errorf("provider error kept a response model: %v", exec)
	}

	calls := run.Files[rundir.Calls]
	if len(calls) != len(trials) {
		t.Fatalf("%d call rows for %d trials", len(calls), len(trials))
	}
	attempts := []int64{1, 1, 1, 1, 1, 1, 2, 2, 2}
	for i, a := range attempts {
		if calls[i].Int("attempts") != a {
			t.Errorf("call %d attempts %d, want %d", i, calls[i].Int("attempts"), a)
		}
		if calls[i].Str("call_id") != trials[i].Tree["metadata"].(map[string]any)["core"].(map[string]any)["call_id"] {
			t.Errorf("call %d id does not match its trial", i)
		}
	}
	if calls[6].Tree["response"] != nil || calls[6].Str("error") == "" || calls[0].Tree["usage"] == nil {
		t.Errorf("call rows: error row %v, usage %v", calls[6].Tree, calls[0].Tree["usage"])
	}
	firstLine := strings.SplitN(string(readFile(t, filepath.Join(opts.Out, "calls.jsonl"))), "\n", 2)[0]
	if !strings.HasPrefix(firstLine, `{"ts": "`) || !strings.Contains(firstLine, `"call_id": "call_`) || strings.Index(firstLine, `"task"`) > strings.Index(firstLine, `"target_id"`) {
		t.Errorf("calls.jsonl keys are not in EAL-Bench's insertion order: %.200s", firstLine)
	}
	checkContextsAgainstCalls(t, run)
	if len(run.Files[rundir.ModelContexts]) != len(trials) {
		t.Errorf("%d contexts for %d trials", len(run.Files[rundir.ModelContexts]), len(trials))
	}

	// What the server saw: EAL-Bench's parameters, and the key only in the header.
	for i, body := range srv.bodies {
		if body["tool_choice"] != "auto" || body["model"] != "fake-model" || len(body["tools"].([]any)) != 3 {
			t.Fatalf("request %d: %v", i, body)
		}
		if srv.auth[i] != "Bearer "+testAPIKey {
			t.Fatalf("request %d: authorization header %q", i, srv.auth[i])
		}
	}
	if seed := srv.bodies[1]["seed"].(float64); seed != 101 {
		t.Errorf("executor run 1 sent seed %v, want run seed + 1", seed)
	}
	assertNoSecret(t, opts.Out, testAPIKey)
}

func mustCondition(t testing.TB, id string) engine.Condition {
	c, ok := engine.ConditionByID(id)
	if !ok {
		t.Fatalf("no condition %s", id)
	}
	return c
}

func readFile(t testing.TB, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertNoSecret fails if any file of the run directory contains the secret.
func assertNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(string(readFile(t, filepath.Join(dir, e.Name()))), secret) {
			t.Errorf("%s contains the API key", e.Name())
		}
	}
}
