package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/runs"
)

// replicaServer is one replica of a served model on loopback: it answers chat completions
// after delay, or fails every request with status when status is set, and logs what it saw.
type replicaServer struct {
	*httptest.Server
	status int
	delay  time.Duration
	// noUsage leaves the usage out of replies.
	noUsage bool
	mu      sync.Mutex
	seen    []replicaHit
}

type replicaHit struct {
	seed int64
	at   time.Time
	ok   bool
}

// replicaUsage is the usage a replica reports for a request: a function of its seed, so a
// test can tell which call each count belongs to.
func replicaUsage(seed int64) (prompt, completion int64) { return 100 + seed, 7 + seed%5 }

func newReplicaServer(t testing.TB, status int, delay time.Duration) *replicaServer {
	s := &replicaServer{status: status, delay: delay}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *replicaServer) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Seed int64 `json:"seed"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, replicaHit{seed: req.Seed, at: time.Now(), ok: s.status == 0})
	s.mu.Unlock()
	if s.status != 0 {
		http.Error(w, `{"error": {"message": "replica down"}}`, s.status)
		return
	}
	time.Sleep(s.delay)
	p, c := replicaUsage(req.Seed)
	reply := map[string]any{"model": "m", "choices": []any{map[string]any{"finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": fmt.Sprintf("answer %d", req.Seed)}}}}
	if !s.noUsage {
		reply["usage"] = map[string]any{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

func (s *replicaServer) hits() []replicaHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

func fleetModel(concurrency int, servers ...*replicaServer) Model {
	m := Model{Name: "fleet", Model: "m", Temperature: 1, MaxTokens: 64, Concurrency: concurrency, TimeoutS: 5}
	for _, s := range servers {
		m.Replicas = append(m.Replicas, Replica{BaseURL: s.URL + "/v1", Concurrency: concurrency})
	}
	m.BaseURL = m.Replicas[0].BaseURL
	return m
}

// callAll makes n calls at once (seed i for call i) and returns their records by seed.
func callAll(c *ModelClient, n int) []CallRecord {
	recs := make([]CallRecord, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			recs[i] = c.Complete(context.Background(), ChatRequest{Messages: []engine.ChatMessage{{Role: "user", Content: "decide"}},
				Seed: int64(i), MaxTokens: 64, Temperature: 1})
		})
	}
	wg.Wait()
	return recs
}

// TestFleetSpreadsCallsOverHealthyReplicas: three replicas, one failing every request, one
// slow, one healthy, under a requests-per-minute limit. Every call completes, each answered
// exactly once, with the usage its replica reported; the failing replica is rested after
// each failure, so it sees few attempts; and the requests the replicas received never came
// faster than the limit.
func TestFleetSpreadsCallsOverHealthyReplicas(t *testing.T) {
	failing := newReplicaServer(t, http.StatusInternalServerError, 0)
	slow := newReplicaServer(t, 0, 40*time.Millisecond)
	healthy := newReplicaServer(t, 0, 0)
	m := fleetModel(4, failing, slow, healthy)
	const rpm, n = 1500, 60 // 25 requests a second: the test takes about 2.5 s
	m.RequestsPerMinute = rpm
	c := NewModelClient(m, RetryPolicy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second}, nil)
	recs := callAll(c, n)

	for i, r := range recs {
		if r.Cancelled || r.Error != nil || r.Response == nil || *r.Response.Content != fmt.Sprintf("answer %d", i) {
			t.Fatalf("call %d did not complete with its own answer: %+v", i, r)
		}
		p, comp, ok := usageCounts(r.Usage)
		wantP, wantC := replicaUsage(int64(i))
		if !ok || int64(p) != wantP || int64(comp) != wantC {
			t.Errorf("call %d: usage %v, the replica reported %d + %d", i, r.Usage, wantP, wantC)
		}
	}
	answered := map[int64]int{}
	var all []time.Time
	for _, s := range []*replicaServer{failing, slow, healthy} {
		for _, h := range s.hits() {
			all = append(all, h.at)
			if h.ok {
				answered[h.seed]++
			}
		}
	}
	for i := range n {
		if answered[int64(i)] != 1 {
			t.Errorf("call %d was answered %d times", i, answered[int64(i)])
		}
	}
	stats := c.ReplicaStats()
	f := stats[0]
	if f.Failures == 0 || f.Rests != f.Failures || f.Attempts != len(failing.hits()) {
		t.Errorf("failing replica: %+v (server saw %d)", f, len(failing.hits()))
	}
	// Unrested, the failing replica would take about a third of the attempts; rested with a
	// doubling backoff (50-100 ms, then 100-200 ms, ...) it sees a handful.
	if f.Attempts > n/6 {
		t.Errorf("the failing replica took %d of the attempts: it is not being rested (%+v)", f.Attempts, stats)
	}
	if len(slow.hits()) == 0 || len(healthy.hits()) == 0 {
		t.Errorf("calls were not spread: %+v", stats)
	}
	slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
	span := all[len(all)-1].Sub(all[0])
	measured := float64(len(all)-1) / span.Minutes()
	t.Logf("%d requests in %v: %.0f per minute (limit %d); replicas %+v", len(all), span, measured, rpm, stats)
	if measured > rpm*1.02 {
		t.Errorf("measured %.0f requests per minute, over the limit of %d", measured, rpm)
	}
}

// TestFleetRetryAfterRestsOnlyThatReplica: a replica answering 429 with Retry-After rests
// for that long, while the other keeps serving; the call that hit it is retried there.
func TestFleetRetryAfterRestsOnlyThatReplica(t *testing.T) {
	limited := newReplicaServer(t, http.StatusTooManyRequests, 0)
	limited.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limited.mu.Lock()
		limited.seen = append(limited.seen, replicaHit{at: time.Now()})
		limited.mu.Unlock()
		w.Header().Set("Retry-After", "30")
		http.Error(w, `{"error": {"message": "slow down"}}`, http.StatusTooManyRequests)
	})
	healthy := newReplicaServer(t, 0, 0)
	c := NewModelClient(fleetModel(2, limited, healthy), RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}, nil)
	start := time.Now()
	recs := callAll(c, 20)
	for i, r := range recs {
		if r.Error != nil || r.Cancelled {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
	// Without Retry-After its backoff is a millisecond: the 429 replica would be tried
	// again and again. Honoured, it is tried at most once per slot before its 30 s rest.
	if n := len(limited.hits()); n == 0 || n > 2 {
		t.Errorf("the rate-limited replica saw %d requests; want 1 or 2 (then resting 30 s)", n)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the calls waited out the other replica's Retry-After")
	}
}

// TestTokensPerMinuteLimit: the tokens the replica reports never pass faster than the
// model's tokens-per-minute limit allows: one second's share at once, then its rate, plus
// what the calls still in flight used beyond what they were admitted for (each is admitted
// for its counted prompt and max_tokens; this replica reports more prompt tokens than that).
func TestTokensPerMinuteLimit(t *testing.T) {
	healthy := newReplicaServer(t, 0, 0)
	const slots = 8
	m := fleetModel(slots, healthy)
	const tpm = 60000 // 1,000 tokens a second; each call reports about 110-130: about 2.5 s
	m.TokensPerMinute = tpm
	c := NewModelClient(m, fastRetry, nil)
	const n = 20
	recs := callAll(c, n)
	var total int
	for _, r := range recs {
		p, comp, ok := usageCounts(r.Usage)
		if !ok {
			t.Fatalf("no usage: %+v", r)
		}
		total += p + comp
	}
	hits := healthy.hits()
	slices.SortFunc(hits, func(a, b replicaHit) int { return a.at.Compare(b.at) })
	span := hits[len(hits)-1].at.Sub(hits[0].at)
	maxP, maxC := replicaUsage(n - 1)
	allowed := tpm/60 + tpm/60*span.Seconds() + slots*float64(maxP+maxC)
	t.Logf("%d tokens over %v (limit %d per minute)", total, span, tpm)
	if float64(total) > allowed {
		t.Errorf("%d tokens passed in %v; the limit allows %.0f", total, span, allowed)
	}
}

// TestCountedTokensWhenNoUsage: a replica that reports no usage gets its call's tokens
// counted with the reference tokenizer, marked as counted under the key the workspace reads.
func TestCountedTokensWhenNoUsage(t *testing.T) {
	s := newReplicaServer(t, 0, 0)
	s.noUsage = true
	c := NewModelClient(fleetModel(1, s), fastRetry, nil)
	rec := callAll(c, 1)[0]
	u, ok := rec.Usage.(map[string]any)
	if !ok || u[runs.CountedMarker] != reftoken.Reference().Name() {
		t.Fatalf("usage %v: want counted tokens marked %q", rec.Usage, runs.CountedMarker)
	}
	p, comp, _ := usageCounts(u)
	tc := reftoken.Reference()
	if p != tc.Count("user")+tc.Count("decide") || comp != tc.Count("answer 0") {
		t.Errorf("counted %d + %d tokens", p, comp)
	}
}

// BenchmarkFleetThroughput: 1,000 calls over three replicas of 5 ms each taking 4 calls at
// once, with 32 callers; ideal is 1,000 x 5 ms / 12 slots = 417 ms. ideal_ratio is the time
// taken over the ideal.
func BenchmarkFleetThroughput(b *testing.B) {
	const calls, latency, slots = 1000, 5 * time.Millisecond, 4
	servers := []*replicaServer{newReplicaServer(b, 0, latency), newReplicaServer(b, 0, latency), newReplicaServer(b, 0, latency)}
	ideal := time.Duration(calls) * latency / time.Duration(slots*len(servers))
	for b.Loop() {
		c := NewModelClient(fleetModel(slots, servers...), fastRetry, nil)
		start := time.Now()
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for i := range jobs {
					if rec := c.Complete(context.Background(), ChatRequest{Messages: []engine.ChatMessage{{Role: "user", Content: "x"}}, Seed: int64(i)}); rec.Error != nil {
						b.Error(*rec.Error)
					}
				}
			})
		}
		for i := range calls {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		b.ReportMetric(float64(time.Since(start))/float64(ideal), "ideal_ratio")
	}
}
