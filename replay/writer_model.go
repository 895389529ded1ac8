package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/uuid"
)

// Writer prompt literals of LangMem 0.0.30 + trustcall 0.0.39 (writer reference §2.1, §2.2).
const (
	writerSystemHead = "You are a memory subroutine for an AI.\n\nGenerate JSONPatches to update the existing schema instances.\n<existing>\n"
	writerEnrich     = "Enrich, prune, and organize memories based on any new information. If an existing memory is incorrect or outdated, update it based on the new information. All operations must be done in single parallel multi-tool call. Avoid duplicate extractions. "
	humanTitle       = "================================ Human Message ================================="
	patchDocName     = "PatchDoc"
)

var (
	writerCapabilities = []string{"forced_tool_choice", "native_tools", "seed"}
	sourceIDPattern    = regexp.MustCompile(`\bsrc_[A-Za-z0-9_]+\b`)
	patchDocTool       = mustTree(patchDocToolJSON)
	patchDocChoice     = map[string]any{"type": "function", "function": map[string]any{"name": patchDocName}}
)

func mustTree(s string) any {
	t, err := pyjson.DecodeTree([]byte(s))
	if err != nil {
		panic(err)
	}
	return t
}

// ModelWriter is an OpenAI-compatible writer speaking EAL-Bench's LangMem PatchDoc protocol:
// one forced PatchDoc call per attempt whose RFC 6902 patches are applied to the existing
// profile, then validated (schema, visible source ids, capacity in reference tokens), with
// one repair attempt after a failure.
type ModelWriter struct {
	client *ModelClient
}

// NewModelWriter wraps a model client as a writer.
func NewModelWriter(c *ModelClient) *ModelWriter { return &ModelWriter{client: c} }

func (w *ModelWriter) provenance(seed int64) rundir.ModelProvenance {
	return forcedToolProvenance(w.client.Model(), seed, nil)
}

// forcedToolProvenance is the provenance of a writer model called with a forced tool call at
// temperature 1 and the given seed, as EAL-Bench records its writer targets; a toolChoice is
// recorded among the effective parameters when the protocol states it.
func forcedToolProvenance(m Model, seed int64, toolChoice map[string]any) rundir.ModelProvenance {
	params := map[string]any{
		"max_tokens": m.MaxTokens, "required_capabilities": []any{"forced_tool_choice", "native_tools", "seed"},
		"seed": seed, "temperature": pyjson.Float(1.0),
	}
	if toolChoice != nil {
		params["tool_choice"] = toolChoice
	}
	return rundir.ModelProvenance{
		TargetID: m.Name, Provider: "openai_compatible", RequestedModel: m.Model, ResolvedModel: m.Model,
		EffectiveParameters: params,
	}
}

func (w *ModelWriter) manager() string { return "langmem_patchdoc_protocol_v1" }

func (w *ModelWriter) maxAttempts() int { return 2 }

// instructions are the manager instructions in EAL-Bench's order (§2.2).
func writerInstructions(ch *chainInfo, repairDetail string) string {
	s := ch.surface
	parts := []string{
		"Maintain exactly one persistent profile containing current authorization state.",
		"Update the existing profile from the supplied information; do not create another profile.",
		"The single existing profile ID is " + pyjson.MustCanonicalJSON(ch.profileID) + ". Every PatchDoc call must copy that exact string into json_doc_id. It is an opaque identifier: never replace it with an array index, schema name, shortened value, or placeholder.",
		s.WriterStateInstruction,
		s.WriterSourceInstruction,
	}
	if ch.condition.Architecture == engine.ArchTyped {
		parts = append(parts, typedValueInstruction, nestedArrayPatchInstruction, s.TypedArchitectureInstruction, "Exact typed profile JSON Schema:\n"+s.TypedSchemaJSON)
	} else {
		parts = append(parts, freeTextValueInstruction)
	}
	issuers := stringTrees(ch.c.AuthorizedIssuers)
	parts = append(parts,
		fmt.Sprintf("The serialized profile must fit within %d reference tokens.", ch.domain.CapacityTokens()),
		"Domain context: "+pyjson.MustCanonicalJSON(map[string]any{"policy": ch.c.Policy, "authorized_principals": issuers}),
	)
	if repairDetail != "" {
		parts = append(parts, s.WriterRepairInstruction+"Correct this issue while updating the same accepted profile: "+repairDetail)
	}
	return strings.Join(parts, "\n\n")
}

