package replay

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// fleet spreads one model's calls over its replicas (docs/RELIABILITY.md, "Model fleets").
// Each attempt takes a slot on a healthy replica: one that is not resting and has a free
// slot under its own concurrency limit, the least loaded first (ties in turn). A replica whose
// attempt failed in a way worth retrying rests: for the Retry-After it sent, else for a
// jittered backoff that doubles with each failure in a row; the call's next attempt goes to
// another replica when one is free. A success ends the replica's run of failures.
//
// With one replica this is the single-endpoint client as it always was: the model's
// concurrency bounds the calls in flight and a failed attempt waits out its backoff (or
// Retry-After) before the next.
type fleet struct {
	mu       sync.Mutex
	replicas []*replicaState
	retry    RetryPolicy
	jitter   *rand.Rand
	now      func() time.Time
	// changed is closed (and replaced) whenever a slot frees or a rest is set, waking every
	// caller waiting for a replica.
	changed chan struct{}
	cursor  int
}

type replicaState struct {
	endpoint  string
	limit     int
	inFlight  int
	restUntil time.Time
	// failures counts the attempts that failed in a row; stats are for tests and reports.
	failures int
	stats    ReplicaStats
}

// ReplicaStats are what one replica of a model client has done.
type ReplicaStats struct {
	BaseURL  string
	Attempts int
	Failures int
	// Rests counts the times it was rested after a failure.
	Rests int
}

func newFleet(m Model, retry RetryPolicy, now func() time.Time) *fleet {
	reps := m.Replicas
	if len(reps) == 0 {
		reps = []Replica{{BaseURL: m.BaseURL, Concurrency: m.Concurrency}}
	}
	f := &fleet{retry: retry, now: now, changed: make(chan struct{}),
		jitter: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15))}
	for _, r := range reps {
		limit := r.Concurrency
		if limit <= 0 {
			limit = DefaultConcurrency
		}
		f.replicas = append(f.replicas, &replicaState{endpoint: strings.TrimRight(r.BaseURL, "/") + "/chat/completions", limit: limit,
			stats: ReplicaStats{BaseURL: r.BaseURL}})
	}
	return f
}

// acquire takes a slot on a healthy replica, preferring one other than avoid (the replica
// the call's previous attempt failed on; -1 for none), and waits while there is none. It
// returns the replica's index and endpoint.
func (f *fleet) acquire(ctx context.Context, avoid int) (int, string, error) {
	for {
		f.mu.Lock()
		now := f.now()
		best := f.pick(now, avoid)
		if best < 0 && avoid >= 0 {
			best = f.pick(now, -1)
		}
		if best >= 0 {
			r := f.replicas[best]
			r.inFlight++
			r.stats.Attempts++
			f.cursor = best + 1
			f.mu.Unlock()
			return best, r.endpoint, nil
		}
		// Wait for a slot to free or the earliest rest (of a replica with a free slot) to end.
		var wake time.Duration = -1
		for _, r := range f.replicas {
			if r.inFlight < r.limit && r.restUntil.After(now) {
				if d := r.restUntil.Sub(now); wake < 0 || d < wake {
					wake = d
				}
			}
		}
		changed := f.changed
		f.mu.Unlock()
		var timer *time.Timer
		var fired <-chan time.Time
		if wake >= 0 {
			timer = time.NewTimer(wake)
			fired = timer.C
		}
		select {
		case <-changed:
		case <-fired:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return -1, "", ctx.Err()
		}
	}
}

// pick is the healthy replica with a free slot and the lowest load (in flight over its
// limit), ties broken in turn from the cursor; -1 when none. f.mu is held.
func (f *fleet) pick(now time.Time, avoid int) int {
	best, n := -1, len(f.replicas)
	for k := range n {
		i := (f.cursor + k) % n
		r := f.replicas[i]
		if i == avoid || r.inFlight >= r.limit || r.restUntil.After(now) {
			continue
		}
		if best < 0 || r.inFlight*f.replicas[best].limit < f.replicas[best].inFlight*r.limit {
			best = i
		}
	}
	return best
}

// restFor is how long a replica rests after its failures-th failure in a row: the
// provider's Retry-After when it names a reasonable wait, else the policy's jittered backoff.
// f.mu is held.
func (f *fleet) restFor(failures int, h http.Header) time.Duration {
	if d, ok := retryAfter(h, f.now()); ok {
		return d
	}
	return f.retry.delay(failures, f.jitter)
}

// release frees the slot taken on replica i. failed: the attempt failed in a way worth
// retrying, so the replica rests (restFor, with the failed response's headers h); the rest is
// returned (0 when it does not rest).
func (f *fleet) release(i int, failed bool, h http.Header) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.replicas[i]
	r.inFlight--
	var rest time.Duration
	if failed {
		r.failures++
		r.stats.Failures++
		rest = f.restFor(r.failures, h)
		if until := f.now().Add(rest); until.After(r.restUntil) {
			r.restUntil = until
		}
		r.stats.Rests++
	} else {
		r.failures = 0
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return rest
}

// ReplicaStats reports each replica's attempts, failures and rests so far.
func (c *ModelClient) ReplicaStats() []ReplicaStats {
	c.fleet.mu.Lock()
	defer c.fleet.mu.Unlock()
	out := make([]ReplicaStats, len(c.fleet.replicas))
	for i, r := range c.fleet.replicas {
		out[i] = r.stats
	}
	return out
}
