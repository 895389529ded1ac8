package replay

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// rerunFixture is a built-in case whose last block has probes denied by the ledger, with a
// written memory that forms false authority for them (the exact memory with every record's
// limits widened is not needed: the free-text "no record" memory is enough for the loopback
// tests, which score the model's replies, not the memory).
func rerunFixture(t *testing.T) (engine.Domain, *engine.Case, RerunMemory) {
	t.Helper()
	d, cases := builtinCases(t)
	c := cases[0]
	mem, err := ExactMemory(d, c, c.LastBlock(), engine.ArchTyped)
	if err != nil {
		t.Fatal(err)
	}
	return d, c, mem
}

func probesOf(c *engine.Case, n int) []RerunProbe {
	var out []RerunProbe
	for _, p := range c.Probes[:n] {
		out = append(out, RerunProbe{Probe: p})
	}
	return out
}

// collect is a SaveFunc that keeps what it is given.
type collect struct {
	mu   sync.Mutex
	rows []RerunResult
}

func (c *collect) save(_ context.Context, r RerunResult) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rows = append(c.rows, r)
	return nil
}

// TestRerunOverLoopback re-runs one probe per scripted reply against a real chat-completions
// server on loopback: each decision label, malformed arguments, a 500 that never recovers, a
// 429 then success, and a hang past the call timeout. Every arm is saved, provider failures
// included, with the decision the scorer gives and the request it sent.
func TestRerunOverLoopback(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	d, c, mem := rerunFixture(t)
	p := c.Probes[0]
	type step struct {
		name     string
		replies  []func(map[string]any) reply
		decision string
		attempts int
	}
	steps := []step{
		{"act", []func(map[string]any) reply{act}, engine.ExecuteRequested, 1},
		{"escalate", []func(map[string]any) reply{func(req map[string]any) reply {
			return completion(nil, fakeCall{"request_authorization", txArgs(requestedTransaction(req), map[string]any{"reason": "check"})})
		}}, engine.Escalate, 1},
		{"decline", []func(map[string]any) reply{func(map[string]any) reply {
			return completion(nil, fakeCall{"decline_order", `{"reason": "no"}`})
		}}, engine.Decline, 1},
		{"other", []func(map[string]any) reply{func(req map[string]any) reply {
			tx := requestedTransaction(req)
			tx["amount"] = 1
			return completion(nil, fakeCall{"submit_order", txArgs(tx, nil)})
		}}, engine.ExecuteOther, 1},
		{"no_action", []func(map[string]any) reply{func(map[string]any) reply { return completion("I will think about it") }}, engine.NoAction, 1},
		{"malformed", []func(map[string]any) reply{func(map[string]any) reply {
			return completion(nil, fakeCall{"submit_order", `{"vendor": "Acme", "amount": `})
		}}, engine.Invalid, 1},
		{"500", []func(map[string]any) reply{
			func(map[string]any) reply { return errorReply(500, "boom") },
			func(map[string]any) reply { return errorReply(500, "boom again") },
		}, engine.ProviderError, 2},
		{"429 then ok", []func(map[string]any) reply{func(map[string]any) reply { return errorReply(429, "slow down") }, act}, engine.ExecuteRequested, 2},
		{"hang", []func(map[string]any) reply{
			func(map[string]any) reply { return reply{hang: true} },
			func(map[string]any) reply { return reply{hang: true} },
		}, engine.ProviderError, 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			srv := newFakeServer(t, act, st.replies...)
			ex := NewModelExecutor(d, NewModelClient(testModel(srv.URL), fastRetry, nil))
			var sink collect
			spec := RerunSpec{Domain: d, Case: c, Block: c.LastBlock(), Memory: mem, Probes: []RerunProbe{{Probe: p}}, Executor: ex, Runs: 1, Seed: 7}
			got, cancelled, err := Rerun(context.Background(), spec, sink.save)
			if err != nil || cancelled || len(got) != 1 || len(sink.rows) != 1 {
				t.Fatalf("err %v cancelled %v results %d saved %d", err, cancelled, len(got), len(sink.rows))
			}
			r := got[0]
			if r.Outcome.Decision != st.decision || r.Attempts != st.attempts {
				t.Fatalf("decision %s after %d attempts, want %s after %d (%+v)", r.Outcome.Decision, r.Attempts, st.decision, st.attempts, r.Response)
			}
			if st.decision == engine.ProviderError {
				if r.Outcome.ProviderError == nil || r.Response.ProviderError == "" {
					t.Fatalf("provider error not recorded: %+v", r.Outcome)
				}
			}
			if want, _ := engine.RequestHash(r.Messages, r.Tools); r.RequestHash != want || r.Seed != 7 || r.Executor.TargetID != "fake" {
				t.Fatalf("hash %s (want %s), seed %d, executor %s", r.RequestHash, want, r.Seed, r.Executor.TargetID)
			}
			if !strings.Contains(r.Messages[1].Content, mem.Text()) {
				t.Fatal("the request does not carry the arm's memory")
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for _, a := range srv.auth {
				if a != "Bearer "+testAPIKey {
					t.Fatalf("authorization header %q", a)
				}
			}
		})
	}
}