// profileDoc is the existing profile as LangMem holds it: {"content": text} for free text,
// the typed payload otherwise.
func profileDoc(ch *chainInfo, current any) any {
	if current == nil {
		current = ch.emptyPayload()
	}
	if ch.condition.Architecture == engine.ArchFreeText {
		return map[string]any{"content": current}
	}
	return current
}

func (w *ModelWriter) messages(ch *chainInfo, u update, current any, index int, repairDetail string) []engine.ChatMessage {
	schemaName := "Memory"
	if ch.condition.Architecture == engine.ArchTyped {
		schemaName = ch.surface.TypedSchemaName
	}
	system := writerSystemHead + "<instance id=" + ch.profileID + " schema_type=\"" + schemaName + "\">\n" +
		pyRepr(profileDoc(ch, current), ch.domain.Schema().KeyOrder()) + "\n</instance>\n</existing>\n"
	var content string
	if u.inputKind == InputFullHistory {
		content = "<SOURCE_HISTORY>\n" + renderHistory(ch.domain, ch.c) + "\n</SOURCE_HISTORY>"
	} else {
		content = "<NEW_CONVERSATION_BLOCK>\n" + engine.RenderBlock(ch.domain, ch.c, u.block) + "\n</NEW_CONVERSATION_BLOCK>"
	}
	phase := "initial"
	if index > 1 {
		phase = "repair"
	}
	// EAL-Bench's deterministic session ids: uuid5(OID, chain \0 block \0 phase \0 attempt).
	session := "session_" + uuid.NewSHA1(uuid.NameSpaceOID, []byte(strings.Join([]string{ch.chainID, strconv.Itoa(u.block), phase, strconv.Itoa(index)}, "\x00"))).String()
	user := writerInstructions(ch, repairDetail) + "\n\n" + writerEnrich + "\n\n<" + session + ">\n" + humanTitle + "\n\n" + content + "\n</" + session + ">"
	return []engine.ChatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}}
}

