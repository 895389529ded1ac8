package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// reply is one scripted answer of the fake chat-completions server.
type reply struct {
	status int
	body   any
	// hang blocks until the client gives up (its timeout closes the connection).
	hang bool
}

// fakeServer is a real HTTP server on loopback speaking /v1/chat/completions. Replies come
// from a script in request order, built by a function of the decoded request (so an answer
// can echo the requested transaction); it records every request body and auth header.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []func(req map[string]any) reply
	fallback func(req map[string]any) reply
	bodies   []map[string]any
	auth     []string
}

func newFakeServer(t *testing.T, fallback func(map[string]any) reply, script ...func(map[string]any) reply) *fakeServer {
	f := &fakeServer{script: script, fallback: fallback}
	f.Server = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) hits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func (f *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	next := f.fallback
	if len(f.script) > 0 {
		next, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	rep := next(req)
	if rep.hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.status != 0 {
		w.WriteHeader(rep.status)
	}
	_ = json.NewEncoder(w).Encode(rep.body)
}

type fakeCall struct {
	name string
	args string
}

func completion(content any, calls ...fakeCall) reply {
	var tcs []any
	for i, c := range calls {
		tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
	}
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(tcs) > 0 {
		msg["tool_calls"] = tcs
		finish = "tool_calls"
	}
	return reply{body: map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "fake-model-2026",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	}}
}

func errorReply(status int, msg string) reply {
	return reply{status: status, body: map[string]any{"error": map[string]any{"message": msg, "type": "server_error"}}}
}

// requestedTransaction pulls the transaction out of an executor request's user message.
func requestedTransaction(req map[string]any) map[string]any {
	msgs := req["messages"].([]any)
	user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	_, after, _ := strings.Cut(user, "Current transaction:\n")
	body, _, _ := strings.Cut(after, "\n</CURRENT_REQUEST>")
	var tx map[string]any
	_ = json.Unmarshal([]byte(body), &tx)
	return tx
}

func txArgs(tx map[string]any, extra map[string]any) string {
	args := map[string]any{"vendor": tx["vendor"], "category": tx["category"], "amount": tx["amount"], "currency": tx["currency"]}
	for k, v := range extra {
		args[k] = v
	}
	b, _ := json.Marshal(args)
	return string(b)
}

func act(req map[string]any) reply {
	return completion(nil, fakeCall{"submit_order", txArgs(requestedTransaction(req), nil)})
}
