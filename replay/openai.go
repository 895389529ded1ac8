package replay

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"time"
)

// RetryPolicy bounds retries of one logical call: attempts on 429, 5xx and timeouts with
// exponential backoff and full jitter, or the wait the provider asks for (see retryWait).
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// DefaultRetryPolicy is four attempts, 1 s doubling up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: 30 * time.Second}
}

func (p RetryPolicy) delay(attempt int, rng *rand.Rand) time.Duration {
	d := float64(p.BaseDelay) * math.Pow(2, float64(attempt-1))
	if max := float64(p.MaxDelay); p.MaxDelay > 0 && d > max {
		d = max
	}
	// Full jitter keeps concurrent workers that failed together from retrying together.
	return time.Duration(d/2 + rng.Float64()*d/2)
}

// ModelClient calls one configured OpenAI-compatible model over plain net/http: one
// endpoint (POST {base_url}/chat/completions) is all ealscope speaks, and building the body
// here means the bytes sent are encoded from the very trees that are recorded and hashed.
// The client owns the model's limits, shared by every caller: its replicas and their
// concurrency (fleet), its requests and tokens per minute (token buckets), and the retry
// loop, so the attempts recorded are the attempts made.
type ModelClient struct {
	model    Model
	http     *http.Client
	fleet    *fleet
	requests *tokenBucket
	tokens   *tokenBucket
	retry    RetryPolicy
	now      func() time.Time
}

// NewModelClient builds a client for a config entry. httpClient may be nil.
func NewModelClient(m Model, retry RetryPolicy, httpClient *http.Client) *ModelClient {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	httpClient = withoutRedirects(httpClient)
	if retry.MaxAttempts <= 0 {
		retry.MaxAttempts = DefaultRetryPolicy().MaxAttempts
	}
	c := &ModelClient{model: m, http: httpClient, retry: retry, now: time.Now}
	// The limits read the client's clock, so a test that sets c.now sets theirs too.
	clock := func() time.Time { return c.now() }
	c.fleet = newFleet(m, retry, clock)
	c.requests = newPerMinute(m.RequestsPerMinute, 1, clock)
	c.tokens = newPerMinute(m.TokensPerMinute, float64(m.TokensPerMinute)/60, clock)
	return c
}

// Model is the config entry behind the client.
func (c *ModelClient) Model() Model { return c.model }

// Complete performs one logical call with retries. It never returns an error: a call that
// still fails carries Error ("Type: message") and stays in the record, and a call cut short
// by ctx is marked Cancelled. Each attempt waits for the model's rate limits, then takes a
// slot on a healthy replica; a failed attempt rests its replica and the next goes elsewhere
// when another is free (fleet).
func (c *ModelClient) Complete(ctx context.Context, req ChatRequest) CallRecord {
	obs := observerOf(ctx)
	defer obs.finished(c.model.Name)
	rec := CallRecord{Request: req}
	start := c.now()
	rec.TS = pyTimestamp(start)
	timeout := time.Duration(c.model.TimeoutS * float64(time.Second))
	body, err := chatBody(c.model.Model, req)
	if err != nil {
		msg := "EncodeError: cannot encode the chat request: " + err.Error()
		rec.Error = &msg
		return rec
	}
	// Under a tokens-per-minute limit a call is admitted for its prompt (counted) and its
	// max_tokens, as providers count it; chargeTokens settles the difference once the usage is
	// known.
	var estimate int
	if c.tokens != nil {
		estimate = promptTokens(req) + req.MaxTokens
	}
	var lastErr string
	avoid := -1
	for attempt := 1; attempt <= c.retry.MaxAttempts; attempt++ {
		replica, endpoint, err := c.admit(ctx, estimate, avoid)
		if err != nil {
			rec.Cancelled = true
			return rec
		}
		rec.Attempts = attempt
		res, err := c.send(ctx, endpoint, body, timeout)
		if err == nil && res.status < 400 {
			c.fleet.release(replica, false, nil)
			rr, usage, perr := decodeWire(res.body)
			if perr == nil {
				// A reply may quote the key it was sent (or any other credential):
				// nothing downstream (run files, workspace, output) sees the raw text.
				usage, rec.Redactions = redactResponse(rr, usage, c.model.APIKey())
				rec.Response, rec.Usage = rr, accountedUsage(req, rr, usage)
				c.chargeTokens(rec.Usage, estimate)
				rec.LatencyMS = c.now().Sub(start).Milliseconds()
				return rec
			}
			lastErr = perr.Error()
			break
		}
		if ctx.Err() != nil {
			c.fleet.release(replica, false, nil)
			rec.Cancelled = true
			return rec
		}
		var msg string
		var retryable bool
		var header http.Header
		if err != nil {
			msg, retryable = classifyError(err, c.model.TimeoutS)
		} else {
			// Secrets are redacted before statusError shortens the body, so a cut
			// cannot leave half a key behind.
			msg, retryable = statusError(res.status, []byte(RedactSecrets(string(res.body), c.model.APIKey()))), retryableStatus(res.status)
			header = res.header
		}
		rest := c.fleet.release(replica, retryable, header)
		lastErr = msg
		// The JSON log handler escapes the provider's message; the key is never in it.
		slog.Warn("model call failed", "model", c.model.Name, "replica", replica, "attempt", attempt, "of", c.retry.MaxAttempts, "retryable", retryable, "error", msg)
		if !retryable || attempt == c.retry.MaxAttempts {
			break
		}
		obs.retry(RetryEvent{Model: c.model.Name, Attempt: attempt, MaxAttempts: c.retry.MaxAttempts, Wait: rest,
			Reason: RedactSecrets(msg, c.model.APIKey())})
		avoid = replica
	}
	lastErr = RedactSecrets(lastErr, c.model.APIKey())
	rec.Error = &lastErr
	rec.LatencyMS = c.now().Sub(start).Milliseconds()
	return rec
}

