package replay

import (
	"context"
	"time"
)

// CallObserver hears model calls as they happen, for progress output: a run's progress counts
// trials in plan order, which stands still while one slow call holds the order, and a retry
// waits seconds in silence. Both hooks may be nil; they are called from the workers'
// goroutines, so they must be safe for concurrent use. Observing changes nothing recorded.
type CallObserver struct {
	// Finished is called once per logical call when it ends (answered, failed or cancelled).
	Finished func(model string)
	// Retry is called when an attempt failed and another will follow.
	Retry func(RetryEvent)
}

// RetryEvent is one failed attempt that will be retried.
type RetryEvent struct {
	Model string
	// Attempt is the attempt that failed, of MaxAttempts.
	Attempt, MaxAttempts int
	// Wait is how long the replica rests before it is tried again (the provider's
	// Retry-After, else the policy's backoff); another replica may take the call sooner.
	Wait time.Duration
	// Reason is the failure, "Type: message" as recorded (secrets redacted).
	Reason string
}

type observerKey struct{}

// WithCallObserver returns ctx carrying o: every model call made under it reports to o.
func WithCallObserver(ctx context.Context, o *CallObserver) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerOf(ctx context.Context) *CallObserver {
	o, _ := ctx.Value(observerKey{}).(*CallObserver)
	return o
}

func (o *CallObserver) finished(model string) {
	if o != nil && o.Finished != nil {
		o.Finished(model)
	}
}

func (o *CallObserver) retry(e RetryEvent) {
	if o != nil && o.Retry != nil {
		o.Retry(e)
	}
}
