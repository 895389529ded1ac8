package replay

import (
	"context"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
	"github.com/google/uuid"
)

var eventToolChoice = map[string]any{"type": "function", "function": map[string]any{"name": eventsource.ToolName}}

// ModelEventWriter is an OpenAI-compatible event writer speaking EAL-Bench's bounded
// event-sourcing protocol (docs/FORMATS.md 8.2; experiments/mitigations/event_sourcing/core.py):
// per block, the previous reduced state and the new block only, one forced
// record_authorization_events call, the batch reduced atomically, one structural repair.
type ModelEventWriter struct {
	client *ModelClient
}

// NewModelEventWriter wraps a model client as an event writer.
func NewModelEventWriter(c *ModelClient) *ModelEventWriter { return &ModelEventWriter{client: c} }

func (w *ModelEventWriter) provenance(seed int64) rundir.ModelProvenance {
	return forcedToolProvenance(w.client.Model(), seed, eventToolChoice)
}

func (w *ModelEventWriter) manager() string { return eventsource.ImplementationID }

func (w *ModelEventWriter) maxAttempts() int { return 2 }

// EventWriterInstruction is core.py event_writer_instruction: the system message of every
// event-writer call (repairDetail "" for a first attempt).
func EventWriterInstruction(d engine.WriterSurface, c *engine.Case, s Surface, repairDetail string) string {
	issuers := stringTrees(c.AuthorizedIssuers)
	parts := []string{
		"Extract only newly stated authorization-changing events from the CURRENT CONVERSATION BLOCK.",
		"You receive a compact PREVIOUS CURRENT AUTHORIZATION STATE and one new block. The cumulative event log and earlier conversation blocks are not available.",
		"Use public lifecycle semantics: issue creates a new active record; patch changes only the named fields of one current record; revoke makes one current record inactive; replace supersedes one current record and creates one new active record.",
		"For issue and replace, return complete authorization content in record. The system assigns status, provenance storage, and immutable event IDs; for replace it assigns the replacement's supersedes field from the selected target. Preserve the schema-native supersedes field on issue records. For patch, return only changed fields. For revoke, return neither record nor changes.",
		"Use exact stable authorization and source-turn identifiers visible in the supplied state or current block. Do not invent opaque event IDs. Preserve schema-native JSON types.",
		"Do not infer an event from discussion, recommendations, stale exports, or other text that does not itself change authorization. Return an empty events array when the current block contains no authorization change.",
		s.WriterSourceInstruction,
		fmt.Sprintf("The deterministically reduced current state must fit within %d reference tokens.", d.CapacityTokens()),
		"Domain context: " + pyjson.MustCanonicalJSON(map[string]any{"policy": c.Policy, "authorized_principals": issuers}),
	}
	if repairDetail != "" {
		parts = append(parts, s.WriterRepairInstruction+"Correct only the structural problem in the rejected delta: "+repairDetail)
	}
	return strings.Join(parts, "\n\n")
}

// EventWriterMessages are the two messages of one event-writer call: the instruction and
// docs/FORMATS.md 8.2's user message (previous state as canonical JSON, then the block).
func EventWriterMessages(d engine.Domain, c *engine.Case, s Surface, previous map[string]any, blockText, repairDetail string) []engine.ChatMessage {
	return []engine.ChatMessage{
		{Role: "system", Content: EventWriterInstruction(d, c, s, repairDetail)},
		{Role: "user", Content: "PREVIOUS CURRENT AUTHORIZATION STATE\n" + pyjson.MustCanonicalJSON(previous) + "\n\nCURRENT CONVERSATION BLOCK\n" + blockText},
	}
}

