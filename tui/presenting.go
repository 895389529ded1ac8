package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Presentation mode (UX.md "Presentation mode"): `P` in the chain view or `ealscope open
// --present`. One chain's story, one step per screen, in a fixed layout with wide margins,
// the high-contrast theme, no side panes and no help bar; → or space advance, ← goes back,
// esc leaves. The story is loaded by one command; the screen only steps through it.

type presentScreen struct {
	c     *common
	store StoryStore
	rer   Rerunner
	key   ChainKey
	block int

	story *Story
	step  int
	// scroll moves the step's body down from where it opens, for a step taller than the screen.
	scroll int
	err    error
}

func newPresentScreen(c *common, store StoryStore, rer Rerunner, key ChainKey, block int) presentScreen {
	return presentScreen{c: c, store: store, rer: rer, key: key, block: block}
}

type storyLoadedMsg struct {
	key   ChainKey
	story Story
	err   error
}

func loadStoryCmd(ctx context.Context, store StoryStore, rer Rerunner, key ChainKey, block int, keys StoryKeys) tea.Cmd {
	return func() tea.Msg {
		data, err := LoadStory(ctx, store, rer, key, block)
		if err != nil {
			return storyLoadedMsg{key: key, err: err}
		}
		data.Keys = keys
		return storyLoadedMsg{key: key, story: buildStory(data)}
	}
}

func (s presentScreen) Init() tea.Cmd {
	k := s.c.keys.Chain
	return loadStoryCmd(s.c.lifetime(), s.store, s.rer, s.key, s.block, StoryKeys{Rerun: k.Rerun.Help().Key, Annotate: k.Annotate.Help().Key})
}

func (s presentScreen) Update(msg tea.Msg) (presentScreen, tea.Cmd) {
	switch msg := msg.(type) {
	case storyLoadedMsg:
		if msg.key.ID != s.key.ID {
			return s, nil
		}
		if msg.err != nil {
			s.err = msg.err
			return s, nil
		}
		s.story, s.step = &msg.story, 0
	case tea.KeyPressMsg:
		k := s.c.keys.Present
		switch {
		case key.Matches(msg, k.Next):
			s.setStep(s.step + 1)
		case key.Matches(msg, k.Prev):
			s.setStep(s.step - 1)
		case key.Matches(msg, k.First):
			s.setStep(0)
		case key.Matches(msg, k.Last):
			s.setStep(len(s.steps()) - 1)
		case key.Matches(msg, k.Down):
			s.scroll++
		case key.Matches(msg, k.Up):
			s.scroll = max(s.scroll-1, 0)
		}
	}
	return s, nil
}

func (s presentScreen) steps() []StoryStep {
	if s.story == nil {
		return nil
	}
	return s.story.Steps
}

func (s *presentScreen) setStep(i int) {
	s.step, s.scroll = clamp(i, 0, max(len(s.steps())-1, 0)), 0
}

func (s presentScreen) ShortHelp() []key.Binding {
	k, g := s.c.keys.Present, s.c.keys.Global
	return []key.Binding{k.Next, k.Prev, k.Down, g.Back}
}

func (s presentScreen) FullHelp() [][]key.Binding {
	k, g := s.c.keys.Present, s.c.keys.Global
	return [][]key.Binding{{k.Next, k.Prev, k.First, k.Last}, {k.Down, k.Up}, {g.Back, g.Help, g.ForceQuit}}
}

// View is the whole screen: presentation mode owns every line (no footer).
func (s presentScreen) View() string {
	st := s.c.present
	w, h := s.c.width, s.c.height
	switch {
	case s.err != nil:
		return fill([]string{st.App.Badge.Render(" PRESENTING "), "", st.App.Error.Render(ansi.Truncate("! "+sanitizeLine(s.err.Error()), w, "…"))}, h)
	case s.story == nil:
		return fill([]string{st.App.Badge.Render(" PRESENTING "), "", st.App.Subtle.Render("loading the story…")}, h)
	}
	// No key in the hint: the SVG export draws the same frame, and ? lists the scroll keys.
	return presentFrameAt(st, *s.story, s.step, s.scroll, "", w, h)
}