// repairFeedback is EAL-Bench's _repair_feedback: the failure detail plus the rejected
// arguments.
func repairFeedback(failed *attemptResult) string {
	parts := []string{failed.detail}
	if raw, ok := failed.rawArguments.(map[string]any); ok {
		if args, ok := raw["args"].(map[string]any); ok {
			parts = append(parts, "The exact rejected PatchDoc arguments were:\n"+pyjson.MustCanonicalJSON(args)+"\nMake the smallest schema-valid correction. Do not repeat the rejected arguments unchanged.")
		}
	}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

func (w *ModelWriter) attempt(ctx context.Context, ch *chainInfo, u update, current any, attemptID string, index int, failed *attemptResult) (attemptResult, bool) {
	repair := ""
	if failed != nil {
		repair = repairFeedback(failed)
	}
	m := w.client.Model()
	msgs := w.messages(ch, u, current, index, repair)
	rec := w.client.Complete(ctx, ChatRequest{
		Messages: msgs, Tools: []any{patchDocTool}, ToolChoice: patchDocChoice, Temperature: 1.0,
		Seed: ch.seed, MaxTokens: m.MaxTokens, RequiredCapabilities: writerCapabilities,
	})
	if rec.Cancelled {
		return attemptResult{}, false
	}
	runID := uuid.NewSHA1(uuid.NameSpaceOID, []byte("ealscope-writer-run\x00"+attemptID)).String()
	res := attemptResult{frameworkRunIDs: []string{runID}}
	res.call = &writerCall{callID: pyjson.StableID24("call", attemptID, "writer"), frameworkRunID: runID, record: rec, toolChoice: patchDocChoice, inputKind: u.inputKind}
	if rec.Response != nil {
		res.responseModel = rec.Response.Model
	}
	fail := func(status, detail string) (attemptResult, bool) {
		res.status, res.detail = status, detail
		return res, true
	}
	if rec.Error != nil {
		return fail(StatusWriterError, "ValueError: LangMem model call failed: "+*rec.Error)
	}
	calls := rec.Response.ToolCalls
	if len(calls) == 1 {
		res.rawArguments = rawToolCall(calls[0])
	} else if len(calls) > 1 {
		var list []any
		for _, c := range calls {
			list = append(list, rawToolCall(c))
		}
		res.rawArguments = list
	}
	if len(calls) != 1 {
		return fail(StatusWriterError, fmt.Sprintf("ValueError: LangMem model made %d tool calls; expected one PatchDoc call", len(calls)))
	}
	if calls[0].Name != patchDocName {
		return fail(StatusWriterError, fmt.Sprintf("ValueError: LangMem model called %s; expected 'PatchDoc'", pyjson.StrRepr(calls[0].Name)))
	}
	args, ok := res.rawArguments.(map[string]any)["args"].(map[string]any)
	if !ok {
		return fail(StatusWriterError, "ValueError: LangMem PatchDoc arguments must be an object")
	}
	if id, _ := args["json_doc_id"].(string); id != ch.profileID {
		return fail(StatusWriterError, "ValueError: LangMem PatchDoc targeted the wrong profile: "+pyjson.StrRepr(fmt.Sprint(args["json_doc_id"])))
	}
	if _, ok := args["planned_edits"]; !ok {
		return fail(StatusWriterError, "ValueError: LangMem PatchDoc is missing planned_edits")
	}
	doc := profileDoc(ch, current)
	result, err := applyPatchDoc(doc, args["patches"])
	if err != nil {
		return fail(StatusWriterError, "ValueError: "+err.Error())
	}
	res.candidate = result
	if ch.condition.Architecture == engine.ArchFreeText {
		if m, ok := result.(map[string]any); ok {
			res.candidate = m["content"]
		}
	}
	validated, err := validatePayload(ch, u, res.candidate)
	if err != nil {
		return fail(StatusInvalid, err.Error())
	}
	prior := current
	if prior == nil {
		prior = ch.emptyPayload()
	}
	changed := pyjson.MustContentHash(validated) != pyjson.MustContentHash(prior)
	res.changed, res.validated = &changed, validated
	if !changed {
		return fail(StatusNoChange, "LangMem retained the accepted profile unchanged")
	}
	return fail(StatusAccepted, "accepted")
}

// rawToolCall is the LangChain tool-call dict EAL-Bench records as raw_arguments; arguments
// that are not JSON stay as the raw string.
func rawToolCall(c RecordedToolCall) map[string]any {
	var args any = c.Arguments
	if tree, err := pyjson.DecodeTree([]byte(c.Arguments)); err == nil {
		args = tree
	}
	return map[string]any{"name": c.Name, "args": args, "id": c.ID, "type": "tool_call"}
}

// applyPatchDoc checks the patch list like EAL-Bench's _validate_patch_operations and applies
// it with RFC 6902 to the existing profile; on a conflict, "/-" appends to a string are
// rewritten as concatenation against the original document and the list is applied again.
func applyPatchDoc(doc any, rawPatches any) (any, error) {
	patches, ok := rawPatches.([]any)
	if !ok {
		return nil, errors.New("LangMem PatchDoc patches must be a list")
	}
	var norm []any
	for i, p := range patches {
		m, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("LangMem patch %d must be an object", i)
		}
		op, _ := m["op"].(string)
		if op != "add" && op != "remove" && op != "replace" {
			return nil, fmt.Errorf("LangMem patch %d has unsupported operation %s", i, pyRepr(m["op"], nil))
		}
		path, ok := m["path"].(string)
		if !ok {
			return nil, fmt.Errorf("LangMem patch %d path must be a string", i)
		}
		n := map[string]any{"op": op, "path": path}
		if v, has := m["value"]; has {
			n["value"] = v
		} else if op != "remove" {
			return nil, fmt.Errorf("LangMem patch %d operation %s requires value", i, pyjson.StrRepr(op))
		}
		norm = append(norm, n)
	}
	out, err := applyRFC6902(doc, norm)
	if err == nil {
		return out, nil
	}
	fixed, rewritten := fixStringAppends(doc, norm)
	if !rewritten {
		return nil, fmt.Errorf("LangMem PatchDoc could not be applied: %v", err)
	}
	out, err = applyRFC6902(doc, fixed)
	if err != nil {
		return nil, fmt.Errorf("LangMem PatchDoc could not be applied: %v", err)
	}
	return out, nil
}

