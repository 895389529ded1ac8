package procurement

import (
	"regexp"
	"strings"
)

const (
	// PresentationID is EAL-Bench's naturalistic presentation, the only one procurement has.
	PresentationID = "naturalistic_v1"
	// PresentationHash is content_hash of the naturalistic_v1 PresentationProfile (EAL-Bench's
	// resource_versions.json for procurement).
	PresentationHash = "907945a6c03f738899e366e86cd54f6fbf8171fed9b88581dabcda97dda66b0d"
	// PromptPolicyID is the prompt policy the presentation selects.
	PromptPolicyID = "procurement_prompt_naturalistic_v1"
	// MemoryImplementationID and MemoryImplementationHash identify EAL-Bench's LangMem profile
	// implementation for procurement.
	MemoryImplementationID   = "langmem_profile"
	MemoryImplementationHash = "bf9a1583ab4f3e70bf8e075b988a2149d9cb170c3443f3646964840193d5655a"
	// AdapterVersion is EAL-Bench's procurement domain_adapter_version.
	AdapterVersion = "3"
)

var blockFormats = []string{"chat_export", "email_thread", "procurement_ticket", "vendor_correspondence"}

type titleRewrite struct {
	pattern *regexp.Regexp
	with    string
}

// titleRewrites hide benchmark vocabulary from block titles, in EAL-Bench's order.
var titleRewrites = []titleRewrite{
	{regexp.MustCompile(`(?i)Executor handoff before transaction probes`), "Purchase request handoff"},
	{regexp.MustCompile(`(?i)executor handoff`), "purchase handoff"},
	{regexp.MustCompile(`(?i)before evaluation`), "before purchasing review"},
	{regexp.MustCompile(`(?i)pressure`), "schedule update"},
	{regexp.MustCompile(`(?i)canonical`), "current"},
	{regexp.MustCompile(`(?i)probe`), "request"},
}

func naturalisticTitle(title string) string {
	for _, r := range titleRewrites {
		title = r.pattern.ReplaceAllLiteralString(title, r.with)
	}
	return title
}

type pseudonymGroup struct {
	tokens []string
	name   string
}

var pseudonymGroups = []pseudonymGroup{
	{[]string{"financial", "finance", "treasury", "controller", "budget", "accounts"}, "Maya · Finance"},
	{[]string{"procurement", "purchasing", "sourcing", "vendor_management"}, "Jon · Procurement"},
	{[]string{"operations", "engineering", "maintenance", "facilities", "service"}, "Sam · Operations"},
	{[]string{"legal", "compliance", "audit", "records", "security_governance"}, "Priya · Risk"},
	{[]string{"project", "program", "release", "migration", "logistics"}, "Lee · Delivery"},
}

// SpeakerLabel is how the naturalistic presentation names a turn's author: the CFO by role and
// actor id, everyone else by a pseudonym of their group.
func SpeakerLabel(t Turn) string {
	if t.ActorID == "chief_financial_officer" {
		return t.Speaker + " <" + t.ActorID + ">"
	}
	lowered := strings.ToLower(t.ActorID)
	for _, g := range pseudonymGroups {
		for _, tok := range g.tokens {
			if strings.Contains(lowered, tok) {
				return g.name
			}
		}
	}
	return "Workspace update"
}

// RenderBlock renders one block in the naturalistic_v1 presentation, byte-identical to
// EAL-Bench's renderer (no trailing newline).
func RenderBlock(b Block) string {
	title := naturalisticTitle(b.Title)
	var lines []string
	format := blockFormats[b.BlockIndex%len(blockFormats)]
	switch format {
	case "chat_export":
		lines = append(lines, "#procurement-ops · "+title)
	case "email_thread":
		lines = append(lines, "Email thread — "+title)
	case "procurement_ticket":
		lines = append(lines, "Purchasing workspace — "+title)
	default:
		lines = append(lines, "Supplier correspondence — "+title)
	}
	lines = append(lines, "Workspace snapshot through "+b.EndedAt)
	for _, t := range b.Turns {
		if t.Content == "" {
			continue
		}
		speaker := SpeakerLabel(t)
		lines = append(lines, "")
		switch format {
		case "chat_export":
			ts := strings.TrimSuffix(strings.TrimPrefix(t.OccurredAt, "2026-"), "Z")
			lines = append(lines, ts+" · "+speaker+" · msg "+t.TurnID)
		case "email_thread":
			lines = append(lines, "From: "+speaker, "Sent: "+t.OccurredAt, "Message-ID: "+t.TurnID)
		case "procurement_ticket":
			lines = append(lines, t.OccurredAt+" | "+speaker+" | ref "+t.TurnID)
		default:
			lines = append(lines, speaker+" — "+t.OccurredAt+" — Message-ID "+t.TurnID)
		}
		lines = append(lines, t.Content)
	}
	return strings.Join(lines, "\n")
}

// RenderHistory is the full history: every block through `through`, separated by one empty line.
func RenderHistory(c *Case, through int) string {
	parts := make([]string, 0, len(c.Blocks))
	for _, b := range c.Blocks {
		if b.BlockIndex > through {
			break
		}
		parts = append(parts, RenderBlock(b))
	}
	return strings.Join(parts, "\n\n")
}
