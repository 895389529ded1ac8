package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// RetryPolicy bounds retries of one logical call: attempts on 429, 5xx and timeouts with
// exponential backoff and full jitter.
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

// ModelClient calls one configured OpenAI-compatible model. It owns the model's concurrency
// limit (a semaphore shared by every caller) and the retry loop; openai-go's own retries are
// disabled so that the attempts recorded are the attempts made.
type ModelClient struct {
	model  Model
	http   *http.Client
	sem    chan struct{}
	retry  RetryPolicy
	jitter *rand.Rand
	now    func() time.Time
}

// NewModelClient builds a client for a config entry. httpClient may be nil.
func NewModelClient(m Model, retry RetryPolicy, httpClient *http.Client) *ModelClient {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	if retry.MaxAttempts <= 0 {
		retry.MaxAttempts = DefaultRetryPolicy().MaxAttempts
	}
	conc := m.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	return &ModelClient{
		model: m, http: httpClient, sem: make(chan struct{}, conc), retry: retry,
		jitter: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
		now:    time.Now,
	}
}

// Model is the config entry behind the client.
func (c *ModelClient) Model() Model { return c.model }

func (c *ModelClient) client() openai.Client {
	// The key is read from the environment for every call and handed straight to the
	// transport; WithAPIKey("") also overrides an ambient OPENAI_API_KEY, so only the
	// configured variable is ever used.
	return openai.NewClient(
		option.WithBaseURL(c.model.BaseURL),
		option.WithAPIKey(c.model.APIKey()),
		option.WithHTTPClient(c.http),
		option.WithMaxRetries(0),
	)
}

// wireResponse is the part of a chat completion ealscope reads, decoded from the raw body so
// that a null content stays null and arguments stay the exact string the provider sent.
type wireResponse struct {
	Model   *string `json:"model"`
	Choices []struct {
		FinishReason *string `json:"finish_reason"`
		Message      struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// Complete performs one logical call with retries. It never returns an error: a call that
// still fails carries Error ("Type: message") and stays in the record, and a call cut short
// by ctx is marked Cancelled.
func (c *ModelClient) Complete(ctx context.Context, req ChatRequest) CallRecord {
	rec := CallRecord{Request: req}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		rec.Cancelled = true
		return rec
	}
	defer func() { <-c.sem }()
	start := c.now()
	rec.TS = pyTimestamp(start)
	timeout := time.Duration(c.model.TimeoutS * float64(time.Second))
	cl := c.client()
	params := openai.ChatCompletionNewParams{
		Model:       c.model.Model,
		Temperature: openai.Float(req.Temperature),
		Seed:        openai.Int(req.Seed),
		MaxTokens:   openai.Int(int64(req.MaxTokens)),
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	// Tools and tool_choice go in as the exact trees that are recorded and hashed, so the
	// body sent and the context logged cannot drift apart.
	opts := []option.RequestOption{option.WithRequestTimeout(timeout)}
	if req.Tools != nil {
		opts = append(opts, option.WithJSONSet("tools", req.Tools))
	}
	if req.ToolChoice != nil {
		opts = append(opts, option.WithJSONSet("tool_choice", req.ToolChoice))
	}
	var lastErr string
	for attempt := 1; attempt <= c.retry.MaxAttempts; attempt++ {
		rec.Attempts = attempt
		resp, err := cl.Chat.Completions.New(ctx, params, opts...)
		if err == nil {
			rr, usage, perr := decodeWire(resp.RawJSON())
			if perr == nil {
				rec.Response, rec.Usage = rr, usage
				rec.LatencyMS = c.now().Sub(start).Milliseconds()
				return rec
			}
			lastErr = perr.Error()
			break
		}
		if ctx.Err() != nil {
			rec.Cancelled = true
			return rec
		}
		msg, retryable := classifyError(err, c.model.TimeoutS, c.model.APIKey())
		lastErr = msg
		if !retryable || attempt == c.retry.MaxAttempts {
			break
		}
		t := time.NewTimer(c.retry.delay(attempt, c.jitter))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			rec.Cancelled = true
			return rec
		}
	}
	lastErr = RedactSecrets(lastErr, c.model.APIKey())
	rec.Error = &lastErr
	rec.LatencyMS = c.now().Sub(start).Milliseconds()
	return rec
}

func decodeWire(raw string) (*RecordedResponse, any, error) {
	var w wireResponse
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		return nil, nil, fmt.Errorf("ProviderError: unreadable chat completion: %v", err)
	}
	if len(w.Choices) == 0 {
		return nil, nil, errors.New("ProviderError: chat completion has no choices")
	}
	ch := w.Choices[0]
	rr := &RecordedResponse{Content: ch.Message.Content, FinishReason: ch.FinishReason, Model: w.Model}
	for _, tc := range ch.Message.ToolCalls {
		args := string(tc.Function.Arguments)
		// Arguments are normally a JSON string holding JSON; some servers send the object
		// itself, which is kept as its JSON text.
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = s
		}
		typ := tc.Type
		if typ == "" {
			typ = "function"
		}
		rr.ToolCalls = append(rr.ToolCalls, RecordedToolCall{ID: tc.ID, Type: typ, Name: tc.Function.Name, Arguments: args})
	}
	var usage any
	if len(w.Usage) > 0 && string(w.Usage) != "null" {
		if tree, err := pyjson.DecodeTree(w.Usage); err == nil {
			usage = tree
		}
	}
	return rr, usage, nil
}

// statusClass is the Python openai exception class for an HTTP status, so provider errors
// read as EAL-Bench records them ("RateLimitError: Error code: 429 - {...}").
func statusClass(code int) string {
	switch code {
	case 400:
		return "BadRequestError"
	case 401:
		return "AuthenticationError"
	case 403:
		return "PermissionDeniedError"
	case 404:
		return "NotFoundError"
	case 409:
		return "ConflictError"
	case 422:
		return "UnprocessableEntityError"
	case 429:
		return "RateLimitError"
	}
	if code >= 500 {
		return "InternalServerError"
	}
	return "APIStatusError"
}

// classifyError maps a failed attempt to "Type: message" and whether to retry it. Secrets
// in the body are redacted before it is shortened, so a cut cannot leave half a key.
func classifyError(err error, timeoutS float64, key string) (string, bool) {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		body := RedactSecrets(strings.TrimSpace(apiErr.RawJSON()), key)
		if body == "" {
			body = http.StatusText(apiErr.StatusCode)
		}
		if len(body) > 500 {
			body = body[:500] + "…"
		}
		msg := fmt.Sprintf("%s: Error code: %d - %s", statusClass(apiErr.StatusCode), apiErr.StatusCode, body)
		return msg, apiErr.StatusCode == 429 || apiErr.StatusCode >= 500
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return fmt.Sprintf("APITimeoutError: Request timed out after %gs.", timeoutS), true
	}
	return "APIConnectionError: Connection error: " + RedactSecrets(err.Error(), key), false
}

func sortStrings(s []string) { sort.Strings(s) }