func applyRFC6902(doc any, patches []any) (any, error) {
	if len(patches) == 0 {
		return doc, nil
	}
	docJSON, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	patchJSON, err := json.Marshal(patches)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return nil, err
	}
	res, err := p.Apply(docJSON)
	if err != nil {
		return nil, err
	}
	return pyjson.DecodeTree(res)
}

// fixStringAppends rewrites every "/-" patch whose target is a string in the original
// document as a replace with the concatenation (Python str() of the value).
func fixStringAppends(doc any, patches []any) ([]any, bool) {
	rewritten := false
	out := make([]any, len(patches))
	for i, p := range patches {
		m := p.(map[string]any)
		path := m["path"].(string)
		out[i] = p
		if !strings.HasSuffix(path, "/-") {
			continue
		}
		target := strings.TrimSuffix(path, "/-")
		existing, ok := pointerGet(doc, target).(string)
		if !ok {
			continue
		}
		var add string
		switch v := m["value"].(type) {
		case string:
			add = v
		case nil:
			if _, has := m["value"]; has {
				add = "None"
			}
		default:
			add = pyRepr(v, nil)
		}
		out[i] = map[string]any{"op": "replace", "path": target, "value": existing + add}
		rewritten = true
	}
	return out, rewritten
}

func pointerGet(doc any, pointer string) any {
	if pointer == "" {
		return doc
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case map[string]any:
			cur = t[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}

// validatePayload is EAL-Bench's _validate_payload: type, schema, visible source ids and the
// capacity budget. It returns the validated payload (typed: normalised through the schema).
func validatePayload(ch *chainInfo, u update, candidate any) (any, error) {
	var cited []string
	var validated any
	if ch.condition.Architecture == engine.ArchFreeText {
		text, ok := candidate.(string)
		if !ok {
			return nil, errors.New("free-text profile content must be a string")
		}
		cited = sourceIDPattern.FindAllString(text, -1)
		validated = text
	} else {
		if _, ok := candidate.(map[string]any); !ok {
			return nil, errors.New("typed profile payload must be an object")
		}
		records, err := ch.domain.ParseTyped(candidate)
		if err != nil {
			return nil, err
		}
		if validated, err = pyjson.Retree(ch.domain.TypedPayload(records)); err != nil {
			return nil, err
		}
		for _, r := range validated.(map[string]any)["authorizations"].([]any) {
			for _, id := range r.(map[string]any)["source_turn_ids"].([]any) {
				cited = append(cited, id.(string))
			}
		}
	}
	visible := ch.c.VisibleSourceIDs(u.block)
	unknown := map[string]bool{}
	for _, id := range cited {
		if !visible[id] {
			unknown[id] = true
		}
	}
	if len(unknown) > 0 {
		ids := make([]string, 0, len(unknown))
		for id := range unknown {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return nil, fmt.Errorf("source_turn_ids were not visible to the writer: %s", strings.Join(ids, ", "))
	}
	if n := countTokens(ch.tokens, validated); n > ch.domain.CapacityTokens() {
		return nil, fmt.Errorf("candidate uses %d reference tokens; capacity is %d", n, ch.domain.CapacityTokens())
	}
	return validated, nil
}
