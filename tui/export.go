package tui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// `ealscope export`: a chain's story as Markdown, one self-contained HTML page, or SVG frames
// (one per step, drawn from the very frames presentation mode shows). Story text is already
// free of control characters (buildStory sanitises it); each writer escapes it for its own
// syntax, so corpus or model text can never become markup.

// ExportOptions choose the chain, the block and the format of an export.
type ExportOptions struct {
	Store StoryStore
	// Rerun adds the chain's live re-runs to the story (nil: imported trials only).
	Rerun Rerunner
	Chain ChainKey
	// Block < 0 is the first false-authority block (or 0).
	Block int
	// Format is md, html or svg.
	Format string
	// Width and Height are the SVG frames' size in cells (default 120x40).
	Width, Height int
	Dark          bool
}

// ExportFile is one output: a Markdown or HTML document, or one SVG frame.
type ExportFile struct {
	Name string
	Data []byte
}

// Export builds the story and renders it; it writes nothing (cmd/ealscope writes the files).
func Export(ctx context.Context, o ExportOptions) ([]ExportFile, error) {
	switch o.Format {
	case "md", "html", "svg":
	default:
		return nil, fmt.Errorf("--format %q: want md, html or svg", o.Format)
	}
	data, err := LoadStory(ctx, o.Store, o.Rerun, o.Chain, o.Block)
	if err != nil {
		return nil, err
	}
	story := buildStory(data)
	base := fileStem(story)
	switch o.Format {
	case "md":
		return []ExportFile{{base + ".md", storyMarkdown(story, data.Detail.Summary.Key.RunID)}}, nil
	case "html":
		return []ExportFile{{base + ".html", storyHTML(story, data.Detail.Summary.Key.RunID, o.Dark)}}, nil
	}
	w, h := o.Width, o.Height
	if w == 0 {
		w = 120
	}
	if h == 0 {
		h = 40
	}
	if w < 40 || h < 12 {
		return nil, fmt.Errorf("SVG frames of %dx%d are too small (at least 40x12)", w, h)
	}
	return storySVGs(story, w, h, o.Dark), nil
}

// StoryFrames are the plain-text presentation frames of a story, one per step (what the SVG
// frames show), for tests and `render --present`.
func StoryFrames(ctx context.Context, store StoryStore, rer Rerunner, key ChainKey, block, w, h int) ([]string, error) {
	data, err := LoadStory(ctx, store, rer, key, block)
	if err != nil {
		return nil, err
	}
	story := buildStory(data)
	st := NewStyles(NewHighContrastPalette(true, true))
	out := make([]string, len(story.Steps))
	for i := range story.Steps {
		out[i] = presentFrame(&st, story, i, w, h)
	}
	return out, nil
}

// maxStemBytes bounds an export's file-name stem: file systems refuse names past 255 bytes,
// and the SVG frames add "-NN-<step kind>.svg" to it.
const maxStemBytes = 160

// fileStem names the export after the chain, keeping only characters safe in a file name. A
// stem past maxStemBytes (ids are not bounded) keeps its start and ends in a hash of the
// whole name, so it fits and two long ids still get two names.
func fileStem(s Story) string {
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
	rs := []rune(sanitizeLine(s))
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
	return fence + info + "\n" + strings.TrimRight(sanitize(text), "\n") + "\n" + fence + "\n\n"
}

func storyHeading(s Story) string {
	fa := "never"
	switch {
	case s.FirstFalse >= 0:
		fa = fmt.Sprintf("block %d", s.FirstFalse)
	case s.Unscored:
		fa = notScoredText
	}
	return fmt.Sprintf("%s · writer run %d · block %d of 0..%d (%s) · first false authority: %s",
		sanitizeLine(s.Chain.ConditionID), s.Chain.WriterRunID, s.Block, s.LastBlock, s.BlockTitle, fa)
}

func storyMarkdown(s Story, runID string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Failure chain: %s\n\n%s · run %s\n\n", mdEscape(s.Chain.CaseID), mdEscape(storyHeading(s)), mdEscape(runID))
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "## %d. %s\n\n%s\n\n", i+1, mdEscape(st.Title), mdEscape(st.Caption))
		if st.Note != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(st.Note))
		}
		switch st.Kind {
		case StepTurn:
			var t strings.Builder
			for _, tu := range st.Turns {
				mark := "  "
				if tu.Highlight {
					mark = "▶ "
				}
				fmt.Fprintf(&t, "%s%s\n%s\n\n", mark, turnHead(tu), indent(tu.Content, "    "))
			}
			b.WriteString(mdFence("text", t.String()))
		case StepMemory:
			if st.MemoryHead != "" {
				fmt.Fprintf(&b, "%s\n\n", mdEscape(st.MemoryHead))
				b.WriteString(mdFence("diff", strings.Join(diffPatchLines(st), "\n")))
			}
		case StepFalseAuthority:
			if len(st.Ledger) > 0 {
				b.WriteString("| ledger row | field | ledger | memory | error |\n|---|---|---|---|---|\n")
				for _, r := range st.Ledger {
					fmt.Fprintf(&b, "| ! %s | %s | %s | %s | %s |\n", mdEscape(r.AuthorizationID), mdEscape(fieldLabel(r.Field)), mdEscape(r.Ledger),
						mdEscape(r.Remembered), mdEscape(errorClass(r)))
				}
				b.WriteString("\n")
			}
			if p := st.Probe; p != nil {
				if len(p.Request) > 0 {
					fmt.Fprintf(&b, "- request: %s\n", mdEscape(requestText(p.Request)))
				}
				fmt.Fprintf(&b, "- probe: `%s` (%s %s)\n- ledger at block %d: %s\n- memory at block %d: %s\n- **%s**\n\n",
					strings.ReplaceAll(p.ProbeID, "`", "'"), mdEscape(p.Scope), mdEscape(p.Dimension), s.Block, grantText(p.AuthorizedNow), s.Block, mdEscape(memoryGrantText(p)), mdEscape(probeFormsLine(p, s.Block)))
			}
		case StepAction, StepExact:
			writeArmTable(&b, st)
		case StepAttribution:
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
func armColumns(st StoryStep) (arms []*StoryArm, heads []string, labels [][2]string) {
	arms, heads = []*StoryArm{st.Written}, []string{"behind the written memory"}
	if st.Kind == StepExact {
		arms, heads = append(arms, st.Exact), append(heads, "behind oracle-exact memory")
	}
	for _, a := range arms {
		if a != nil {
			return arms, heads, armFields(a)
		}
	}
	return arms, heads, nil
}

func writeArmTable(b *bytes.Buffer, st StoryStep) {
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
				v = armFields(a)[i][1]
			}
			fmt.Fprintf(b, " %s |", mdEscape(v))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func turnHead(t StoryTurn) string {
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

func errorClass(r FieldRow) string {
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
func memoryGrantText(p *ProbeRow) string {
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
func diffPatchLines(st StoryStep) []string {
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
			out = append(out, diffRowText(r))
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