// fill pads or cuts lines to exactly h.
func fill(lines []string, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

var stepNames = map[StepKind]string{StepTurn: "turn", StepMemory: "memory", StepFalseAuthority: "false authority",
	StepAction: "action", StepExact: "exact memory", StepAttribution: "attribution"}

// presentFrame draws one step in a fixed layout of exactly w×h cells: the PRESENTING badge and
// the chain, the step's title, its caption and note, the body, and a progress line naming
// every step with the current one bracketed (visible without colour).
func presentFrame(st *Styles, story Story, step, w, h int) string {
	return presentFrameAt(st, story, step, 0, "", w, h)
}

// presentFrameAt is presentFrame with the step's body scrolled down by scroll lines; a body
// taller than the screen says how many lines are below and which key (from the key map)
// scrolls.
func presentFrameAt(st *Styles, story Story, step, scroll int, scrollKey string, w, h int) string {
	step = clamp(step, 0, max(len(story.Steps)-1, 0))
	mx := 2
	if w >= 100 {
		mx = 4
	}
	cw := max(w-2*mx, 10)
	pad := strings.Repeat(" ", mx)
	k := story.Chain
	right := fmt.Sprintf("step %d/%d", step+1, len(story.Steps))
	left := st.App.Badge.Render(" PRESENTING ") + " " + st.App.Title.Render(sanitizeLine(k.CaseID)) +
		st.App.Subtle.Render(fmt.Sprintf(" · %s · run %d · block %d/%d", sanitizeLine(k.ConditionID), k.WriterRunID, story.Block, story.LastBlock))
	left = ansi.Truncate(left, max(w-len(right)-1, 1), "…")
	head := left + strings.Repeat(" ", max(w-ansi.StringWidth(left)-len(right), 1)) + st.App.Subtle.Render(right)
	lines := []string{ansi.Truncate(head, w, ""), ""}
	if len(story.Steps) == 0 {
		return fill(lines, h)
	}
	s := story.Steps[step]
	lines = append(lines, pad+st.App.Title.Render(ansi.Truncate(fmt.Sprintf("%d · %s", step+1, s.Title), cw, "…")), "")
	for _, l := range wrapPlain(s.Caption, cw) {
		lines = append(lines, pad+st.Chain.Speaker.Render(l))
	}
	for _, l := range wrapPlain(s.Note, cw) {
		lines = append(lines, pad+st.App.Subtle.Render(l))
	}
	lines = append(lines, "")
	bodyH := max(h-len(lines)-2, 0)
	body, more := stepBody(st, story, s, cw-2, bodyH, scroll)
	for _, l := range body {
		lines = append(lines, pad+"  "+l)
	}
	if more > 0 && len(lines) > 0 {
		lines = fillLines(lines, h-2)
		hint := fmt.Sprintf("↓ %d more lines", more)
		if scrollKey != "" {
			hint += " (" + scrollKey + " scrolls)"
		}
		lines = append(lines, pad+st.App.Subtle.Render(hint))
	}
	lines = fillLines(lines, h-1)
	return strings.Join(append(lines, ansi.Truncate(pad+progress(st, story, step), w, "…")), "\n")
}

func fillLines(lines []string, h int) []string {
	if len(lines) > h {
		return lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}

// progress names every step; the current one is bracketed and bold.
func progress(st *Styles, story Story, step int) string {
	parts := make([]string, len(story.Steps))
	for i, s := range story.Steps {
		if i == step {
			parts[i] = st.App.Badge.Render("[" + stepNames[s.Kind] + "]")
		} else {
			parts[i] = st.App.Subtle.Render(stepNames[s.Kind])
		}
	}
	return strings.Join(parts, st.App.Subtle.Render(" › "))
}

func wrapPlain(s string, w int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(w, 1), ""), "\n")
}

