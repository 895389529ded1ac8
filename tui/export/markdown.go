// Package export writes a chain's story as Markdown, one self-contained HTML page, or SVG
// frames (the TUI draws the frames; this package turns them into SVG). Story text is already
// free of control characters (the TUI's story builder sanitises it); each writer escapes it for
// its own syntax, so corpus or model text can never become markup. It imports nothing of the
// TUI but the story's rows (tui/storymodel), so the TUI can call it.
package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/tui/storymodel"
)

// File is one output: a Markdown or HTML document, or one SVG frame.
type File struct {
	Name string
	Data []byte
}

// Markdown is the story as a Markdown document named after the chain.
func Markdown(s storymodel.Story, runID string) File {
	return File{FileStem(s) + ".md", storyMarkdown(s, runID)}
}

// HTML is the story as one self-contained HTML page named after the chain.
func HTML(s storymodel.Story, runID string, dark bool) File {
	return File{FileStem(s) + ".html", storyHTML(s, runID, dark)}
}

// MarkdownEscape escapes untrusted text for a Markdown paragraph or table cell.
func MarkdownEscape(s string) string { return mdEscape(s) }

// maxStemBytes bounds an export's file-name stem: file systems refuse names past 255 bytes,
// and the SVG frames add "-NN-<step kind>.svg" to it.
const maxStemBytes = 160

// FileStem names the export after the chain, keeping only characters safe in a file name. A
// stem past maxStemBytes (ids are not bounded) keeps its start and ends in a hash of the
// whole name, so it fits and two long ids still get two names.
func FileStem(s storymodel.Story) string {
	name := fmt.Sprintf("%s-%s-run%d-block%d", s.Chain.CaseID, s.Chain.ConditionID, s.Chain.WriterRunID, s.Block)
	stem := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, name)
	if len(stem) <= maxStemBytes {
		return stem
	}
	sum := sha256.Sum256([]byte(name))
	return stem[:maxStemBytes-17] + "-" + hex.EncodeToString(sum[:8])
}

// mdEscape backslash-escapes the characters that could start Markdown or HTML syntax inside
// a paragraph or a table cell (CommonMark allows a backslash before any ASCII punctuation).
// GFM also turns bare "https://...", "www....", "mailto:..." and e-mail addresses into live
// links: escaping every ':' and '@', and the '.' after "www", leaves no autolink trigger, so
// untrusted text never becomes a link (the rendered text is unchanged).
func mdEscape(s string) string {
	var b strings.Builder
	rs := []rune(safetext.Line(s))
	for i, r := range rs {
		afterWWW := r == '.' && i >= 3 && strings.EqualFold(string(rs[i-3:i]), "www")
		if strings.ContainsRune("\\`*_{}[]<>#!|~&$:@", r) || afterWWW {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdFence wraps text in a fenced block whose fence is longer than any backtick run inside,
// so the text cannot close the block early.
func mdFence(info, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + strings.TrimRight(safetext.Print(text), "\n") + "\n" + fence + "\n\n"
}

func storyHeading(s storymodel.Story) string {
	fa := "never"
	switch {
	case s.FirstFalse >= 0:
		fa = fmt.Sprintf("block %d", s.FirstFalse)
	case s.Unscored:
		fa = storymodel.NotScoredText
	}
	return fmt.Sprintf("%s · writer run %d · block %d of 0..%d (%s) · first false authority: %s",
		safetext.Line(s.Chain.ConditionID), s.Chain.WriterRunID, s.Block, s.LastBlock, s.BlockTitle, fa)
}

func storyMarkdown(s storymodel.Story, runID string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Failure chain: %s\n\n%s · run %s\n\n", mdEscape(s.Chain.CaseID), mdEscape(storyHeading(s)), mdEscape(runID))
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "## %d. %s\n\n%s\n\n", i+1, mdEscape(st.Title), mdEscape(st.Caption))
		if st.Note != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(st.Note))
		}
		switch st.Kind {
		case storymodel.StepTurn:
			var t strings.Builder
			for _, tu := range st.Turns {
				mark := "  "
				if tu.Highlight {
					mark = "▶ "
				}
				fmt.Fprintf(&t, "%s%s\n%s\n\n", mark, turnHead(tu), indent(tu.Content, "    "))
			}
			b.WriteString(mdFence("text", t.String()))
		case storymodel.StepMemory:
			if st.MemoryHead != "" {
				fmt.Fprintf(&b, "%s\n\n", mdEscape(st.MemoryHead))
				b.WriteString(mdFence("diff", strings.Join(diffPatchLines(st), "\n")))
			}
		case storymodel.StepFalseAuthority:
			if len(st.Ledger) > 0 {
				b.WriteString("| ledger row | field | ledger | memory | error |\n|---|---|---|---|---|\n")
				for _, r := range st.Ledger {
					fmt.Fprintf(&b, "| ! %s | %s | %s | %s | %s |\n", mdEscape(r.AuthorizationID), mdEscape(storymodel.FieldLabel(r.Field)), mdEscape(r.Ledger),
						mdEscape(r.Remembered), mdEscape(errorClass(r)))
				}
				b.WriteString("\n")
			}
			if p := st.Probe; p != nil {
				if len(p.Request) > 0 {
					fmt.Fprintf(&b, "- request: %s\n", mdEscape(storymodel.RequestText(p.Request)))
				}
				fmt.Fprintf(&b, "- probe: `%s` (%s %s)\n- ledger at block %d: %s\n- memory at block %d: %s\n- **%s**\n\n",
					strings.ReplaceAll(p.ProbeID, "`", "'"), mdEscape(p.Scope), mdEscape(p.Dimension), s.Block, grantText(p.AuthorizedNow), s.Block, mdEscape(memoryGrantText(p)), mdEscape(storymodel.ProbeFormsLine(p, s.Block)))
			}
		case storymodel.StepAction, storymodel.StepExact:
			writeArmTable(&b, st)
		case storymodel.StepAttribution:
			for _, c := range st.Checks {
				fmt.Fprintf(&b, "- %s %s\n", checkGlyph(c.OK), mdEscape(c.Label))
			}
			fmt.Fprintf(&b, "\n**= %s**\n\n", mdEscape(strings.ToUpper(st.Verdict)))
		}
	}
	b.WriteString("Legend: `+` added, `-` removed, `~` changed, `!` false authority or error, `✓` grant or held, `✗` deny or not held.\n")
	return b.Bytes()
}