// admit waits for the model's rate limits (one request, the prompt's estimated tokens) and a
// replica slot; the error is ctx's.
func (c *ModelClient) admit(ctx context.Context, estimate, avoid int) (int, string, error) {
	if err := c.requests.take(ctx, 1); err != nil {
		return -1, "", err
	}
	if err := c.tokens.take(ctx, float64(estimate)); err != nil {
		return -1, "", err
	}
	return c.fleet.acquire(ctx, avoid)
}

// chargeTokens settles the tokens-per-minute bucket once the usage is known: the admission
// took the estimate; the call cost its prompt and completion tokens (a refund when less).
func (c *ModelClient) chargeTokens(usage any, estimate int) {
	if c.tokens == nil {
		return
	}
	p, comp, ok := usageCounts(usage)
	if ok {
		c.tokens.charge(float64(p + comp - estimate))
	}
}

// httpResult is one answered attempt: status, headers and the whole body.
type httpResult struct {
	status int
	header http.Header
	body   []byte
}

// send makes one attempt. The timeout bounds the whole attempt, connecting through reading
// the last byte of the body, as the provider's "Request timed out" does.
func (c *ModelClient) send(ctx context.Context, endpoint string, body []byte, timeout time.Duration) (httpResult, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return httpResult{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	// The key is read from the configured variable for every attempt and goes only into this
	// header: never into the URL, the record or an error message.
	if key := c.model.APIKey(); key != "" {
		hreq.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return httpResult{}, err
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		return httpResult{}, redirectFault(resp, c.model.APIKey())
	}
	// The body is read under the same deadline as the request, and never past
	// MaxResponseBytes: an endpoint streaming without end meets one or the other.
	raw, err := readCapped(resp.Body, MaxResponseBytes)
	if err != nil {
		// A body cut off by the timeout is a timeout, not a broken connection.
		if _, guard := asProviderFault(err); !guard && ctx.Err() != nil {
			err = ctx.Err()
		}
		return httpResult{}, err
	}
	return httpResult{status: resp.StatusCode, header: resp.Header, body: raw}, nil
}

// retryWait is how long a replica rests after its attempt-th failure in a row (fleet.restFor).
func (c *ModelClient) retryWait(attempt int, h http.Header) time.Duration {
	c.fleet.mu.Lock()
	defer c.fleet.mu.Unlock()
	return c.fleet.restFor(attempt, h)
}

func sortStrings(s []string) { sort.Strings(s) }
