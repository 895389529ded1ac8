package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// capturingTransport keeps the exact request bodies that leave the client, on their way to a
// real loopback server.
type capturingTransport struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *capturingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body.Close()
		c.mu.Lock()
		c.bodies = append(c.bodies, b)
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (c *capturingTransport) sent() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.bodies...)
}

// bodyRequestHash is engine.RequestHash of the messages and tools in a body as sent, read
// with json.Number leaves so numbers hash as the text that went over the wire.
func bodyRequestHash(t *testing.T, body []byte) (string, map[string]any) {
	t.Helper()
	tree, err := pyjson.DecodeTree(body)
	if err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	m := tree.(map[string]any)
	if m["tool_choice"] != "auto" {
		t.Fatalf("executor body tool_choice %v", m["tool_choice"])
	}
	var msgs []engine.ChatMessage
	for _, x := range m["messages"].([]any) {
		mm := x.(map[string]any)
		msgs = append(msgs, engine.ChatMessage{Role: mm["role"].(string), Content: mm["content"].(string)})
	}
	h, err := engine.RequestHash(msgs, m["tools"].([]any))
	if err != nil {
		t.Fatal(err)
	}
	return h, m
}

// TestExecutorContextHashIsHashOfBytesSent runs executor calls over loopback and checks that
// every executor model context's content_hash is the hash of a request body that actually
// left the client, and that every body sent is hashed by some context.
func TestExecutorContextHashIsHashOfBytesSent(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	d, cases := builtinCases(t)
	srv := newFakeServer(t, act)
	capture := &capturingTransport{}
	ex := NewModelExecutor(d, NewModelClient(testModel(srv.URL), fastRetry, &http.Client{Transport: capture}))
	opts := scriptedOptions(t, d, cases[:1], filepath.Join(t.TempDir(), "run"), 7)
	opts.Conditions = []engine.Condition{mustCondition(t, "faithful_typed"), mustCondition(t, "empty_memory")}
	opts.Executor = ex
	opts.Concurrency = 2
	mustRun(t, opts)
	sent := map[string]bool{}
	for _, b := range capture.sent() {
		h, _ := bodyRequestHash(t, b)
		sent[h] = true
	}
	run := openRun(t, opts.Out, false)
	hashed := map[string]bool{}
	for _, r := range run.Files[rundir.ModelContexts] {
		if r.Str("stage") != "executor" {
			continue
		}
		hashed[r.Str("content_hash")] = true
		if !sent[r.Str("content_hash")] {
			t.Errorf("context %s: content_hash %s is not the hash of any body sent", r.Str("context_id"), r.Str("content_hash"))
		}
	}
	for h := range sent {
		if !hashed[h] {
			t.Errorf("a body with request hash %s was sent but no context records it", h)
		}
	}
	if len(sent) < 2 || len(capture.sent()) != len(run.Files[rundir.Calls]) {
		t.Errorf("%d distinct bodies, %d sent, %d calls", len(sent), len(capture.sent()), len(run.Files[rundir.Calls]))
	}
}

