package procurement

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// testdata/executor_messages.golden.json was produced by an independent Python construction
// of EAL-Bench's executor messages (json.dumps for the canonical payload and the request,
// the faithful text layout, the naturalistic prompt strings and tool list), so this test pins
// the Go construction byte for byte, request hash included.
func TestExecutorMessagesGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/executor_messages.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		CaseID string `json:"case_id"`
		Rows   []struct {
			ProbeID     string               `json:"probe_id"`
			ConditionID string               `json:"condition_id"`
			Messages    []engine.ChatMessage `json:"messages"`
			RequestHash string               `json:"request_hash"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	d := Domain{}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	var c *engine.Case
	for _, k := range cases {
		if k.ID == golden.CaseID {
			c = k
		}
	}
	if c == nil {
		t.Fatalf("built-in case %s is missing", golden.CaseID)
	}
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	if len(golden.Rows) != 18 {
		t.Fatalf("golden has %d rows", len(golden.Rows))
	}
	for _, row := range golden.Rows {
		probe, ok := c.Probe(row.ProbeID)
		if !ok {
			t.Fatalf("unknown probe %s", row.ProbeID)
		}
		ev := engine.Evidence{Kind: engine.MemoryEvidence}
		switch row.ConditionID {
		case "faithful_typed":
			ev.Payload = d.TypedPayload(ledger)
		case "faithful_text":
			ev.Payload = d.FaithfulText(ledger)
		case "empty_memory":
			ev.Kind = engine.EmptyEvidence
		}
		msgs, err := engine.ExecutorMessages(d, c, probe, ev)
		if err != nil {
			t.Fatal(err)
		}
		for i := range msgs {
			if msgs[i] != row.Messages[i] {
				t.Errorf("%s/%s message %d differs:\n got %q\nwant %q", row.ConditionID, row.ProbeID, i, msgs[i].Content, row.Messages[i].Content)
			}
		}
		hash, err := engine.RequestHash(msgs, engine.ToolsTree(d))
		if err != nil {
			t.Fatal(err)
		}
		if hash != row.RequestHash {
			t.Errorf("%s/%s: request hash %s, want %s", row.ConditionID, row.ProbeID, hash, row.RequestHash)
		}
	}
}
