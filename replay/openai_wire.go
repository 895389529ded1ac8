package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// chatBody is the exact request body of a chat completion. Messages, tools and tool_choice
// are written from the same trees that calls.jsonl records and model_contexts.jsonl hashes,
// through the Python-compatible encoder, so what is sent, logged and hashed cannot drift
// apart. Temperature is always sent (0 included) and written as Python writes a float.
func chatBody(model string, req ChatRequest) ([]byte, error) {
	body := object{{"model", model}, {"messages", messagesObjects(req.Messages)}}
	if req.Tools != nil {
		body = append(body, kv{"tools", req.Tools})
	}
	if req.ToolChoice != nil {
		body = append(body, kv{"tool_choice", req.ToolChoice})
	}
	body = append(body,
		kv{"temperature", pyjson.Float(req.Temperature)},
		kv{"seed", req.Seed},
		kv{"max_tokens", req.MaxTokens},
	)
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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

func decodeWire(raw []byte) (*RecordedResponse, any, error) {
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
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

func retryableStatus(code int) bool { return code == 429 || code >= 500 }

// maxErrorBody bounds the provider text kept in an error record.
const maxErrorBody = 500

// statusError is a failed status as "Type: Error code: N - body". The body is the raw
// "error" member when the provider sent the OpenAI error envelope, else the whole body
// (vLLM-style {"object": "error", ...}, a proxy's text page), else the status text.
func statusError(code int, raw []byte) string {
	body := strings.TrimSpace(string(raw))
	var envelope map[string]json.RawMessage
	if json.Unmarshal(raw, &envelope) == nil {
		if inner, ok := envelope["error"]; ok {
			body = strings.TrimSpace(string(inner))
		}
	}
	if body == "" {
		body = http.StatusText(code)
	}
	if len(body) > maxErrorBody {
		cut := maxErrorBody
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + "…"
	}
	return fmt.Sprintf("%s: Error code: %d - %s", statusClass(code), code, body)
}

// classifyError maps an attempt that got no answer to "Type: message" and whether to retry it.
func classifyError(err error, timeoutS float64) (string, bool) {
	if msg, ok := asProviderFault(err); ok {
		return msg, false
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return fmt.Sprintf("APITimeoutError: Request timed out after %gs.", timeoutS), true
	}
	return "APIConnectionError: Connection error: " + err.Error(), false
}

// maxRetryAfter is the longest provider-requested wait that is honoured as given; a longer
// one (or none) falls back to the policy's backoff, as the Python openai client does.
const maxRetryAfter = 60 * time.Second

// retryAfter reads the wait a 429 or 5xx asks for: retry-after-ms (OpenAI's, milliseconds),
// else Retry-After in seconds or as an HTTP date. ok is false when there is none or it is
// not in (0, maxRetryAfter].
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	var d time.Duration
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		f, err := strconv.ParseFloat(ms, 64)
		if err != nil {
			return 0, false
		}
		d = time.Duration(f * float64(time.Millisecond))
	} else if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(f * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		} else {
			return 0, false
		}
	} else {
		return 0, false
	}
	if d <= 0 || d > maxRetryAfter {
		return 0, false
	}
	return d, true
}