// TestChatBodyCarriesEveryParameter checks a writer-shaped request on the wire: the entry's
// model, a forced tool_choice object, temperature 0 (sent, not dropped), seed, max_tokens,
// the path under a base URL with a trailing slash, and the key read from its variable at
// call time (absent header when the variable is empty).
func TestChatBodyCarriesEveryParameter(t *testing.T) {
	var mu sync.Mutex
	var paths, auths []string
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths, auths, bodies = append(paths, r.URL.Path), append(auths, r.Header.Get("Authorization")), append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model": "served-model", "choices": [{"message": {"content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "PatchDoc", "arguments": "{\"a\": 1}"}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}`)
	}))
	defer srv.Close()
	m := testModel(srv.URL)
	m.BaseURL = srv.URL + "/v1/"
	m.Model = "entry-model"
	m.APIKeyEnv = "EALSCOPE_TEST_CALLTIME_KEY"
	cl := NewModelClient(m, fastRetry, nil)
	req := ChatRequest{
		Messages: []engine.ChatMessage{{Role: "system", Content: "rules <&> ü"}, {Role: "user", Content: "update"}},
		Tools:    []any{patchDocTool}, ToolChoice: patchDocChoice, Temperature: 0, Seed: 42, MaxTokens: 321,
	}
	t.Setenv("EALSCOPE_TEST_CALLTIME_KEY", "sk-first")
	first := cl.Complete(context.Background(), req)
	t.Setenv("EALSCOPE_TEST_CALLTIME_KEY", "sk-second")
	cl.Complete(context.Background(), req)
	t.Setenv("EALSCOPE_TEST_CALLTIME_KEY", "")
	cl.Complete(context.Background(), req)

	if first.Error != nil || first.Response == nil {
		t.Fatalf("call failed: %v", first.Error)
	}
	if got := *first.Response.Model; got != "served-model" {
		t.Errorf("response model %q", got)
	}
	if tc := first.Response.ToolCalls; len(tc) != 1 || tc[0].Name != "PatchDoc" || tc[0].Arguments != `{"a": 1}` {
		t.Errorf("tool calls %+v", tc)
	}
	if u, ok := first.Usage.(map[string]any); !ok || u["total_tokens"] != json.Number("5") {
		t.Errorf("usage %#v", first.Usage)
	}
	if want := []string{"Bearer sk-first", "Bearer sk-second", ""}; strings.Join(auths, "|") != strings.Join(want, "|") {
		t.Errorf("authorization headers %q, want %q", auths, want)
	}
	for i, p := range paths {
		if p != "/v1/chat/completions" {
			t.Errorf("request %d path %s", i, p)
		}
	}
	tree, err := pyjson.DecodeTree(bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	body := tree.(map[string]any)
	for key, want := range map[string]any{"model": "entry-model", "temperature": json.Number("0.0"), "seed": json.Number("42"), "max_tokens": json.Number("321")} {
		if body[key] != want {
			t.Errorf("body %s = %#v, want %#v", key, body[key], want)
		}
	}
	sentTrees := pyjson.MustCanonicalJSON(map[string]any{"messages": body["messages"], "tools": body["tools"], "tool_choice": body["tool_choice"]})
	recorded := pyjson.MustCanonicalJSON(map[string]any{"messages": messagesTree(req.Messages), "tools": req.Tools, "tool_choice": req.ToolChoice})
	if sentTrees != recorded {
		t.Errorf("sent messages/tools/tool_choice differ from the recorded request:\nsent     %.300s\nrecorded %.300s", sentTrees, recorded)
	}
	for _, b := range bodies {
		if strings.Contains(string(b), "sk-") {
			t.Errorf("the key is in the body: %s", b)
		}
	}
}

func messagesTree(msgs []engine.ChatMessage) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return out
}

// TestProviderErrorsMapping pins the "Type: Error code: N - body" records and which
// statuses are retried, for the envelopes providers actually send.
func TestProviderErrorsMapping(t *testing.T) {
	long := `{"error": {"message": "` + strings.Repeat("é", 300) + `"}}`
	cases := []struct {
		name, ctype, body string
		status, attempts  int
		want              string
	}{
		{"openai 500", "application/json", `{"error": {"message": "boom", "type": "server_error"}}`, 500, 2, `InternalServerError: Error code: 500 - {"message": "boom", "type": "server_error"}`},
		{"openai 429", "application/json", `{"error":{"message":"slow"}}`, 429, 2, `RateLimitError: Error code: 429 - {"message":"slow"}`},
		{"openai 400", "application/json", `{"error":{"message":"bad","code":null}}`, 400, 1, `BadRequestError: Error code: 400 - {"message":"bad","code":null}`},
		{"401", "application/json", `{"error":{"message":"nokey"}}`, 401, 1, `AuthenticationError: Error code: 401 - {"message":"nokey"}`},
		{"403", "application/json", `{"error":{}}`, 403, 1, `PermissionDeniedError: Error code: 403 - {}`},
		{"404", "application/json", `{"error":{}}`, 404, 1, `NotFoundError: Error code: 404 - {}`},
		{"422", "application/json", `{"error":{}}`, 422, 1, `UnprocessableEntityError: Error code: 422 - {}`},
		{"418", "application/json", `{"error":{"message":"teapot"}}`, 418, 1, `APIStatusError: Error code: 418 - {"message":"teapot"}`},
		{"proxy 502 text", "text/plain", "Bad Gateway from the proxy\n", 502, 2, `InternalServerError: Error code: 502 - Bad Gateway from the proxy`},
		{"503 empty", "", "", 503, 2, `InternalServerError: Error code: 503 - Service Unavailable`},
		{"vllm 400", "application/json", `{"object":"error","message":"too long","type":"BadRequestError","code":400}`, 400, 1, `BadRequestError: Error code: 400 - {"object":"error","message":"too long","type":"BadRequestError","code":400}`},
		{"429 string error", "application/json", `{"error":"rate limited"}`, 429, 2, `RateLimitError: Error code: 429 - "rate limited"`},
		{"long body cut on a rune", "application/json", long, 500, 2, `InternalServerError: Error code: 500 - {"message": "` + strings.Repeat("é", 243) + "…"},
		{"200 unreadable", "application/json", `{"choices": [`, 200, 1, `ProviderError: unreadable chat completion: unexpected end of JSON input`},
		{"200 no choices", "application/json", `{"choices": []}`, 200, 1, `ProviderError: chat completion has no choices`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.ctype != "" {
					w.Header().Set("Content-Type", c.ctype)
				}
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			rec := NewModelClient(testModel(srv.URL), fastRetry, nil).Complete(context.Background(), ChatRequest{Messages: []engine.ChatMessage{{Role: "user", Content: "x"}}})
			if rec.Error == nil || *rec.Error != c.want || rec.Attempts != c.attempts || rec.Response != nil {
				t.Errorf("got error %q after %d attempts (response %v), want %q after %d", deref(rec.Error), rec.Attempts, rec.Response, c.want, c.attempts)
			}
		})
	}
	rec := NewModelClient(testModel("http://127.0.0.1:1"), fastRetry, nil).Complete(context.Background(), ChatRequest{})
	if rec.Error == nil || !strings.HasPrefix(*rec.Error, "APIConnectionError: Connection error: Post ") || rec.Attempts != 1 {
		t.Errorf("refused connection: %q after %d attempts", deref(rec.Error), rec.Attempts)
	}
}