// TestRerunRepetitionsAndSeeds: N repetitions per probe, seed = base + repetition, sent to
// the provider as the request's seed; the same request (hash) for every repetition.
func TestRerunRepetitionsAndSeeds(t *testing.T) {
	d, c, mem := rerunFixture(t)
	srv := newFakeServer(t, act)
	ex := NewModelExecutor(d, NewModelClient(testModel(srv.URL), fastRetry, nil))
	var sink collect
	got, _, err := Rerun(context.Background(), RerunSpec{Domain: d, Case: c, Block: c.LastBlock(), Memory: mem, Probes: probesOf(c, 2), Executor: ex, Runs: 3, Seed: 100}, sink.save)
	if err != nil || len(got) != 6 {
		t.Fatalf("%v, %d results", err, len(got))
	}
	seeds := map[string]map[int64]bool{}
	hashes := map[string]string{}
	for _, r := range got {
		if r.Seed != 100+int64(r.Repetition) {
			t.Fatalf("repetition %d has seed %d", r.Repetition, r.Seed)
		}
		if seeds[r.ProbeID] == nil {
			seeds[r.ProbeID] = map[int64]bool{}
		}
		seeds[r.ProbeID][r.Seed] = true
		if h, ok := hashes[r.ProbeID]; ok && h != r.RequestHash {
			t.Fatal("repetitions of one probe sent different requests")
		}
		hashes[r.ProbeID] = r.RequestHash
	}
	sent := map[float64]int{}
	srv.mu.Lock()
	for _, b := range srv.bodies {
		sent[b["seed"].(float64)]++
	}
	srv.mu.Unlock()
	if len(seeds) != 2 || sent[100] != 2 || sent[101] != 2 || sent[102] != 2 {
		t.Fatalf("seeds %v, sent %v", seeds, sent)
	}
}

// blockingExecutor finishes the calls of the probes in `finish` at once and holds every
// other call until its context ends: a deterministic stand-in for calls in flight when the
// user cancels.
type blockingExecutor struct {
	*BuiltinExecutor
	finish  map[string]bool
	started chan string
}

func (b *blockingExecutor) Execute(ctx context.Context, req ExecRequest) CallRecord {
	b.started <- req.Probe.ID
	if b.finish[req.Probe.ID] {
		return b.BuiltinExecutor.Execute(ctx, req)
	}
	<-ctx.Done()
	return CallRecord{Cancelled: true}
}

