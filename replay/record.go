package replay

import (
	"bytes"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ChatRequest is one chat-completions request as ealscope sends and records it.
type ChatRequest struct {
	Messages []engine.ChatMessage
	// Tools are OpenAI function tools as JSON trees, in the order sent.
	Tools []any
	// ToolChoice is "auto" or a forced-function object.
	ToolChoice  any
	Temperature float64
	Seed        int64
	MaxTokens   int
	// RequiredCapabilities are recorded (sorted) the way EAL-Bench's client logs them.
	RequiredCapabilities []string
}

// RecordedToolCall is one tool call as the provider returned it (arguments as the raw string).
type RecordedToolCall struct {
	ID        string
	Type      string
	Name      string
	Arguments string
}

// RecordedResponse is the response part of a calls.jsonl row.
type RecordedResponse struct {
	Content      *string
	ToolCalls    []RecordedToolCall
	FinishReason *string
	Model        *string
}

// CallRecord is everything a calls.jsonl row holds about one call besides its identity.
type CallRecord struct {
	TS        string
	Request   ChatRequest
	Response  *RecordedResponse
	Usage     any
	LatencyMS int64
	Attempts  int
	// Error is "Type: message" when the call finally failed.
	Error *string
	// Redactions are the reply's fields from which credentials were removed.
	Redactions []engine.Redaction
	// Cancelled marks a call cut short by the run's own cancellation: it is not a result and
	// is neither recorded nor scored (a resumed run makes it again).
	Cancelled bool
}

// EngineResponse converts the recorded response to the scorer's input.
func (r CallRecord) EngineResponse() engine.Response {
	if r.Error != nil {
		return engine.Response{ProviderError: *r.Error}
	}
	if r.Response == nil {
		return engine.Response{ProviderError: "ProviderError: empty response"}
	}
	out := engine.Response{FinishReason: r.Response.FinishReason, Model: r.Response.Model, Redactions: r.Redactions}
	if r.Response.Content != nil {
		out.Text = *r.Response.Content
	}
	for _, tc := range r.Response.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, engine.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	return out
}

// pyTimestamp is Python's datetime.isoformat() of an aware UTC instant, as EAL-Bench's call
// log writes ts ("2026-08-21T08:12:01.123456+00:00"; no fraction when it is zero).
func pyTimestamp(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05") + "+00:00"
	}
	return t.Format("2006-01-02T15:04:05.000000") + "+00:00"
}

// kv and object give an insertion-ordered JSON object: calls.jsonl is the one artifact
// EAL-Bench writes with json.dumps(record) unsorted, so its keys keep their written order.
type kv struct {
	k string
	v any
}

type object []kv

// encodeOrdered writes v like Python's json.dumps(v, ensure_ascii=False): objects built
// with `object` keep their order; any other tree is delegated to the Python-compatible
// encoder (which sorts the keys of maps it meets, harmless for those nested values).
func encodeOrdered(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case object:
		if len(t) == 0 {
			buf.WriteString("{}")
			return nil
		}
		buf.WriteByte('{')
		for i, e := range t {
			if i > 0 {
				buf.WriteString(", ")
			}
			key, err := pyjson.DumpPy(e.k, pyjson.Row)
			if err != nil {
				return err
			}
			buf.Write(key)
			buf.WriteString(": ")
			if err := encodeOrdered(buf, e.v); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []object:
		buf.WriteByte('[')
		for i, o := range t {
			if i > 0 {
				buf.WriteString(", ")
			}
			if err := encodeOrdered(buf, o); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		b, err := pyjson.DumpPy(v, pyjson.Row)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func messagesObjects(msgs []engine.ChatMessage) []object {
	out := make([]object, len(msgs))
	for i, m := range msgs {
		out[i] = object{{"role", m.Role}, {"content", m.Content}}
	}
	return out
}

// requestParams is request.params: the task parameters plus tools and tool_choice.
func requestParams(r ChatRequest) object {
	return object{
		{"tools", r.Tools}, {"tool_choice", r.ToolChoice}, {"temperature", r.Temperature},
		{"seed", r.Seed}, {"max_tokens", r.MaxTokens},
	}
}

// stringTrees is l as a JSON tree list; a nil l is [] (unlike pyjson.StringList, whose nil
// is null), as every list these records write is.
func stringTrees(l []string) []any { return pyjson.ListOf(l, func(s string) any { return s }) }

// CallLine is one calls.jsonl line (newline included), keys in EAL-Bench's LLM._log order.
func CallLine(callID, task string, prov rundir.ModelProvenance, rec CallRecord) ([]byte, error) {
	caps := append([]string(nil), rec.Request.RequiredCapabilities...)
	sortStrings(caps)
	capsTree := stringTrees(caps)
	var response any
	var responseModel any
	if rec.Response != nil {
		var toolCalls any
		if len(rec.Response.ToolCalls) > 0 {
			calls := make([]object, len(rec.Response.ToolCalls))
			for i, tc := range rec.Response.ToolCalls {
				calls[i] = object{{"id", tc.ID}, {"type", tc.Type}, {"function", object{{"name", tc.Name}, {"arguments", tc.Arguments}}}}
			}
			toolCalls = calls
		}
		response = object{{"content", pyjson.OrNull(rec.Response.Content)}, {"tool_calls", toolCalls}, {"finish_reason", pyjson.OrNull(rec.Response.FinishReason)}}
		responseModel = pyjson.OrNull(rec.Response.Model)
	}
	row := object{
		{"ts", rec.TS},
		{"call_id", callID},
		{"task", task},
		{"target_id", prov.TargetID},
		{"provider", prov.Provider},
		{"requested_model", prov.RequestedModel},
		{"resolved_model", prov.ResolvedModel},
		{"response_model", responseModel},
		{"model", prov.ResolvedModel},
		{"request", object{
			{"messages", messagesObjects(rec.Request.Messages)},
			{"params", requestParams(rec.Request)},
			{"tools", rec.Request.Tools},
			{"required_capabilities", capsTree},
		}},
		{"response", response},
		{"usage", rec.Usage},
		{"latency_ms", rec.LatencyMS},
		{"attempts", rec.Attempts},
		{"error", pyjson.OrNull(rec.Error)},
	}
	if len(rec.Redactions) > 0 {
		// Only a reply that held a credential carries the key, so untouched runs stay
		// byte-identical to EAL-Bench's layout.
		row = append(row, kv{"redactions", redactionTrees(rec.Redactions)})
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, row); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// redactionTrees is a reply's redactions as JSON trees ([{"field": ..., "count": n}]).
func redactionTrees(rs []engine.Redaction) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = map[string]any{"field": r.Field, "count": r.Count}
	}
	return out
}