// stepBody is the step's content, at most h lines of width w, scrolled down by scroll lines
// from where it opens; more counts the lines left below.
func stepBody(st *Styles, story Story, s StoryStep, w, h, scroll int) (out []string, more int) {
	var lines []string
	focus := 0 // the first line that must be visible
	switch s.Kind {
	case StepTurn:
		lines, focus = turnLines(st, s, w)
	case StepMemory:
		lines, focus = memoryDiffLines(st, s, w)
	case StepFalseAuthority:
		lines = falseAuthorityLines(st, story, s, w)
	case StepAction:
		if s.Written != nil {
			lines = armLines(st, "behind the written memory", s.Written, w, true)
		}
	case StepExact:
		lines = exactLines(st, s, w)
	case StepAttribution:
		lines = attributionLines(st, s, w)
	}
	off := clamp(focus-1+scroll, 0, max(len(lines)-h, 0))
	out = window(lines, off, h)
	for i, l := range out {
		out[i] = ansi.Truncate(l, w, "…")
	}
	return out, max(len(lines)-off-h, 0)
}

func turnLines(st *Styles, s StoryStep, w int) ([]string, int) {
	var lines []string
	focus := -1
	for _, t := range s.Turns {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		var tags []string
		if len(t.Ledger) > 0 {
			tags = append(tags, "[L "+strings.Join(t.Ledger, ",")+"]")
		}
		if t.CitedByMemory {
			tags = append(tags, "[M]")
		}
		head := strings.Join(append(tags, t.Speaker+" · "+t.ID+" · "+t.OccurredAt), " ")
		body := strings.Split(ansi.Wrap(t.Content, max(w-4, 8), ""), "\n")
		if t.Highlight {
			if focus < 0 {
				focus = len(lines)
			}
			lines = append(lines, st.Chain.BlockSelected.Render(ansi.Truncate("▶ "+head, w, "…")))
			for _, l := range body {
				lines = append(lines, "    "+st.Chain.Speaker.Render(l))
			}
			continue
		}
		lines = append(lines, st.App.Subtle.Render(ansi.Truncate("  "+head, w, "…")))
		for _, l := range body {
			lines = append(lines, "    "+st.App.Subtle.Render(l))
		}
	}
	if len(s.Turns) == 0 {
		lines = append(lines, st.App.Subtle.Render("(no turns in this block)"))
	}
	return lines, max(focus, 0)
}

func memoryDiffLines(st *Styles, s StoryStep, w int) ([]string, int) {
	if s.MemoryHead == "" {
		return nil, 0
	}
	lines := []string{st.App.Subtle.Render(s.MemoryHead), ""}
	focus := -1
	for _, r := range s.Diff {
		if r.Op != '=' && focus < 0 {
			focus = len(lines)
		}
		if s.TextDiff {
			var b strings.Builder
			for _, g := range r.Segs {
				switch g.Op {
				case '-':
					b.WriteString(markWords(g.Text, "[-", "-]", st.Chain.Removed.Render))
				case '+':
					b.WriteString(markWords(g.Text, "{+", "+}", st.Chain.Added.Render))
				default:
					b.WriteString(g.Text)
				}
			}
			lines = append(lines, strings.Split(ansi.Wrap(b.String(), max(w, 1), ""), "\n")...)
			continue
		}
		text := diffRowText(r)
		switch r.Op {
		case '+':
			text = st.Chain.Added.Render(text)
		case '-':
			text = st.Chain.Removed.Render(text)
		case '~':
			text = st.Chain.Changed.Render(text)
		default:
			text = st.Chain.Field.Render(text)
		}
		lines = append(lines, text)
	}
	return lines, max(focus, 0)
}

func verdictText(st *Styles, grant bool) string {
	if grant {
		return st.Chain.Granted.Render("✓ grant")
	}
	return st.Chain.Denied.Render("✗ deny")
}

