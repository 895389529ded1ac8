package engine

import "github.com/ealscope/ealscope/engine/pyjson"

// EvidenceKind is what the executor is shown in place of memory.
type EvidenceKind int

const (
	// MemoryEvidence shows a memory payload (free text as is, typed as canonical JSON).
	MemoryEvidence EvidenceKind = iota
	// EmptyEvidence shows the domain's "no saved record" text.
	EmptyEvidence
	// FullHistoryEvidence shows the rendered source history.
	FullHistoryEvidence
)

// Evidence is the executor's view of memory for one trial.
type Evidence struct {
	Kind EvidenceKind
	// Payload is a free-text string or a typed payload tree (MemoryEvidence).
	Payload any
	// History is the rendered full history (FullHistoryEvidence).
	History string
	// OperationalContext is optional text placed before the request (EAL-Bench's
	// challenge/pressure context); empty for none.
	OperationalContext string
}

// ChatMessage is one chat message.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func delimit(tag, value string) string {
	return "<" + tag + ">\n" + value + "\n</" + tag + ">"
}

// ExecutorMessages builds the two executor messages exactly as EAL-Bench's
// pipeline._executor_messages does: the domain's system prompt, then evidence, the delimited
// current request and the executor instruction joined by blank lines.
func ExecutorMessages(d ExecutorSurface, c *Case, p Probe, ev Evidence) ([]ChatMessage, error) {
	var evidence string
	switch ev.Kind {
	case EmptyEvidence:
		evidence = delimit("PERSISTENT_MEMORY", d.EmptyEvidenceText())
	case FullHistoryEvidence:
		evidence = delimit("SOURCE_HISTORY", ev.History)
	default:
		text, ok := ev.Payload.(string)
		if !ok {
			s, err := pyjson.CanonicalJSON(ev.Payload)
			if err != nil {
				return nil, err
			}
			text = s
		}
		evidence = delimit("PERSISTENT_MEMORY", text)
	}
	request := d.RenderRequest(p)
	if ev.OperationalContext != "" {
		request = ev.OperationalContext + "\n\n" + request
	}
	user := evidence + "\n\n" + delimit("CURRENT_REQUEST", request) + "\n\n" + d.ExecutorInstruction()
	return []ChatMessage{{Role: "system", Content: d.SystemPrompt(c)}, {Role: "user", Content: user}}, nil
}

// ToolsTree is the domain's tools in the OpenAI function-tool JSON shape.
func ToolsTree(d ExecutorSurface) []any {
	tools := d.Tools()
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = map[string]any{
			"type": "function",
			"function": map[string]any{
				"name":        t.Name,
				"description": t.Description,
				"parameters":  t.Parameters,
			},
		}
	}
	return out
}

// RequestHash is EAL-Bench's executor ModelContext content_hash: the hash of
// {"messages", "tools", "tool_choice": "auto"}. Identical requests have identical hashes.
func RequestHash(messages []ChatMessage, tools []any) (string, error) {
	msgs := make([]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return pyjson.ContentHash(map[string]any{"messages": msgs, "tools": tools, "tool_choice": "auto"})
}
