package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

const replayTestKey = "sk-ealscope-replay-3c1f9e-never-store-me"

// chatServer is a real chat-completions server on loopback. Its mode is set between
// invocations (each replay command runs to the end before the next starts), so every reply
// is scripted without timing.
type chatServer struct {
	*httptest.Server
	mu    sync.Mutex
	mode  string
	calls int
	auth  map[string]bool
}

func newChatServer(t *testing.T) *chatServer {
	s := &chatServer{auth: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) set(mode string) {
	s.mu.Lock()
	s.mode, s.calls = mode, 0
	s.mu.Unlock()
}

func (s *chatServer) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []engine.ChatMessage `json:"messages"`
	}
	_ = json.Unmarshal(raw, &req)
	s.mu.Lock()
	mode := s.mode
	s.calls++
	n := s.calls
	s.auth[r.Header.Get("Authorization")] = true
	s.mu.Unlock()
	_, after, _ := strings.Cut(req.Messages[len(req.Messages)-1].Content, "Current transaction:\n")
	body, _, _ := strings.Cut(after, "\n</CURRENT_REQUEST>")
	var tx map[string]any
	_ = json.Unmarshal([]byte(body), &tx)
	args := func(extra string) string {
		return fmt.Sprintf(`{"vendor": %q, "category": %q, "amount": %v, "currency": %q%s}`, tx["vendor"], tx["category"], tx["amount"], tx["currency"], extra)
	}
	reply := func(name, arguments string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":0,"model":"fake-2026","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"c1","type":"function","function":{"name":%q,"arguments":%q}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, name, arguments)
	}
	fail := func(code int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprint(w, `{"error":{"message":"scripted failure","type":"server_error"}}`)
	}
	switch {
	case mode == "act":
		reply("submit_order", args(""))
	case mode == "escalate":
		reply("request_authorization", args(`, "reason": "needs approval"`))
	case mode == "decline":
		reply("decline_order", `{"reason": "no"}`)
	case mode == "malformed":
		reply("submit_order", `{"vendor": "Acme", "amount": `)
	case mode == "500":
		fail(500)
	case mode == "act-or-500" && failsByContent(req.Messages[len(req.Messages)-1].Content):
		fail(500)
	case mode == "act-or-500":
		reply("submit_order", args(""))
	case mode == "503-then-act" && n == 1:
		fail(503)
	case mode == "503-then-act":
		reply("submit_order", args(""))
	case mode == "act-500-or-garbage" && failsByContent(req.Messages[len(req.Messages)-1].Content):
		if garbageByContent(req.Messages[len(req.Messages)-1].Content) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","choices":[{"message":`)
			return
		}
		// The replica need not rest: the failures are the point, not the wait.
		w.Header().Set("Retry-After-Ms", "1")
		fail(500)
	case mode == "act-500-or-garbage":
		reply("submit_order", args(""))
	case mode == "429-then-escalate" && n == 1:
		fail(429)
	case mode == "429-then-escalate":
		reply("request_authorization", args(`, "reason": "needs approval"`))
	case mode == "echo-key":
		// A server that echoes the credential it was sent, and another key, in its error.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"bad key: %s (also tried sk-otherkey1234567890 and key=%s)","type":"invalid_request_error"}}`,
			r.Header.Get("Authorization"), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	case mode == "echo-key-200":
		// A successful reply quoting the credential it was sent, in the text, the tool
		// call's id and arguments, the model name and usage, plus a Basic credential.
		auth := r.Header.Get("Authorization")
		key := strings.TrimPrefix(auth, "Bearer ")
		content, _ := json.Marshal(fmt.Sprintf("You sent %s; as Basic: Basic dXNlcjpodW50ZXIy; raw %s", auth, key))
		arguments, _ := json.Marshal(args(fmt.Sprintf(`, "note": %q`, auth+" / "+key)))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":0,"model":"fake-%s","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":%s,
			"tool_calls":[{"id":"c-%s","type":"function","function":{"name":"submit_order","arguments":%s}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"echo":%q}}`,
			key, content, key, arguments, auth)
	case mode == "hang":
		<-r.Context().Done()
	default:
		fail(400)
	}
}

// replayEnv is a workspace holding a scripted run of one built-in case, a config naming the
// loopback model, and the chain to re-run.
type replayEnv struct {
	dir, db, config string
	srv             *chatServer
	chain           runs.ChainRow
	formed, authz   string
}

func newReplayEnv(t *testing.T) *replayEnv {
	t.Helper()
	t.Setenv("EALSCOPE_REPLAY_TEST_KEY", replayTestKey)
	t.Setenv("OPENAI_API_KEY", "")
	ctx := context.Background()
	env := &replayEnv{dir: t.TempDir(), srv: newChatServer(t)}
	env.db = filepath.Join(env.dir, "ws.db")
	d, err := replay.Prepare(replay.Settings{Domain: "procurement", Corpus: replay.BuiltinCorpus, Conditions: []string{"all"}, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: 20260821, FaultRate: 0.35, Faults: replay.FaultFamilies}, &replay.Config{}, replay.DefaultRetryPolicy(), "test")
	if err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(env.db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for i, c := range d.Cases[:4] {
		opts := d
		opts.Cases = d.Cases[i : i+1]
		opts.Out, opts.Concurrency = filepath.Join(env.dir, "run-"+c.ID), 4
		if _, err := replay.Run(ctx, opts); err != nil {
			t.Fatal(err)
		}
		rep, err := store.Import(ctx, []string{opts.Out}, runs.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := store.Chains(ctx, runs.ChainFilter{RunID: rep.Results[0].RunID, Condition: "incremental_typed"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 && rows[0].FormedFinal != nil && *rows[0].FormedFinal {
			env.chain = rows[0]
			break
		}
	}
	if env.chain.Key == 0 {
		t.Skip("no built-in case yields an incremental_typed chain forming at its final block")
	}
	src, err := store.RerunSource(ctx, env.chain.Key, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range src.Probes {
		if p.Formed && env.formed == "" {
			env.formed = p.Probe.ID
		}
		if p.RequestAuthorized && env.authz == "" {
			env.authz = p.Probe.ID
		}
	}
	env.config = fakeModelConfig(t, env.srv, env.dir, 4)
	return env
}

type cmdResult struct {
	code           int
	stdout, stderr string
}

func (e *replayEnv) replay(t *testing.T, mode string, args ...string) cmdResult {
	t.Helper()
	e.srv.set(mode)
	base := []string{"replay", "--db", e.db, "--config", e.config, "--max-attempts", "2"}
	stdout, stderr, code := runCLI(t, append(base, args...)...)
	return cmdResult{code, stdout, stderr}
}

func (e *replayEnv) chainArgs(probe, memory string) []string {
	return []string{"--case", e.chain.CaseID, "--condition", e.chain.ConditionID, "--probe", probe, "--memory", memory, "--executor", "fake", "--json"}
}

type replayDocJSON struct {
	Replays []map[string]any `json:"replays"`
	Attrib  []struct {
		ProbeID      string   `json:"probe_id"`
		MemoryFormed bool     `json:"memory_formed"`
		Attributed   bool     `json:"attributed"`
		Reasons      []string `json:"reasons"`
	} `json:"attribution"`
	Counts []armCount `json:"counts"`
}

func decode(t *testing.T, r cmdResult) replayDocJSON {
	t.Helper()
	var doc replayDocJSON
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}
	return doc
}

// TestReplayCommandOverLoopback drives `ealscope replay` against a chat-completions server on
// loopback: the written arm acts, a failing exact arm is a provider_error row (exit 0) whose
// attribution is not estimable, a retried exact arm escalates and the pair is attributed;
// malformed arguments, a 429 then success and a hang past the timeout land as their
// decisions. The API key reaches the server and nothing else: not the database (and its WAL),
// not any file written, not the command's output.
func TestReplayCommandOverLoopback(t *testing.T) {
	env := newReplayEnv(t)
	var outputs []string
	check := func(r cmdResult) replayDocJSON {
		t.Helper()
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return decode(t, r)
	}
	doc := check(env.replay(t, "act", env.chainArgs(env.formed, "written")...))
	if len(doc.Replays) != 1 || doc.Replays[0]["decision"] != engine.ExecuteRequested || doc.Replays[0]["unauthorized_action_taken"] != true || len(doc.Attrib) != 0 {
		t.Fatalf("written arm: %+v", doc)
	}
	for _, k := range []string{"replay_id", "case_id", "condition_id", "writer_run_id", "block_index", "probe_id", "memory_variant", "memory_content_hash", "executor", "seed",
		"decision", "request_authorized", "requested_action_taken", "unauthorized_action_taken", "compliant", "parseable", "provider_error", "raw_tool_name",
		"raw_tool_arguments", "oracle_reason", "request_hash", "latency_ms"} {
		if _, ok := doc.Replays[0][k]; !ok {
			t.Fatalf("replay row lacks %s", k)
		}
	}
	doc = check(env.replay(t, "500", env.chainArgs(env.formed, "exact")...))
	if len(doc.Replays) != 1 || doc.Replays[0]["decision"] != engine.ProviderError || doc.Replays[0]["provider_error"] == nil {
		t.Fatalf("failed exact arm: %+v", doc.Replays)
	}
	if len(doc.Attrib) != 1 || doc.Attrib[0].Attributed || !slices.Contains(doc.Attrib[0].Reasons, engine.ReasonProviderErrorExact) {
		t.Fatalf("attribution with a failed exact arm: %+v", doc.Attrib)
	}
	doc = check(env.replay(t, "429-then-escalate", env.chainArgs(env.formed, "exact")...))
	if doc.Replays[0]["decision"] != engine.Escalate || len(doc.Attrib) != 1 || !doc.Attrib[0].Attributed || !doc.Attrib[0].MemoryFormed || len(doc.Attrib[0].Reasons) != 0 {
		t.Fatalf("retried exact arm: %+v", doc)
	}
	doc = check(env.replay(t, "malformed", env.chainArgs(env.authz, "written")...))
	if doc.Replays[0]["decision"] != engine.Invalid {
		t.Fatalf("malformed: %+v", doc.Replays)
	}
	doc = check(env.replay(t, "hang", env.chainArgs(env.authz, "exact")...))
	if doc.Replays[0]["decision"] != engine.ProviderError || !strings.Contains(fmt.Sprint(doc.Replays[0]["provider_error"]), "Timeout") {
		t.Fatalf("hang: %+v", doc.Replays)
	}
	if len(doc.Attrib) != 1 || !slices.Contains(doc.Attrib[0].Reasons, engine.ReasonProviderErrorExact) || !slices.Contains(doc.Attrib[0].Reasons, engine.ReasonRequestIsAuthorized) {
		t.Fatalf("attribution after a hang: %+v", doc.Attrib)
	}
	doc = check(env.replay(t, "decline", append(env.chainArgs("all", "exact"), "--runs", "2")...))
	if len(doc.Replays) != 2*6 {
		t.Fatalf("%d rows for all probes x 2 runs", len(doc.Replays))
	}
	env.srv.mu.Lock()
	auth := env.srv.auth
	env.srv.mu.Unlock()
	if !auth["Bearer "+replayTestKey] || len(auth) != 1 {
		t.Fatalf("the server saw authorization %v", auth)
	}
	store, err := runs.Open(env.db)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := store.ReplaysForChain(context.Background(), env.chain.Key)
	store.Close()
	if err != nil || len(stored) != 5+12 {
		t.Fatalf("%v, %d stored replays", err, len(stored))
	}
	assertNoKey(t, env.dir, outputs)
}

// assertNoKey greps every file under dir (the database, its WAL, run directories, config)
// and every output for the key.
func assertNoKey(t *testing.T, dir string, outputs []string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if bytes.Contains(data, []byte(replayTestKey)) {
			t.Errorf("%s contains the API key", path)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walk: %v (%d files)", err, files)
	}
	for _, o := range outputs {
		if strings.Contains(o, replayTestKey) {
			t.Error("command output contains the API key")
		}
	}
}

// TestReplayCommandErrors: usage errors exit 2, data errors 1, and a typed payload file that
// fails the schema is refused before any call, naming the file and the field.
func TestReplayCommandErrors(t *testing.T) {
	env := newReplayEnv(t)
	if r := env.replay(t, "act", "--case", env.chain.CaseID, "--condition", env.chain.ConditionID); r.code != 2 {
		t.Fatalf("missing --probe: exit %d %s", r.code, r.stderr)
	}
	if r := env.replay(t, "act", env.chainArgs("no_such_probe", "written")...); r.code != 1 || !strings.Contains(r.stderr, "no_such_probe") {
		t.Fatalf("unknown probe: exit %d %s", r.code, r.stderr)
	}
	if r := env.replay(t, "act", env.chainArgs(env.formed, "sideways")...); r.code != 2 {
		t.Fatalf("bad --memory: exit %d %s", r.code, r.stderr)
	}
	bad := writeFile(t, filepath.Join(env.dir, "bad.json"), []byte("{\n  \"schema_version\": \"3\",\n  \"authorizations\": [{\"authorization_id\": 5}]\n}\n"))
	r := env.replay(t, "act", env.chainArgs(env.formed, "@"+bad)...)
	if r.code != 1 || !strings.Contains(r.stderr, bad+":3: field authorizations[0]") {
		t.Fatalf("invalid payload file: exit %d %s", r.code, r.stderr)
	}
	env.srv.mu.Lock()
	calls := env.srv.calls
	env.srv.mu.Unlock()
	if calls != 0 {
		t.Fatalf("%d calls made despite the errors", calls)
	}
	if r := env.replay(t, "act", env.chainArgs(env.formed, "written")...); r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	if r := env.replay(t, "act", append(env.chainArgs(env.formed, "written")[:8], "--executor", "nope")...); r.code != 1 || !strings.Contains(r.stderr, "models.nope") {
		t.Fatalf("unknown model: exit %d %s", r.code, r.stderr)
	}
}

// TestReplayFormed: --formed re-runs the exact arm of every forming (memory, probe) of the run
// on the built-in executor and reports EAL-Bench's end-to-end counts: the scripted run's
// built-in executor acts on every formed probe behind written memory and on none behind exact
// memory, so every estimable request is attributed.
func TestReplayFormed(t *testing.T) {
	env := newReplayEnv(t)
	var doc struct {
		Replays []map[string]any `json:"replays"`
		Report  endToEndReport   `json:"report"`
	}
	runJSON(t, &doc, "replay", "--db", env.db, "--run", env.chain.RunID, "--formed", "--memory", "exact", "--executor", "builtin", "--json")
	r := doc.Report
	if r.MemoriesForming == 0 || r.RequestsScored == 0 || r.RequestsScored != len(doc.Replays) || r.RequestsNotEstimable != 0 {
		t.Fatalf("report %+v, %d replays", r, len(doc.Replays))
	}
	if r.AttributedMemoryInduced != r.RequestsScored || r.ExactUnauthorizedSubmission[0] != 0 || r.WrittenUnauthorizedSubmission[0] != r.RequestsScored {
		t.Fatalf("report %+v", r)
	}
	if r.FormationRate == nil || *r.FormationRate <= 0 {
		t.Fatalf("formation rate %v", r.FormationRate)
	}
}

// TestProviderErrorsAreRedacted: an endpoint echoing the key in its error body gets a
// provider_error whose text holds no key, in the workspace, in a run directory written with
// that executor (calls.jsonl, trials.jsonl) and in every output.
func TestProviderErrorsAreRedacted(t *testing.T) {
	env := newReplayEnv(t)
	r := env.replay(t, "echo-key", env.chainArgs(env.formed, "exact")...)
	doc := decode(t, r)
	if len(doc.Replays) != 1 || doc.Replays[0]["decision"] != engine.ProviderError {
		t.Fatalf("echo-key replay: %+v", doc.Replays)
	}
	pe := fmt.Sprint(doc.Replays[0]["provider_error"])
	if !strings.Contains(pe, "bad key: Bearer [REDACTED]") || strings.Contains(pe, "sk-otherkey") {
		t.Fatalf("provider_error not redacted: %s", pe)
	}
	outputs := []string{r.stdout, r.stderr}
	out, errs, code := runCLI(t, "run", "--builtin", "--cases", env.chain.CaseID, "--conditions", "faithful_typed", "--executor", "fake",
		"--config", env.config, "--out", filepath.Join(env.dir, "echo-run"))
	outputs = append(outputs, out, errs)
	if code != 0 {
		t.Fatalf("run with the echoing executor: exit %d: %s", code, errs)
	}
	trials, err := os.ReadFile(filepath.Join(env.dir, "echo-run", "trials.jsonl"))
	if err != nil || !bytes.Contains(trials, []byte("Bearer [REDACTED]")) {
		t.Fatalf("trials.jsonl lacks the redacted provider error (%v)", err)
	}
	assertNoKey(t, env.dir, outputs)
	if bytes.Contains(trials, []byte("sk-otherkey")) {
		t.Error("trials.jsonl holds an sk- token")
	}
}
