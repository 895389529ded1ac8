package runs

import (
	"context"
	"database/sql"
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

// ModelCallCost is what one model target cost a run for one use: its calls (failed ones
// included) and the prompt and completion tokens of those that answered, Counted of them
// counted by ealscope because the provider reported no usage.
type ModelCallCost struct {
	// Source is "run" (the run's own calls: writer and executor), "rerun" (live re-runs) or
	// "lab" (the safeguard lab's arms).
	Source string `json:"source"`
	// Task is writer or executor.
	Task   string `json:"task"`
	Target string `json:"target"`
	// PolicyID is the lab's policy ("" for the un-gated arms every policy shares; null
	// outside the lab).
	PolicyID         *string `json:"policy_id"`
	Calls            int     `json:"calls"`
	Failed           int     `json:"failed"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	Counted          int     `json:"counted"`
}

// HasTokens reports a cost worth showing a person: tokens were recorded or calls failed (a
// built-in writer or executor costs neither).
func (c ModelCallCost) HasTokens() bool {
	return c.PromptTokens+c.CompletionTokens > 0 || c.Failed > 0
}

// ModelCallCosts lists what a run's model calls cost, its own by task and target, then its
// re-runs and lab arms by executor and policy.
func (s *Store) ModelCallCosts(ctx context.Context, runID string) ([]ModelCallCost, error) {
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, err
	}
	return s.modelCallCosts(ctx, pk)
}

func (s *Store) modelCallCosts(ctx context.Context, runPK int64) ([]ModelCallCost, error) {
	scan := func(r rowScanner) (ModelCallCost, error) {
		var c ModelCallCost
		var policy sql.NullString
		err := r.Scan(&c.Source, &c.Task, &c.Target, &policy, &c.Calls, &c.Failed, &c.PromptTokens, &c.CompletionTokens, &c.Counted)
		if policy.Valid {
			c.PolicyID = &policy.String
		}
		return c, err
	}
	return queryAll(ctx, s.db, scan, `SELECT 'run', COALESCE(task, ''), COALESCE(target_id, ''), NULL, COUNT(*), SUM(failed),
		COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(counted), 0)
		FROM call_tokens WHERE run_pk = ? GROUP BY 2, 3
		UNION ALL
		SELECT CASE WHEN policy_id IS NULL THEN 'rerun' ELSE 'lab' END, 'executor', executor_target, policy_id, COUNT(*), SUM(provider_error IS NOT NULL),
		COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(tokens_counted), 0)
		FROM replays WHERE run_pk = ? GROUP BY 1, 3, 4
		ORDER BY 1 DESC, 2, 3, 4`, runPK, runPK)
}
