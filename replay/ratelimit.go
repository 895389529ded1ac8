package replay

import (
	"context"
	"sync"
	"time"
)

// tokenBucket bounds a rate: it holds up to burst units, refilled at perSecond. take waits
// until the bucket holds n units (or is full, for n above burst) and removes them; charge
// removes units after the fact (a reply's completion tokens), possibly below zero, which
// later takes then wait out. So over any window of t seconds at most burst + perSecond*t
// units pass, plus what a single charge overshoots.
type tokenBucket struct {
	mu        sync.Mutex
	perSecond float64
	burst     float64
	level     float64
	last      time.Time
	now       func() time.Time
}

// newPerMinute is a bucket for a per-minute limit holding at most burst units (at least
// one): requests use a burst of 1, so calls are spaced evenly and no stretch of time sees
// more than the limit's rate; tokens use one second's share, so a call's prompt is not held
// back for want of a few tokens.
func newPerMinute(limit int, burst float64, now func() time.Time) *tokenBucket {
	if limit <= 0 {
		return nil
	}
	burst = max(1, burst)
	return &tokenBucket{perSecond: float64(limit) / 60, burst: burst, level: burst, last: now(), now: now}
}

func (b *tokenBucket) refill() {
	t := b.now()
	b.level = min(b.burst, b.level+t.Sub(b.last).Seconds()*b.perSecond)
	b.last = t
}

// take waits until n units can be removed and removes them. A nil bucket is no limit.
func (b *tokenBucket) take(ctx context.Context, n float64) error {
	if b == nil {
		return nil
	}
	for {
		b.mu.Lock()
		b.refill()
		need := min(n, b.burst)
		if b.level >= need {
			b.level -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((need - b.level) / b.perSecond * float64(time.Second))
		b.mu.Unlock()
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// charge removes n units now, or returns -n when n is negative, up to the burst (nil: no
// limit).
func (b *tokenBucket) charge(n float64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.refill()
	b.level = min(b.burst, b.level-n)
	b.mu.Unlock()
}
