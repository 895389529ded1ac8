package replay

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine/reftoken"
)

// countedMarker is the usage key that says ealscope counted the tokens itself; its value names
// the tokenizer. The workspace reads the same key (runs.CountedMarker).
const countedMarker = "ealscope_counted"

// Token accounting of model calls: the provider's usage when it reports one, else tokens
// counted with the reference tokenizer and marked as counted, so every call's cost is known
// (docs/RELIABILITY.md, "Model fleets").

// promptTokens counts a request's prompt with the reference tokenizer: the messages' text
// and the tools' JSON. Providers add a few tokens of framing per message, so it is an
// estimate, used when the provider reports no usage and to admit a call under a
// tokens-per-minute limit.
func promptTokens(req ChatRequest) int {
	tc := reftoken.Reference()
	n := 0
	for _, m := range req.Messages {
		n += tc.Count(m.Role) + tc.Count(m.Content)
	}
	if req.Tools != nil {
		if b, err := json.Marshal(req.Tools); err == nil {
			n += tc.Count(string(b))
		}
	}
	return n
}

// completionTokens counts a reply's text and tool calls with the reference tokenizer.
func completionTokens(rr *RecordedResponse) int {
	tc := reftoken.Reference()
	var b strings.Builder
	if rr.Content != nil {
		b.WriteString(*rr.Content)
	}
	for _, call := range rr.ToolCalls {
		b.WriteString(call.Name)
		b.WriteString(call.Arguments)
	}
	return tc.Count(b.String())
}

// accountedUsage is the usage recorded with a call: the provider's when it reported prompt
// and completion tokens, else counted here, with countedMarker naming the tokenizer.
func accountedUsage(req ChatRequest, rr *RecordedResponse, usage any) any {
	if _, _, ok := usageCounts(usage); ok {
		return usage
	}
	p, c := promptTokens(req), completionTokens(rr)
	return map[string]any{
		"prompt_tokens":     json.Number(strconv.Itoa(p)),
		"completion_tokens": json.Number(strconv.Itoa(c)),
		"total_tokens":      json.Number(strconv.Itoa(p + c)),
		countedMarker:       reftoken.Reference().Name(),
	}
}

// usageCounts reads prompt and completion tokens from a usage tree (json.Number leaves, as
// decodeWire makes them, or plain numbers); ok is false unless both are there.
func usageCounts(usage any) (prompt, completion int, ok bool) {
	m, isMap := usage.(map[string]any)
	if !isMap {
		return 0, 0, false
	}
	p, okP := usageInt(m["prompt_tokens"])
	c, okC := usageInt(m["completion_tokens"])
	return p, c, okP && okC
}

func usageInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil && i >= 0
	case int:
		return n, n >= 0
	case float64:
		return int(n), n >= 0 && n == float64(int(n))
	}
	return 0, false
}