// TestRetryAfterIsHonoured reads the provider's wait in each form it comes in, and checks a
// 429 carrying one is retried to success.
func TestRetryAfterIsHonoured(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	cases := []struct {
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{h("Retry-After", "7"), 7 * time.Second, true},
		{h("Retry-After", "1.5"), 1500 * time.Millisecond, true},
		{h("Retry-After-Ms", "250", "Retry-After", "9"), 250 * time.Millisecond, true},
		{h("Retry-After", now.Add(3*time.Second).Format(http.TimeFormat)), 3 * time.Second, true},
		{h("Retry-After", "120"), 0, false},
		{h("Retry-After", "0"), 0, false},
		{h("Retry-After", "-2"), 0, false},
		{h("Retry-After", "soon"), 0, false},
		{h("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), 0, false},
		{h(), 0, false},
		{nil, 0, false},
	}
	for i, c := range cases {
		got, ok := retryAfter(c.header, now)
		if got != c.want || ok != c.ok {
			t.Errorf("case %d %v: got %v %v, want %v %v", i, c.header, got, ok, c.want, c.ok)
		}
	}
	cl := NewModelClient(testModel("http://unused"), RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: 4 * time.Second}, nil)
	cl.now = func() time.Time { return now }
	if d := cl.retryWait(1, h("Retry-After", "7")); d != 7*time.Second {
		t.Errorf("retry wait with Retry-After 7: %v", d)
	}
	if d := cl.retryWait(2, h("Retry-After", "600")); d < time.Second || d > 2*time.Second {
		t.Errorf("an unreasonable Retry-After must fall back to the backoff (1-2 s at attempt 2), got %v", d)
	}

	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "application/json")
		if hits == 1 {
			w.Header().Set("Retry-After-Ms", "5")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error": {"message": "slow down"}}`)
			return
		}
		fmt.Fprint(w, `{"model": "m", "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}`)
	}))
	defer srv.Close()
	// The policy's own backoff is an hour, so only the provider's 5 ms wait lets the retry
	// happen before the guard cancels the call.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec := NewModelClient(testModel(srv.URL), RetryPolicy{MaxAttempts: 2, BaseDelay: time.Hour, MaxDelay: time.Hour}, nil).Complete(ctx, ChatRequest{})
	if rec.Cancelled || rec.Error != nil || rec.Attempts != 2 || rec.Response == nil || *rec.Response.Content != "ok" {
		t.Errorf("429 with Retry-After-Ms then success: cancelled %v error %q attempts %d", rec.Cancelled, deref(rec.Error), rec.Attempts)
	}
}
