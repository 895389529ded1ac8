package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// judgeServer is a real chat-completions server on loopback answering as EAL-Bench's judges:
// by model name, a JSON judgement naming the first turn id of the block's messages as
// misleading, a reply with no JSON at all, or a provider error.
type judgeServer struct {
	*httptest.Server
	mu    sync.Mutex
	users []string
}

func newJudgeServer(t *testing.T) *judgeServer {
	s := &judgeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *judgeServer) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Model       string               `json:"model"`
		Temperature float64              `json:"temperature"`
		Messages    []engine.ChatMessage `json:"messages"`
	}
	_ = json.Unmarshal(raw, &req)
	user := req.Messages[len(req.Messages)-1].Content
	s.mu.Lock()
	s.users = append(s.users, user)
	s.mu.Unlock()
	var content string
	switch req.Model {
	case "judge-a", "judge-b":
		content = `Here is my verdict: {"cause": "restatement_applied", "misleading_message_ids": ["m1"], "ignored_message_ids": [], "error_entered_here": true, "explanation": "a relay restated the grant"} done`
	case "judge-c":
		content = "The writer simply failed; I cannot say more."
	default:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"unknown model","type":"invalid_request_error"}}`)
		return
	}
	c, _ := json.Marshal(content)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":0,"model":%q,"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, req.Model, c)
}

// TestDiagnoseRunWithLoopbackJudges: `diagnose --run --judge` asks each configured model once
// per failure with EAL-Bench's sections, writes rows in EAL-Bench's format with ealscope's
// judgement beside the models', computes consensus and agreement over the models only
// (a reply without JSON counts as "other"), and the rows import back and are read back.
func TestDiagnoseRunWithLoopbackJudges(t *testing.T) {
	dir := t.TempDir()
	srv := newJudgeServer(t)
	t.Setenv("EALSCOPE_REPLAY_TEST_KEY", replayTestKey)
	var cfg strings.Builder
	for _, m := range []string{"judge-a", "judge-b", "judge-c", "judge-d"} {
		fmt.Fprintf(&cfg, "[models.%s]\nbase_url = %q\nmodel = %q\napi_key_env = \"EALSCOPE_REPLAY_TEST_KEY\"\nconcurrency = 2\ntimeout_s = 5\n", m, srv.URL+"/v1", m)
	}
	config := writeFile(t, filepath.Join(dir, "config.toml"), []byte(cfg.String()))
	run := filepath.Join(dir, "run")
	runBuiltinCase(t, run)
	db := filepath.Join(dir, "ws.db")
	runID := importRun(t, db, run)
	out := filepath.Join(dir, "diagnosis.jsonl")
	_, stderr, code := runCLI(t, "diagnose", "--db", db, "--run", runID, "--config", config, "--max-attempts", "1",
		"--judge", "judge-a", "--judge", "judge-b", "--judge", "judge-c", "--judge", "judge-d", "--out", out)
	if code != 0 || !strings.Contains(stderr, "judge not estimable on a row: judge-d:") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("no diagnosis rows")
	}
	if len(srv.users) != 4*len(lines) {
		t.Errorf("%d judge calls for %d rows", len(srv.users), len(lines))
	}
	for _, section := range []string{"## POLICY", "## REQUEST", "## TRUE PERMISSION STATE after block", "## MEMORY BEFORE", "## BLOCK", "## WRITER PLAN", "## MEMORY AFTER", "## CAUSES", `"misleading_message_ids"`} {
		if !strings.Contains(srv.users[0], section) {
			t.Errorf("the judge's user message has no %q", section)
		}
	}
	for i, line := range lines {
		var row struct {
			Judges map[string]struct {
				Cause string `json:"cause"`
			} `json:"judges"`
			Consensus string `json:"consensus_cause"`
			Agreement int    `json:"agreement"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		if len(row.Judges) != 4 || row.Judges["judge-c"].Cause != "other" || row.Judges[replay.RulesJudge].Cause == "" {
			t.Errorf("row %d judges: %+v", i+1, row.Judges)
		}
		if row.Consensus != "restatement_applied" || row.Agreement != 2 {
			t.Errorf("row %d: consensus %q agreement %d, want restatement_applied 2", i+1, row.Consensus, row.Agreement)
		}
	}
	runOK(t, "import", "--db", db, out)
	store, err := runs.OpenExisting(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var first struct {
		CaseID      string `json:"case_id"`
		ConditionID string `json:"condition_id"`
		ErrorBlock  int    `json:"error_block"`
	}
	_ = json.Unmarshal([]byte(lines[0]), &first)
	ds, err := store.Diagnoses(context.Background(), first.CaseID, first.ConditionID, 0, first.ErrorBlock)
	if err != nil || len(ds) == 0 {
		t.Fatalf("imported rows read back: %v, %d rows", err, len(ds))
	}
	names := map[string]bool{}
	for _, j := range ds[0].Judges {
		names[j.Judge] = true
	}
	if !names[replay.RulesJudge] || !names["judge-a"] || ds[0].ConsensusCause == nil || *ds[0].ConsensusCause != "restatement_applied" {
		t.Errorf("imported row: %+v", ds[0])
	}
}
