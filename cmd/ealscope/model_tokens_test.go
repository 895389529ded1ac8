package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// TestModelTokensAcrossAFleet: a run whose executor is a model served by three loopback
// replicas. Every trial's call is made once, spread over the replicas, and the tokens
// recorded equal the usage the servers reported (10 prompt + 5 completion a call): in the
// run's report, in the workspace summary, in the exported trials table and, for the
// safeguard lab's arms, per policy.
func TestModelTokensAcrossAFleet(t *testing.T) {
	t.Setenv("EALSCOPE_REPLAY_TEST_KEY", replayTestKey)
	dir := t.TempDir()
	var servers []*chatServer
	var cfg strings.Builder
	cfg.WriteString("[models.fleet]\nmodel = \"fake-model\"\napi_key_env = \"EALSCOPE_REPLAY_TEST_KEY\"\ntimeout_s = 5\nrequests_per_minute = 60000\n")
	for range 3 {
		s := newChatServer(t)
		s.set("act")
		servers = append(servers, s)
		fmt.Fprintf(&cfg, "[[models.fleet.replicas]]\nbase_url = %q\nconcurrency = 2\n", s.URL+"/v1")
	}
	config := writeFile(t, filepath.Join(dir, "config.toml"), []byte(cfg.String()))
	out := filepath.Join(dir, "run")
	var sum replay.Summary
	runJSON(t, &sum, "run", "--builtin", "--cases", fieldSurveyKit, "--out", out, "--config", config, "--executor", "fleet", "--json")
	var served int
	for _, s := range servers {
		if s.calls == 0 {
			t.Errorf("replica %s was never used", s.URL)
		}
		served += s.calls
	}
	var exec *replay.ModelCalls
	for i, mc := range sum.ModelCalls {
		if mc.Task == "executor" {
			exec = &sum.ModelCalls[i]
		}
	}
	if exec == nil || exec.Target != "fleet" || exec.Calls != sum.Trials || served != sum.Trials || exec.PromptTokens != int64(10*sum.Trials) ||
		exec.CompletionTokens != int64(5*sum.Trials) || exec.Counted != 0 {
		t.Fatalf("run report %+v for %d trials, %d calls served", sum.ModelCalls, sum.Trials, served)
	}

	db := filepath.Join(dir, "ws.db")
	runID := importRun(t, db, out)
	var doc runs.SummaryDoc
	runJSON(t, &doc, "summary", "--db", db, "--json")
	var got *runs.ModelCallCost
	for i, c := range doc.Runs[0].ModelCalls {
		if c.Source == "run" && c.Task == "executor" {
			got = &doc.Runs[0].ModelCalls[i]
		}
	}
	if got == nil || got.Target != "fleet" || got.Calls != exec.Calls || got.PromptTokens != exec.PromptTokens || got.CompletionTokens != exec.CompletionTokens {
		t.Fatalf("workspace summary %+v, run report %+v", doc.Runs[0].ModelCalls, *exec)
	}
	if text := runOK(t, "summary", "--db", db, "--run", runID); !strings.Contains(text, "MODEL CALLS") {
		t.Errorf("summary does not show the model calls:\n%s", text)
	}

	tables := filepath.Join(dir, "tables")
	runOK(t, "export", "tables", "--db", db, "--out", tables, "--format", "csv")
	prompt, completion, rows := sumCSV(t, filepath.Join(tables, "trials.csv"), "prompt_tokens", "completion_tokens")
	if rows != sum.Trials || prompt != exec.PromptTokens || completion != exec.CompletionTokens {
		t.Errorf("trials.csv: %d rows, %d + %d tokens; want %d, %d + %d", rows, prompt, completion, sum.Trials, exec.PromptTokens, exec.CompletionTokens)
	}

	var lab struct {
		ModelCalls []runs.ModelCallCost `json:"model_calls"`
	}
	runJSON(t, &lab, "safeguards", "--db", db, "--run", runID, "--policy", "memtx", "--executor", "fleet", "--config", config, "--json")
	policies := map[string]runs.ModelCallCost{}
	for _, c := range lab.ModelCalls {
		if c.Source != "lab" || c.PolicyID == nil {
			t.Errorf("a lab cost row that is not the lab's: %+v", c)
			continue
		}
		policies[*c.PolicyID] = c
	}
	for _, p := range []string{"", "memtx"} {
		c, ok := policies[p]
		if !ok || c.Calls == 0 || c.PromptTokens != int64(10*c.Calls) || c.CompletionTokens != int64(5*c.Calls) {
			t.Errorf("lab policy %q: %+v", p, c)
		}
	}
	if text := runOK(t, "safeguards", "--db", db, "--run", runID, "--policy", "memtx", "--executor", "fleet", "--config", config); !strings.Contains(text, "model calls of the lab's arms per policy") {
		t.Errorf("the lab table does not show what each policy cost:\n%s", text)
	}
}

// sumCSV sums two integer columns of a CSV table and counts its rows.
func sumCSV(t *testing.T, path, colA, colB string) (a, b int64, rows int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, h := range recs[0] {
		idx[h] = i
	}
	for _, r := range recs[1:] {
		x, _ := strconv.ParseInt(r[idx[colA]], 10, 64)
		y, _ := strconv.ParseInt(r[idx[colB]], 10, 64)
		a, b = a+x, b+y
	}
	return a, b, len(recs) - 1
}