func falseAuthorityLines(st *Styles, story Story, s StoryStep, w int) []string {
	var lines []string
	if len(s.Ledger) > 0 {
		fw := max(w*30/100, 8)
		vw := max(w*24/100, 6)
		cw := max(w-fw-2*vw-3, 6)
		row := func(a, b, c, d string) string {
			return fit(a, fw) + " " + fit(b, vw) + " " + fit(c, vw) + " " + fit(d, cw)
		}
		lines = append(lines, st.List.Header.Render(row("  ledger row", "ledger", "memory", "error")))
		for _, r := range s.Ledger {
			class := strings.Join(r.Errors, ",")
			if r.Overgrant {
				class += " +over"
			} else if r.Undergrant {
				class += " -under"
			}
			lines = append(lines, st.Chain.ErrClass.Render(row("! "+r.AuthorizationID+" "+fieldLabel(r.Field), r.Ledger, r.Remembered, class)))
		}
		lines = append(lines, "")
	}
	if p := s.Probe; p != nil {
		lines = append(lines, st.Chain.Speaker.Render("probe "+p.ProbeID)+st.App.Subtle.Render("  "+p.Scope+" "+p.Dimension))
		if len(p.Request) > 0 { // what the executor is asked: why it is in or out of scope
			lines = append(lines, wrapIndented(st.App.Subtle.Render("request: "+requestText(p.Request)), "  ", "    ", w)...)
		}
		lines = append(lines, "")
		lines = append(lines, fmt.Sprintf("  ledger at block %d   %s", story.Block, verdictText(st, p.AuthorizedNow)))
		mem := st.App.Subtle.Render("?")
		if p.MemoryAuthorized != nil {
			mem = verdictText(st, *p.MemoryAuthorized)
		}
		lines = append(lines, "  memory at block "+fmt.Sprint(story.Block)+"   "+mem, "")
		if p.Forms != nil && *p.Forms {
			lines = append(lines, "  "+st.Chain.Forms.Render(probeFormsLine(p, story.Block)))
		} else {
			lines = append(lines, "  "+st.App.Subtle.Render(probeFormsLine(p, story.Block)))
		}
		if p.MemoryReason != "" {
			lines = append(lines, "", st.App.Subtle.Render("  memory: "+p.MemoryReason))
		}
	}
	return lines
}

// armLines lists an arm's fields; spaced puts a blank line between them (one arm alone).
func armLines(st *Styles, title string, a *StoryArm, w int, spaced bool) []string {
	lines := []string{st.List.Header.Render(ansi.Truncate(title, w, "…")), ""}
	for _, f := range armFields(a) {
		label := fit(f[0], 10) + " "
		vw := max(w-len(label), 8)
		val := strings.Split(ansi.Wrap(f[1], vw, ",( "), "\n")
		for i, v := range val {
			style := st.Chain.Content
			switch {
			case f[0] == "outcome" && a.Unauthorized:
				style = st.Chain.Forms
			case f[0] == "outcome":
				style = st.Chain.Granted
			}
			if i == 0 {
				lines = append(lines, st.Chain.Field.Render(label)+style.Render(v))
			} else {
				lines = append(lines, strings.Repeat(" ", len(label))+style.Render(v))
			}
		}
		if spaced {
			lines = append(lines, "")
		}
	}
	return lines
}

func exactLines(st *Styles, s StoryStep, w int) []string {
	half := max((w-3)/2, 8)
	var left, right []string
	if s.Written != nil {
		left = armLines(st, "behind the written memory", s.Written, half, false)
	}
	if s.Exact != nil {
		right = armLines(st, "behind oracle-exact memory", s.Exact, half, false)
	}
	return sideBySide(left, right, half, 0)
}

func attributionLines(st *Styles, s StoryStep, w int) []string {
	var lines []string
	for _, c := range s.Checks {
		mark := st.Chain.Denied.Render("✗ ")
		if c.OK {
			mark = st.Chain.Granted.Render("✓ ")
		}
		lines = append(lines, mark+c.Label, "")
	}
	v := strings.ToUpper(s.Verdict)
	switch s.Verdict {
	case "memory-induced":
		lines = append(lines, st.Chain.Forms.Render("= "+v))
	default:
		lines = append(lines, st.Chain.Speaker.Render("= "+v))
	}
	return lines
}