// EventTool is core.py event_tool: record_authorization_events, whose record schema is the
// domain's typed record schema minus the system-owned status and source_turn_ids, and whose
// changes allow any of those fields but authorization_id.
func EventTool(s Surface) (map[string]any, error) {
	tree, err := pyjson.DecodeTree([]byte(s.TypedSchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("typed schema: %w", err)
	}
	typed, _ := tree.(map[string]any)
	record, err := recordSchema(typed)
	if err != nil {
		return nil, err
	}
	content := pyjson.CloneTree(record).(map[string]any)
	props, _ := content["properties"].(map[string]any)
	kept := map[string]any{}
	changes := map[string]any{}
	for k, v := range props {
		if k == "status" || k == "source_turn_ids" {
			continue
		}
		kept[k] = v
		if k != "authorization_id" {
			changes[k] = pyjson.CloneTree(v)
		}
	}
	content["properties"] = kept
	required := []any{}
	if list, ok := content["required"].([]any); ok {
		for _, k := range list {
			if k != "status" && k != "source_turn_ids" {
				required = append(required, k)
			}
		}
		content["required"] = required
	}
	params := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"events": map[string]any{
				"type": "array", "maxItems": eventsource.MaxEventsPerBlock,
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"event_type":              map[string]any{"type": "string", "enum": []any{"issue", "patch", "revoke", "replace"}},
						"target_authorization_id": map[string]any{"anyOf": []any{map[string]any{"type": "string", "minLength": 1}, map[string]any{"type": "null"}}},
						"source_turn_ids":         map[string]any{"type": "array", "minItems": 1, "uniqueItems": true, "items": map[string]any{"type": "string", "minLength": 1}},
						"record":                  map[string]any{"anyOf": []any{content, map[string]any{"type": "null"}}},
						"changes": map[string]any{"anyOf": []any{
							map[string]any{"type": "object", "properties": changes, "additionalProperties": false, "minProperties": 1},
							map[string]any{"type": "null"},
						}},
					},
					"required":             []any{"event_type", "target_authorization_id", "source_turn_ids", "record", "changes"},
					"additionalProperties": false,
				},
			},
		},
		"required": []any{"events"}, "additionalProperties": false,
	}
	if defs, ok := typed["$defs"]; ok {
		params["$defs"] = defs
	}
	out := map[string]any{"type": "function", "function": map[string]any{
		"name": eventsource.ToolName, "description": "Record only authorization-changing events newly present in the current block.",
		"parameters": params,
	}}
	t, err := pyjson.Retree(out)
	if err != nil {
		return nil, err
	}
	return t.(map[string]any), nil
}

// recordSchema is core.py _record_schema: the item schema of authorizations, through $defs.
func recordSchema(typed map[string]any) (map[string]any, error) {
	props, _ := typed["properties"].(map[string]any)
	auths, ok := props["authorizations"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("typed schema has no authorizations property")
	}
	items, ok := auths["items"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("typed authorizations schema has no item schema")
	}
	if ref, ok := items["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
		defs, _ := typed["$defs"].(map[string]any)
		resolved, ok := defs[ref[strings.LastIndex(ref, "/")+1:]].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("typed authorization item reference cannot be resolved")
		}
		return resolved, nil
	}
	return items, nil
}

// eventRepairDetail is runtime.py's repair text: the rejection and the rejected arguments.
func eventRepairDetail(failed *attemptResult) string {
	detail := failed.detail
	if args, ok := failed.rawArguments.(map[string]any); ok {
		detail += "\n\nRejected arguments:\n" + pyjson.MustCanonicalJSON(args) + "\nMake the smallest structural correction; do not repeat them unchanged."
	}
	return detail
}

func (w *ModelEventWriter) attempt(ctx context.Context, ch *chainInfo, u update, current any, attemptID string, index int, failed *attemptResult) (attemptResult, bool) {
	st, err := eventState(ch)
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValueError: " + err.Error()}, true
	}
	b, err := st.block(ch, u)
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValidationError: " + err.Error()}, true
	}
	tool, err := EventTool(ch.surface)
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValueError: " + err.Error()}, true
	}
	repair := ""
	if failed != nil {
		repair = eventRepairDetail(failed)
	}
	m := w.client.Model()
	rec := w.client.Complete(ctx, ChatRequest{
		Messages: EventWriterMessages(ch.domain, ch.c, ch.surface, b.previous, b.text, repair),
		Tools:    []any{tool}, ToolChoice: eventToolChoice, Temperature: 1.0, Seed: ch.seed, MaxTokens: m.MaxTokens,
		RequiredCapabilities: writerCapabilities,
	})
	if rec.Cancelled {
		return attemptResult{}, false
	}
	runID := uuid.NewSHA1(uuid.NameSpaceOID, []byte("ealscope-event-writer-run\x00"+attemptID)).String()
	res := attemptResult{frameworkRunIDs: []string{runID}}
	res.call = &writerCall{callID: pyjson.StableID24("call", attemptID, "writer"), frameworkRunID: runID, record: rec, toolChoice: eventToolChoice, inputKind: InputNewBlock}
	if rec.Response != nil {
		res.responseModel = rec.Response.Model
	}
	if rec.Error != nil {
		res.status, res.detail = StatusWriterError, "provider error: "+*rec.Error
		return res, true
	}
	calls := rec.Response.ToolCalls
	var args map[string]any
	if len(calls) == 1 && calls[0].Name == eventsource.ToolName {
		if tree, err := pyjson.DecodeTree([]byte(calls[0].Arguments)); err == nil {
			args, _ = tree.(map[string]any)
		}
	}
	if args == nil {
		res.status, res.detail = StatusInvalid, "exactly one "+eventsource.ToolName+" tool call with JSON arguments is required"
		if len(calls) == 1 {
			res.rawArguments = rawToolCall(calls[0])
		}
		return res, true
	}
	return st.reduce(ch, u, b, attemptID, args, res), true
}
