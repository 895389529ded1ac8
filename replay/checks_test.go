package replay

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// checkContextsAgainstCalls checks EAL-Bench's invariant: the call ids of contexts and calls
// agree, and each executor context hash is RequestHash of the logged messages and tools.
func checkContextsAgainstCalls(t *testing.T, run *rundir.Run) {
	t.Helper()
	calls := map[string]map[string]any{}
	for _, r := range run.Files[rundir.Calls] {
		calls[r.Str("call_id")] = r.Tree
	}
	if len(run.Files[rundir.ModelContexts]) == 0 {
		t.Fatal("no model contexts")
	}
	for _, r := range run.Files[rundir.ModelContexts] {
		call, ok := calls[r.Str("call_id")]
		if !ok {
			t.Fatalf("context %s: call %s not in calls.jsonl", r.Str("context_id"), r.Str("call_id"))
		}
		if r.Str("stage") != "executor" {
			continue
		}
		req := call["request"].(map[string]any)
		var msgs []engine.ChatMessage
		for _, m := range req["messages"].([]any) {
			mm := m.(map[string]any)
			msgs = append(msgs, engine.ChatMessage{Role: mm["role"].(string), Content: mm["content"].(string)})
		}
		tools, _ := req["tools"].([]any)
		h, err := engine.RequestHash(msgs, tools)
		if err != nil {
			t.Fatal(err)
		}
		if h != r.Str("content_hash") {
			t.Fatalf("context %s: content_hash %s, RequestHash of the logged request %s", r.Str("context_id"), r.Str("content_hash"), h)
		}
	}
}
