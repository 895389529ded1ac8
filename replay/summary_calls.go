package replay

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"

	"github.com/ealscope/ealscope/runs/rundir"
)

// ModelCalls is what one model target cost a run for one task (writer or executor): its
// calls (failed ones included), and the prompt and completion tokens of those that
// answered, Counted of them counted by ealscope because the provider reported no usage.
type ModelCalls struct {
	Task             string `json:"task"`
	Target           string `json:"target"`
	Calls            int    `json:"calls"`
	Failed           int    `json:"failed"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Counted          int    `json:"counted"`
}

type callKey struct{ task, target string }

// call counts one calls.jsonl row.
func (b *summaryBuilder) call(task, target string, failed bool, usage any) {
	if b.calls == nil {
		b.calls = map[callKey]*ModelCalls{}
	}
	k := callKey{task, target}
	mc := b.calls[k]
	if mc == nil {
		mc = &ModelCalls{Task: task, Target: target}
		b.calls[k] = mc
	}
	mc.Calls++
	if failed {
		mc.Failed++
	}
	if p, c, ok := usageCounts(usage); ok {
		mc.PromptTokens += int64(p)
		mc.CompletionTokens += int64(c)
		if u, _ := usage.(map[string]any); u[countedMarker] != nil {
			mc.Counted++
		}
	}
}

// callLine counts a calls.jsonl line as the run writes it.
func (b *summaryBuilder) callLine(line []byte) {
	var row struct {
		Task   string          `json:"task"`
		Target string          `json:"target_id"`
		Error  *string         `json:"error"`
		Usage  json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(line, &row) != nil {
		return
	}
	var usage map[string]any
	if len(row.Usage) > 0 {
		d := json.NewDecoder(bytes.NewReader(row.Usage))
		d.UseNumber()
		_ = d.Decode(&usage)
	}
	b.call(row.Task, row.Target, row.Error != nil, usage)
}

// callRow counts a calls.jsonl row of an existing run.
func (b *summaryBuilder) callRow(r rundir.Row) {
	b.call(r.Str("task"), r.Str("target_id"), r.OptStr("error") != nil, r.Tree["usage"])
}

// modelCalls lists the counts by task, then target ([] when the run called no model).
func (b *summaryBuilder) modelCalls() []ModelCalls {
	out := []ModelCalls{}
	for _, k := range slices.SortedFunc(maps.Keys(b.calls), func(x, y callKey) int { return cmp.Or(cmp.Compare(x.task, y.task), cmp.Compare(x.target, y.target)) }) {
		out = append(out, *b.calls[k])
	}
	return out
}
