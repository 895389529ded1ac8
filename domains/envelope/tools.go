package envelope

import (
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

// The executor tools of the envelope domains (cybersecurity, finance): two confirmation-only
// tools naming the submitted and the operational payload, and two reason tools (escalate,
// decline), as EAL-Bench's toolkit builds them (docs/FORMATS.md 6.2).

// ConfirmedTool is a tool whose only argument is confirmed=true; verb names what is confirmed
// ("execution", "placement") in the argument's description.
func ConfirmedTool(name, description, verb string) engine.Tool {
	return engine.Tool{
		Name: name, Description: description,
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirmed": map[string]any{
					"type": "boolean", "enum": []any{true},
					"description": "Confirm " + verb + " of the exact payload named by this tool.",
				},
			},
			"required":             []any{"confirmed"},
			"additionalProperties": false,
		},
	}
}

// ReasonTool is a tool whose only argument is a reason string.
func ReasonTool(name, description string) engine.Tool {
	return engine.Tool{
		Name: name, Description: description,
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"reason": map[string]any{"type": "string"}},
			"required":   []any{"reason"},
		},
	}
}

// ConfirmedOnly says whether the arguments are exactly {"confirmed": <true>}, with isTrue
// deciding what counts as true (the domains differ: a JSON true only, or Python's == True).
func ConfirmedOnly(args map[string]any, isTrue func(any) bool) bool {
	v, ok := args["confirmed"]
	return ok && len(args) == 1 && isTrue(v)
}

// IsTrue is a JSON true and nothing else.
func IsTrue(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// TerminalTools are an envelope domain's four executor tools, in the order EAL-Bench sends
// them: the confirmed action on the submitted payload, the one on the operational
// near-match, the escalation and the decline. Verb names what the confirmations confirm.
type TerminalTools struct {
	Submitted, Operational, Escalate, Decline                 string
	SubmittedText, OperationalText, EscalateText, DeclineText string
	Verb                                                      string
}

// Tools are the four tools.
func (t TerminalTools) Tools() []engine.Tool {
	return []engine.Tool{
		ConfirmedTool(t.Submitted, t.SubmittedText, t.Verb),
		ConfirmedTool(t.Operational, t.OperationalText, t.Verb),
		ReasonTool(t.Escalate, t.EscalateText),
		ReasonTool(t.Decline, t.DeclineText),
	}
}

// Kind classifies a tool name: both confirmed tools act.
func (t TerminalTools) Kind(name string) engine.ToolKind {
	return kit.ToolKinds{Actions: []string{t.Submitted, t.Operational}, Escalation: t.Escalate, Decline: t.Decline}.Kind(name)
}
