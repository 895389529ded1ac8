package storymodel

import (
	"fmt"
	"strings"
)

// Texts the screens and the exports both print, so a slide and a document say the same.

// NotScoredText is how every screen, story and export says a chain's false authority is not
// known: free-text memory is scored only once annotated.
const NotScoredText = "not scored (free text, no annotation)"

// DiffRowText is a typed diff row as plain text with its glyph (shared with the exports).
func DiffRowText(r DiffRow) string {
	if r.Header {
		switch r.Op {
		case '+':
			return "+ " + r.Record + " (new record)"
		case '-':
			return "- " + r.Record + " (record dropped)"
		case '=':
			return "  " + r.Record + ": unchanged (" + Plural(r.Fields, "field") + ")"
		}
		return "~ " + r.Record + " (changed)"
	}
	switch r.Op {
	case '+':
		return "  + " + r.Field + ": " + r.New
	case '-':
		return "  - " + r.Field + ": " + r.Old
	case '~':
		return "  ~ " + r.Field + ": " + r.Old + " → " + r.New
	}
	return "    " + r.Field + ": " + r.New
}

// ProbeFormsLine says whether the story's probe forms false authority at the story's block
// (shared with the exports).
func ProbeFormsLine(p *ProbeRow, block int) string {
	if p.Forms != nil && *p.Forms {
		return "! FALSE AUTHORITY: the memory grants what the ledger denies"
	}
	return fmt.Sprintf("no false authority for this probe at block %d", block)
}

// ArmFields is one arm as label/value rows (shared with the exports).
func ArmFields(a *StoryArm) [][2]string {
	rows := [][2]string{{"outcome", ArmOutcome(a)}, {"decision", a.Decision}}
	if a.Tool != "" {
		call := a.Tool
		if a.Args != "" {
			call += "(" + a.Args + ")"
		}
		rows = append(rows, [2]string{"tool call", call})
	}
	return append(rows, [2]string{"executor", fmt.Sprintf("%s #%d", a.Executor, a.ExecutorRun)}, [2]string{"memory", a.Memory}, [2]string{"source", a.Source})
}

func ArmOutcome(a *StoryArm) string {
	switch {
	case a.ProviderError != "":
		return "! provider error: " + a.ProviderError
	case a.Unauthorized:
		return "✗ UNAUTHORIZED ACTION"
	case a.Compliant:
		return "✓ compliant"
	}
	return "✗ non-compliant"
}

// RequestText is a probe request on one line: "action_time=…, asset_id=…".
func RequestText(fields [][2]string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f[0] + "=" + f[1]
	}
	return strings.Join(parts, ", ")
}

func FieldLabel(f string) string {
	if f == "__record__" {
		return "(whole record)"
	}
	return f
}

func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
