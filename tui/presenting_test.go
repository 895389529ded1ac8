package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// newPresentApp opens the fixture's forming chain in the chain view and presses P.
func newPresentApp(t *testing.T, w, h int) (Model, string) {
	t.Helper()
	m, runID := newChainApp(t, w, h)
	m = press(t, m, "P")
	if m.top() != screenPresent {
		t.Fatalf("P did not open presentation mode (top screen %d)", m.top())
	}
	if m.present.story == nil {
		t.Fatalf("the story did not load: %v", m.present.err)
	}
	return m, runID
}

// TestPresentationGolden: every step of the built-in chain's story at both sizes. The frames
// fill the screen exactly, carry the PRESENTING badge and no help bar.
func TestPresentationGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m, runID := newPresentApp(t, sz.w, sz.h)
		steps := m.present.steps()
		if len(steps) != 6 {
			t.Fatalf("the fixture chain's story has %d steps, want all 6 (turn to attribution)", len(steps))
		}
		for i, st := range steps {
			t.Run(fmt.Sprintf("%dx%d/%d_%s", sz.w, sz.h, i+1, st.Kind), func(t *testing.T) {
				out := frame(m, runID)
				assertFits(t, out, sz.w, sz.h)
				if !strings.Contains(out, "PRESENTING") || !strings.Contains(out, "["+stepNames[st.Kind]+"]") {
					t.Errorf("frame lacks the badge or the current step:\n%s", out)
				}
				if strings.Contains(out, "next pane") || strings.Contains(out, "? help") {
					t.Errorf("presentation frame shows the help bar:\n%s", out)
				}
				golden.RequireEqual(t, out)
			})
			m = press(t, m, "right")
		}
		if m.present.step != len(steps)-1 {
			t.Errorf("→ past the last step moved to %d", m.present.step)
		}
		m = press(t, m, "left", "space")
		if m.present.step != len(steps)-1 {
			t.Errorf("← then space should come back to the last step, at %d", m.present.step)
		}
		m = press(t, m, "esc")
		if m.top() != screenChain {
			t.Errorf("esc should leave presentation mode for the chain view, top %d", m.top())
		}
	}
}

// TestStoryFollowsTheData: captions and contents come from the chain's rows, not templates.
func TestStoryFollowsTheData(t *testing.T) {
	m, _ := newPresentApp(t, 120, 40)
	story := *m.present.story
	b := m.chain.blocks[m.chain.block]
	if story.Block != m.chain.firstFalse() || story.Block < 0 {
		t.Fatalf("story block %d, first false authority %d", story.Block, m.chain.firstFalse())
	}
	turn := story.Steps[0]
	var hl []string
	for _, tu := range turn.Turns {
		if tu.Highlight {
			hl = append(hl, tu.ID)
		}
	}
	fa := story.Steps[2]
	// The turn step names the first-ranked cause of the story's probe, and highlights its
	// turn when it is in the block.
	pw := b.Why.forProbe(fa.Probe.ProbeID)
	if pw == nil || len(pw.Causes) == 0 {
		t.Fatalf("no cause attribution at block %d", b.Index)
	}
	if top := pw.Causes[0]; !strings.Contains(turn.Caption, top.TurnID) || !strings.Contains(turn.Caption, pw.Support) ||
		(top.Block == b.Index && !slices.Equal(hl, []string{top.TurnID})) {
		t.Errorf("turn step highlights %v, caption %q; first cause %s (%s)", hl, turn.Caption, top.TurnID, pw.Support)
	}
	if fa.Probe == nil || fa.Probe.Forms == nil || !*fa.Probe.Forms || fa.Probe.AuthorizedNow {
		t.Fatalf("false-authority step's probe does not form: %+v", fa.Probe)
	}
	found := false
	for _, p := range b.Probes {
		if p.ProbeID == fa.Probe.ProbeID && p.Forms != nil && *p.Forms {
			found = true
		}
	}
	if !found || !strings.Contains(fa.Caption, shortProbe(story.Chain.CaseID, fa.Probe.ProbeID)) {
		t.Errorf("probe %s is not a forming probe of block %d, or not in the caption %q", fa.Probe.ProbeID, b.Index, fa.Caption)
	}
	act, exact, attr := story.Steps[3], story.Steps[4], story.Steps[5]
	if act.Written == nil || !act.Written.Unauthorized || !strings.Contains(act.Caption, "unauthorized") {
		t.Errorf("action step: %+v, caption %q", act.Written, act.Caption)
	}
	if exact.Exact == nil || exact.Exact.Unauthorized || !strings.Contains(exact.Exact.Source, "faithful_typed") {
		t.Errorf("exact step should contrast with the run's faithful_typed arm: %+v", exact.Exact)
	}
	if attr.Verdict != "memory-induced" {
		t.Errorf("the fixture chain is memory-induced, the story says %q", attr.Verdict)
	}
	for _, c := range attr.Checks {
		if !c.OK {
			t.Errorf("attribution check failed on a memory-induced chain: %s", c.Label)
		}
	}
}

// TestStoryWithoutFalseAuthority: a block whose memory forms nothing ends the story at the
// false-authority step, which says so.
func TestStoryWithoutFalseAuthority(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, ":")
	for _, r := range "block 0" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter", "P")
	st := m.present.story
	if st == nil || st.Block != 0 {
		t.Fatalf("story at block 0 did not load: %+v %v", st, m.present.err)
	}
	if b := m.chain.blocks[0]; storyProbe(b, StoryData{}) != nil {
		t.Skip("block 0 of the fixture chain already forms")
	}
	if len(st.Steps) != 3 || st.Steps[2].Probe != nil || !strings.Contains(st.Steps[2].Caption, "grants nothing") && !strings.Contains(st.Steps[2].Caption, "No memory") {
		t.Errorf("story without formation: %d steps, last caption %q", len(st.Steps), st.Steps[len(st.Steps)-1].Caption)
	}
}

// TestPresentationCommandLineKeepsTheStory: `:` in presentation mode opens the command line
// under the story's frame, not under the runs screen the presentation was opened above.
func TestPresentationCommandLineKeepsTheStory(t *testing.T) {
	m, runID := newPresentApp(t, 120, 40)
	m = press(t, m, ":")
	if !m.cmdline.active {
		t.Fatal(": did not open the command line in presentation mode")
	}
	out := frame(m, runID)
	assertFits(t, out, 120, 40)
	if !strings.Contains(out, "PRESENTING") {
		t.Errorf("with the command line open the frame lost the presentation:\n%s", out)
	}
	if strings.Contains(out, "ealscope · runs") {
		t.Errorf("with the command line open the frame shows the runs screen:\n%s", out)
	}
}

// TestPresentationScrollsATallStep: at 80x24 a step taller than the screen says how much is
// below, and the scroll key brings its last line into view.
func TestPresentationScrollsATallStep(t *testing.T) {
	m, runID := newPresentApp(t, 80, 24)
	m = press(t, m, "right", "right") // step 3: the false authority, with the probe's request
	out := frame(m, runID)
	if !strings.Contains(out, "more lines") {
		t.Skip("step 3 fits at 80x24")
	}
	for i := 0; i < 30 && strings.Contains(frame(m, runID), "more lines"); i++ {
		m = press(t, m, "j")
	}
	out = frame(m, runID)
	assertFits(t, out, 80, 24)
	if !strings.Contains(out, "FALSE AUTHORITY") || strings.Contains(out, "more lines") {
		t.Errorf("scrolling did not reach the end of step 3:\n%s", out)
	}
}
