package replay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// BenchmarkRerun1000 makes 1,000 re-runs (one probe, 1,000 repetitions) against a loopback
// chat-completions server that answers every call after 100 ms, at concurrency 32, storing
// each arm in the workspace as it finishes (one transaction per arm, as the command does).
// The ideal wall time is 1000/32 x 100 ms = 3.125 s; x_ideal reports the ratio (target
// <= 1.25).
//
//	go test ./replay -run '^$' -bench Rerun1000 -benchtime 1x
func BenchmarkRerun1000(b *testing.B) {
	const calls, conc, delay = 1000, 32, 100 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server's simulated latency: what the benchmark measures against.
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"bench","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"decline_order","arguments":"{\"reason\": \"no\"}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	dir := b.TempDir()
	st := replay.Settings{Domain: "procurement", Corpus: replay.BuiltinCorpus, Conditions: []string{"incremental_typed"}, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: 1, FaultRate: 0.35, Faults: replay.FaultFamilies}
	opts, err := replay.Prepare(st, &replay.Config{}, replay.DefaultRetryPolicy(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	opts.Cases = opts.Cases[:1]
	opts.Out, opts.Concurrency = filepath.Join(dir, "run"), 4
	if _, err := replay.Run(ctx, opts); err != nil {
		b.Fatal(err)
	}
	store, err := runs.Open(filepath.Join(dir, "ws.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rep, err := store.Import(ctx, []string{opts.Out}, runs.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	chains, err := store.Chains(ctx, runs.ChainFilter{RunID: rep.Results[0].RunID})
	if err != nil || len(chains) != 1 {
		b.Fatalf("%v, %d chains", err, len(chains))
	}
	src, err := store.RerunSource(ctx, chains[0].Key, -1)
	if err != nil {
		b.Fatal(err)
	}
	mem, err := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	if err != nil {
		b.Fatal(err)
	}
	model := replay.Model{Name: "bench", BaseURL: srv.URL + "/v1", Model: "bench", Temperature: 1, MaxTokens: 64, Concurrency: conc, TimeoutS: 30}
	ex := replay.NewModelExecutor(src.Domain, replay.NewModelClient(model, replay.DefaultRetryPolicy(), nil))
	save := func(ctx context.Context, r replay.RerunResult) error {
		return store.SaveReplay(ctx, runs.ReplayInput{Chain: src.Chain.Key, WrittenMemoryID: src.MemoryID, Arm: r.Arm})
	}
	ideal := delay * calls / conc // 3.125 s
	var worst float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spec := replay.RerunSpec{Domain: src.Domain, Case: src.Case, Block: src.Block, Memory: mem, Probes: []replay.RerunProbe{{Probe: src.Case.Probes[0]}},
			Executor: ex, Runs: calls, Seed: int64(i), Workers: conc}
		start := time.Now()
		got, _, err := replay.Rerun(ctx, spec, save)
		wall := time.Since(start)
		if err != nil || len(got) != calls {
			b.Fatalf("%v, %d arms", err, len(got))
		}
		for _, r := range got {
			if r.Outcome.Decision != "decline" {
				b.Fatalf("decision %s", r.Outcome.Decision)
			}
		}
		worst = max(worst, wall.Seconds())
	}
	b.ReportMetric(worst, "wall_s")
	b.ReportMetric(worst/ideal.Seconds(), "x_ideal")
}
