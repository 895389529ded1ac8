package runs

import (
	"encoding/json"
)

// CountedMarker is the key a usage object carries when ealscope counted its tokens itself
// (the provider reported none); its value names the tokenizer.
const CountedMarker = "ealscope_counted"

// usageTokens reads a call's usage object (OpenAI's shape, decoded or not) as the columns
// prompt_tokens, completion_tokens and counted: each NULL when the usage is absent or does not
// say.
func usageTokens(usage any) (prompt, completion, counted any) {
	if usage == nil {
		return nil, nil, nil
	}
	var raw []byte
	switch u := usage.(type) {
	case json.RawMessage:
		raw = u
	case []byte:
		raw = u
	default:
		raw = []byte(jsonText(u))
	}
	var u struct {
		Prompt     *int64          `json:"prompt_tokens"`
		Completion *int64          `json:"completion_tokens"`
		Counted    json.RawMessage `json:"ealscope_counted"`
	}
	if json.Unmarshal(raw, &u) != nil || (u.Prompt == nil && u.Completion == nil) {
		return nil, nil, nil
	}
	if u.Prompt != nil {
		prompt = *u.Prompt
	}
	if u.Completion != nil {
		completion = *u.Completion
	}
	return prompt, completion, b2i(len(u.Counted) > 0 && string(u.Counted) != "null")
}