// armColumns are what a step's arm table compares: the written arm (and on an exact step the
// oracle-exact one), their headings, and the field labels of the first arm that ran (nil:
// none did, and there is no table).
func armColumns(st storymodel.StoryStep) (arms []*storymodel.StoryArm, heads []string, labels [][2]string) {
	arms, heads = []*storymodel.StoryArm{st.Written}, []string{"behind the written memory"}
	if st.Kind == storymodel.StepExact {
		arms, heads = append(arms, st.Exact), append(heads, "behind oracle-exact memory")
	}
	for _, a := range arms {
		if a != nil {
			return arms, heads, storymodel.ArmFields(a)
		}
	}
	return arms, heads, nil
}

func writeArmTable(b *bytes.Buffer, st storymodel.StoryStep) {
	arms, heads, rows := armColumns(st)
	if rows == nil {
		return
	}
	b.WriteString("| |")
	for _, h := range heads {
		b.WriteString(" " + h + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(heads)) + "\n")
	for i, r := range rows {
		fmt.Fprintf(b, "| %s |", mdEscape(r[0]))
		for _, a := range arms {
			v := "—"
			if a != nil {
				v = storymodel.ArmFields(a)[i][1]
			}
			fmt.Fprintf(b, " %s |", mdEscape(v))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func turnHead(t storymodel.StoryTurn) string {
	var tags []string
	if len(t.Ledger) > 0 {
		tags = append(tags, "[L "+strings.Join(t.Ledger, ",")+"]")
	}
	if t.CitedByMemory {
		tags = append(tags, "[M]")
	}
	return strings.Join(append(tags, t.Speaker+" · "+t.ID+" · "+t.OccurredAt), " ")
}

func indent(s, pad string) string {
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

func errorClass(r storymodel.FieldRow) string {
	class := strings.Join(r.Errors, ", ")
	if r.Overgrant {
		class += " (+ overgrant)"
	} else if r.Undergrant {
		class += " (- undergrant)"
	}
	return class
}

func grantText(ok bool) string {
	if ok {
		return "✓ grant"
	}
	return "✗ deny"
}

// memoryGrantText is what the memory version grants for the probe ("?" when it cannot be
// scored).
func memoryGrantText(p *storymodel.ProbeRow) string {
	if p.MemoryAuthorized == nil {
		return "?"
	}
	return grantText(*p.MemoryAuthorized)
}

func checkGlyph(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// diffPatchLines is a memory diff in unified-diff style: '+'/'-' lines, a changed field as
// its old and its new line, free text as whole old and new lines.
func diffPatchLines(st storymodel.StoryStep) []string {
	var out []string
	for _, r := range st.Diff {
		if st.TextDiff {
			var old, nw strings.Builder
			for _, g := range r.Segs {
				if g.Op != '+' {
					old.WriteString(g.Text)
				}
				if g.Op != '-' {
					nw.WriteString(g.Text)
				}
			}
			if r.Op == '=' {
				out = append(out, "  "+nw.String())
				continue
			}
			if strings.TrimSpace(old.String()) != "" {
				out = append(out, "- "+old.String())
			}
			out = append(out, "+ "+nw.String())
			continue
		}
		switch {
		case r.Header:
			out = append(out, storymodel.DiffRowText(r))
		case r.Op == '~':
			out = append(out, "-   "+r.Field+": "+r.Old, "+   "+r.Field+": "+r.New)
		case r.Op == '+':
			out = append(out, "+   "+r.Field+": "+r.New)
		case r.Op == '-':
			out = append(out, "-   "+r.Field+": "+r.Old)
		default:
			out = append(out, "    "+r.Field+": "+r.New)
		}
	}
	return out
}
