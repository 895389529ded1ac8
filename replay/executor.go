package replay

import (
	"context"
	"fmt"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ExecRequest is one executor call: the probe, the evidence the executor is shown and the
// exact messages and tools EAL-Bench would send for it.
type ExecRequest struct {
	Domain   engine.Domain
	Case     *engine.Case
	Probe    engine.Probe
	Evidence engine.Evidence
	Messages []engine.ChatMessage
	Tools    []any
	// Seed is the executor seed (run seed + executor_run_id).
	Seed   int64
	CallID string
}

// Executor resolves one request. Execute never fails: a provider failure is a record with
// Error set (scored provider_error), a cancelled call is a record with Cancelled set.
type Executor interface {
	Name() string
	// Provenance is the route as planned for a call with this seed (response_model unset).
	Provenance(seed int64) rundir.ModelProvenance
	Execute(ctx context.Context, req ExecRequest) CallRecord
}

// executorCapabilities are EAL-Bench's executor required_capabilities.
var executorCapabilities = []string{"native_tools", "seed"}

func toolNames(d engine.ExecutorSurface) []any {
	var out []any
	for _, t := range d.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// executorParameters are the effective_parameters of an executor route (writer reference
// §4.1's executor call profile).
func executorParameters(d engine.Domain, temperature float64, maxTokens int, seed int64) map[string]any {
	return map[string]any{
		"max_tokens": maxTokens, "required_capabilities": []any{"native_tools", "seed"}, "seed": seed,
		"temperature": pyjson.Float(temperature), "tool_choice": "auto", "tool_names": toolNames(d),
	}
}

// BuiltinModelID names the memory-faithful executor wherever a model id goes.
const BuiltinModelID = "memory-faithful-v1"

// BuiltinExecutor is the memory-faithful executor: it reads the memory it is shown and acts
// iff the domain's oracle predicate, applied to the remembered records, authorizes the
// request; otherwise it escalates, quoting the predicate's reason. It never guesses: memory it
// cannot read (prose, an invalid typed payload, raw history) yields a call the scorer labels
// `invalid`, with the reason kept in the raw arguments and the response text.
//
// It is calibrated by construction on oracle-exact memory and trusts false authority
// completely, which makes it the clean baseline for attribution. Its call records have the
// same shape as a model's, with a timestamp derived from the run seed and zero latency so
// that a run is byte-identical for a given seed.
type BuiltinExecutor struct {
	domain engine.Domain
	ts     string
}

// NewBuiltinExecutor builds the executor for a run seed.
func NewBuiltinExecutor(d engine.Domain, runSeed int64) *BuiltinExecutor {
	return &BuiltinExecutor{domain: d, ts: pyTimestamp(seedTime(runSeed))}
}

// seedTime is a fixed instant derived from the seed (2026-01-01 plus seed mod one year, in
// seconds): deterministic, yet distinct between seeds.
func seedTime(seed int64) time.Time {
	const year = 365 * 24 * 3600
	off := seed % year
	if off < 0 {
		off += year
	}
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(off) * time.Second)
}

// Name implements Executor.
func (b *BuiltinExecutor) Name() string { return "builtin" }

// Provenance implements Executor.
func (b *BuiltinExecutor) Provenance(seed int64) rundir.ModelProvenance {
	return rundir.ModelProvenance{
		TargetID: "builtin", Provider: "ealscope", RequestedModel: BuiltinModelID, ResolvedModel: BuiltinModelID,
		EffectiveParameters: executorParameters(b.domain, 0, 0, seed),
	}
}

// Decide is the built-in executor's decision as a tool call: the tool name, its arguments,
// and the response text (empty unless the memory was unreadable).
func (b *BuiltinExecutor) Decide(c *engine.Case, p engine.Probe, ev engine.Evidence) (string, map[string]any, string) {
	d := b.domain
	records, err := readEvidence(d, ev)
	if err != nil {
		reason := "cannot read memory: " + err.Error()
		// The action tool with arguments that satisfy no domain's contract: the scorer
		// labels it invalid (never an action), and the raw arguments keep the reason.
		name, _ := d.RequestCall(p)
		return name, map[string]any{"cannot_read_memory": err.Error()}, reason
	}
	verdict := engine.Authorizes(d, c, records, p.Request)
	if verdict.Authorized {
		name, args := d.RequestCall(p)
		return name, args, ""
	}
	name, args := d.EscalationCall(p, "The remembered authorization state does not cover this request ("+verdict.Reason+").")
	return name, args, ""
}

// readEvidence turns the executor's evidence into records: none for empty memory, the typed
// payload through the domain's schema, free text through the canonical layout reader.
// MemoryRecords reads a stored memory payload (free text in the canonical layout, or a typed
// payload tree) as records.
func MemoryRecords(d engine.MemoryCodec, payload any) ([]engine.Record, error) {
	return readEvidence(d, engine.Evidence{Kind: engine.MemoryEvidence, Payload: payload})
}

func readEvidence(d engine.MemoryCodec, ev engine.Evidence) ([]engine.Record, error) {
	switch ev.Kind {
	case engine.EmptyEvidence:
		return nil, nil
	case engine.FullHistoryEvidence:
		return nil, fmt.Errorf("built-in executor reads memory, not raw history")
	}
	switch p := ev.Payload.(type) {
	case string:
		return d.ReadFreeText(p)
	case nil:
		return nil, fmt.Errorf("memory evidence has no payload")
	default:
		tree, err := pyjson.Retree(p)
		if err != nil {
			return nil, err
		}
		return d.ParseTyped(tree)
	}
}

// Execute implements Executor.
func (b *BuiltinExecutor) Execute(ctx context.Context, req ExecRequest) CallRecord {
	rec := CallRecord{
		TS: b.ts,
		Request: ChatRequest{
			Messages: req.Messages, Tools: req.Tools, ToolChoice: "auto", Seed: req.Seed,
			RequiredCapabilities: executorCapabilities,
		},
		Attempts: 1,
	}
	if ctx.Err() != nil {
		rec.Cancelled = true
		return rec
	}
	name, args, text := b.Decide(req.Case, req.Probe, req.Evidence)
	raw, err := pyjson.DumpPy(args, pyjson.Row)
	if err != nil {
		msg := "EncodeError: " + err.Error()
		rec.Error = &msg
		return rec
	}
	model, finish := BuiltinModelID, "tool_calls"
	resp := &RecordedResponse{
		FinishReason: &finish, Model: &model,
		ToolCalls: []RecordedToolCall{{ID: pyjson.StableID24("call", req.CallID), Type: "function", Name: name, Arguments: string(raw)}},
	}
	if text != "" {
		resp.Content = &text
	}
	rec.Response = resp
	return rec
}

// ModelExecutor is an OpenAI-compatible executor: EAL-Bench's messages and tools,
// tool_choice "auto", the configured temperature and max_tokens, seed = run seed +
// executor_run_id.
type ModelExecutor struct {
	domain engine.Domain
	client *ModelClient
}

// NewModelExecutor wraps a model client as an executor.
func NewModelExecutor(d engine.Domain, c *ModelClient) *ModelExecutor {
	return &ModelExecutor{domain: d, client: c}
}

// Name implements Executor.
func (m *ModelExecutor) Name() string { return m.client.Model().Name }

// Provenance implements Executor.
func (m *ModelExecutor) Provenance(seed int64) rundir.ModelProvenance {
	cfg := m.client.Model()
	return rundir.ModelProvenance{
		TargetID: cfg.Name, Provider: "openai_compatible", RequestedModel: cfg.Model, ResolvedModel: cfg.Model,
		EffectiveParameters: executorParameters(m.domain, cfg.Temperature, cfg.MaxTokens, seed),
	}
}

// Execute implements Executor.
func (m *ModelExecutor) Execute(ctx context.Context, req ExecRequest) CallRecord {
	cfg := m.client.Model()
	return m.client.Complete(ctx, ChatRequest{
		Messages: req.Messages, Tools: req.Tools, ToolChoice: "auto", Temperature: cfg.Temperature,
		Seed: req.Seed, MaxTokens: cfg.MaxTokens, RequiredCapabilities: executorCapabilities,
	})
}