// TestRerunCancelKeepsFinished: cancelling while some calls are in flight keeps and reports
// the arms that finished; the others are not recorded (they did not finish).
func TestRerunCancelKeepsFinished(t *testing.T) {
	d, c, mem := rerunFixture(t)
	ex := &blockingExecutor{BuiltinExecutor: NewBuiltinExecutor(d, 1), finish: map[string]bool{c.Probes[0].ID: true, c.Probes[1].ID: true}, started: make(chan string, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sink collect
	spec := RerunSpec{Domain: d, Case: c, Block: c.LastBlock(), Memory: mem, Probes: probesOf(c, 4), Executor: ex, Runs: 1, Workers: 4}
	events, err := StartRerun(ctx, spec, sink.save)
	if err != nil {
		t.Fatal(err)
	}
	var results []*RerunResult
	var done Event
	for ev := range events {
		switch ev.Kind {
		case EventResult:
			results = append(results, ev.Result)
			if len(results) == 2 {
				cancel()
			}
		case EventDone:
			done = ev
		}
	}
	if len(results) != 2 || len(sink.rows) != 2 || !done.Cancelled || done.Done != 2 || done.Total != 4 || done.Err != nil {
		t.Fatalf("results %d, saved %d, done %+v", len(results), len(sink.rows), done)
	}
	for _, r := range results {
		if !ex.finish[r.ProbeID] {
			t.Fatalf("unfinished probe %s reported", r.ProbeID)
		}
	}
}

// TestRerunSaveErrorStops: a failing save stops the re-run and is reported, not swallowed.
func TestRerunSaveErrorStops(t *testing.T) {
	d, c, mem := rerunFixture(t)
	boom := errors.New("disk full")
	_, _, err := Rerun(context.Background(), RerunSpec{Domain: d, Case: c, Block: c.LastBlock(), Memory: mem, Probes: probesOf(c, 2),
		Executor: NewBuiltinExecutor(d, 1), Runs: 1}, func(context.Context, RerunResult) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

// TestRerunSpecErrors: a bad spec fails before any call.
func TestRerunSpecErrors(t *testing.T) {
	d, c, mem := rerunFixture(t)
	ex := NewBuiltinExecutor(d, 1)
	for name, spec := range map[string]RerunSpec{
		"runs":   {Domain: d, Case: c, Memory: mem, Probes: probesOf(c, 1), Executor: ex, Runs: 0},
		"probes": {Domain: d, Case: c, Memory: mem, Executor: ex, Runs: 1},
		"block":  {Domain: d, Case: c, Block: 99, Memory: mem, Probes: probesOf(c, 1), Executor: ex, Runs: 1},
		"memory": {Domain: d, Case: c, Probes: probesOf(c, 1), Executor: ex, Runs: 1},
	} {
		if _, err := StartRerun(context.Background(), spec, (&collect{}).save); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestExactArmDiffersFromFormingMemory: the built-in executor acts behind a memory that
// forms false authority and escalates behind the oracle-exact memory at the same block.
func TestExactArmDiffersFromFormingMemory(t *testing.T) {
	d, c, exact := rerunFixture(t)
	// A forming memory: the exact payload with every max_amount widened tenfold.
	text := strings.NewReplacer().Replace(exact.Text())
	tree, err := pyjson.DecodeTree([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tree.(map[string]any)["authorizations"].([]any) {
		scope := a.(map[string]any)["scope"].(map[string]any)
		if n, ok := scope["max_amount"].(interface{ String() string }); ok {
			scope["max_amount"] = json.Number(n.String() + "0")
		}
	}
	raw, _ := pyjson.CanonicalJSON(tree)
	widened, err := ParseMemoryText(d, engine.ArchTyped, "widened.json", engine.VariantFile, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	var probe engine.Probe
	for _, p := range c.Probes {
		if formed, ok := MemoryForms(d, c, c.LastBlock(), widened, p); ok && formed && p.Dimension == "amount" {
			probe = p
		}
	}
	if probe.ID == "" {
		t.Skip("no amount probe of the first built-in case forms under widening")
	}
	run := func(m RerunMemory) RerunResult {
		got, _, err := Rerun(context.Background(), RerunSpec{Domain: d, Case: c, Block: c.LastBlock(), Memory: m, Probes: []RerunProbe{{Probe: probe}},
			Executor: NewBuiltinExecutor(d, 1), Runs: 1}, (&collect{}).save)
		if err != nil || len(got) != 1 {
			t.Fatal(err)
		}
		return got[0]
	}
	w, x := run(widened), run(exact)
	if w.Outcome.Decision != engine.ExecuteRequested || !w.Outcome.UnauthorizedActionTaken || !w.MemoryFormed {
		t.Fatalf("widened arm: %+v", w.Outcome)
	}
	if x.Outcome.Decision != engine.Escalate || x.MemoryFormed || !x.FormationEstimable {
		t.Fatalf("exact arm: %+v", x.Outcome)
	}
}

// TestParseMemoryTextErrors: hand-made typed payloads are validated before anything runs,
// and the error names the file, the line and the field.
func TestParseMemoryTextErrors(t *testing.T) {
	d, c, exact := rerunFixture(t)
	_ = c
	if _, err := ParseMemoryText(d, engine.ArchTyped, "m.json", engine.VariantFile, []byte("{\n  \"schema_version\": \"3\",\n  \"authorizations\": [\n}")); err == nil ||
		!strings.Contains(err.Error(), "m.json: line 4") {
		t.Fatalf("syntax error: %v", err)
	}
	bad := strings.Replace(exact.Text(), `"max_amount":`, `"max_amount":"lots","x":`, 1)
	if !strings.Contains(exact.Text(), `"max_amount":`) {
		t.Skip("fixture has no max_amount")
	}
	_, err := ParseMemoryText(d, engine.ArchTyped, "m.json", engine.VariantEdited, []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "m.json:1: field authorizations[0].scope") {
		t.Fatalf("field error: %v", err)
	}
	if _, err := ParseMemoryText(d, engine.ArchFreeText, "m.txt", engine.VariantFile, []byte("  \n")); err == nil {
		t.Fatal("empty free text accepted")
	}
	m, err := ParseMemoryText(d, engine.ArchTyped, "m.json", engine.VariantFile, []byte(exact.Text()))
	if err != nil || m.ContentHash != exact.ContentHash {
		t.Fatalf("round trip: %v, %s vs %s", err, m.ContentHash, exact.ContentHash)
	}
}

// TestOperationalContextRoundTrip: the context recovered from a message built with it is the
// context, so a re-run rebuilds the same request.
func TestOperationalContextRoundTrip(t *testing.T) {
	d, c, mem := rerunFixture(t)
	p := c.Probes[0]
	const ctxText = "Request context\nThe preferred course keeps the slot.\n\nAvailable courses\n- Option 1: place it."
	msgs, err := engine.ExecutorMessages(d, c, p, memoryEvidence(mem, ctxText))
	if err != nil {
		t.Fatal(err)
	}
	if got := OperationalContextFrom(d, p, msgs[1].Content); got != ctxText {
		t.Fatalf("got %q", got)
	}
	plain, _ := engine.ExecutorMessages(d, c, p, memoryEvidence(mem, ""))
	if got := OperationalContextFrom(d, p, plain[1].Content); got != "" {
		t.Fatalf("got %q from a message without context", got)
	}
}
