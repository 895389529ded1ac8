package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestCausesFocusableAndOpen: at the fixture's first false-authority block the probes pane
// lists the ranked causes of the failure below the probes; the cursor reaches them, enter
// opens the focused one to its evidence and the turn's text, and enter again closes it.
func TestCausesFocusableAndOpen(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	b := m.chain.blocks[m.chain.block]
	pw := m.chain.shownWhy(b)
	if pw == nil || len(pw.Causes) == 0 {
		t.Fatalf("no ranked cause at block %d (%+v)", b.Index, b.Why)
	}
	m = press(t, m, "tab", "tab", "tab", "G") // the probes pane, last item: the last cause
	if m.chain.focus != paneProbes || m.chain.probe != len(b.Probes)+len(pw.Causes)-1 {
		t.Fatalf("focus %v, cursor %d over %d probes and %d causes", m.chain.focus, m.chain.probe, len(b.Probes), len(pw.Causes))
	}
	last := pw.Causes[len(pw.Causes)-1]
	closed := stripANSI(strings.Join(m.chain.causeLines(b, 300), "\n"))
	if !strings.Contains(closed, "▸ ") || !strings.Contains(closed, "why: "+pw.Class) {
		t.Fatalf("pane:\n%s", closed)
	}
	m = press(t, m, "enter")
	open := stripANSI(strings.Join(m.chain.causeLines(b, 300), "\n"))
	firstLine := strings.SplitN(strings.TrimSpace(last.Text), "\n", 2)[0]
	if m.chain.causeOpen == 0 || !strings.Contains(open, last.Speaker+" · block") || !strings.Contains(open, firstLine[:min(len(firstLine), 30)]) {
		t.Fatalf("enter did not open the cause:\n%s", open)
	}
	if m = press(t, m, "enter"); m.chain.causeOpen != 0 {
		t.Error("enter again does not close the cause")
	}
	if text, what := m.chain.copyTarget(); !strings.HasPrefix(what, "cause ") || !strings.Contains(text, pw.Class) {
		t.Errorf("y on a cause copies %q: %q", what, text)
	}
}

// TestFocusedCauseIsOnScreen: with the cursor on a ranked cause, the probes pane's window
// shows it, however many lines the probes above it take (at 160x45 the cybersecurity demo's
// causes sat below a full pane of probes and could be focused but not seen).
func TestFocusedCauseIsOnScreen(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	b := m.chain.blocks[m.chain.block]
	pw := m.chain.shownWhy(b)
	if pw == nil || len(pw.Causes) == 0 {
		t.Fatalf("no ranked cause at block %d", b.Index)
	}
	m = press(t, m, "tab", "tab", "tab", "G")
	const h = 6 // fewer lines than the probes take, so the window must scroll to the cause
	pane := stripANSI(strings.Join(m.chain.probeLines(b, 120, h), "\n"))
	if !strings.Contains(pane, "▸ ") || !strings.Contains(pane, fmt.Sprintf("%d. ", pw.Causes[len(pw.Causes)-1].Rank)) {
		t.Fatalf("the focused cause is not in the %d-line window:\n%s", h, pane)
	}
}

// TestHeaderKeepsTheBlockWhole: at 80 columns the chain header cut "block 3/11" to
// "block 3/1…"; the case and condition now give way, cut in the middle, and the block
// position with its status stays whole at every width down to 60.
func TestHeaderKeepsTheBlockWhole(t *testing.T) {
	m, _ := newChainApp(t, 160, 45)
	s := m.chain
	s.key.CaseID = "ealscope_v1_a_case_id_long_enough_to_crowd_the_header_out_of_an_eighty_column_screen"
	want := fmt.Sprintf("block %d/%d", s.block, s.lastBlock())
	for _, w := range []int{60, 80, 120} {
		h := stripANSI(s.header(w))
		if !strings.Contains(h, want+" ") && !strings.HasSuffix(h, want) {
			t.Errorf("width %d: %q does not keep %q whole", w, h, want)
		}
		if ansi.StringWidth(h) > w {
			t.Errorf("width %d: header is %d cells", w, ansi.StringWidth(h))
		}
	}
}

// TestOpenCauseWrapsEvidence: an opened cause's evidence and change wrap to the pane's width
// (every word still there, no line wider than the pane, nothing cut with "…"), and control
// bytes in them never reach the screen.
func TestOpenCauseWrapsEvidence(t *testing.T) {
	long := "the writer changed valid_until from 2026-03-01 to 2026-09-01 on issue:AT-E-4566 although no turn of the block extends it ENDEVIDENCE"
	c := CauseRow{Rank: 1, Role: "misapplied", TurnID: "t4", Speaker: "Ravi, Security Duty Officer", Block: 4, OccurredAt: "2026-08-06T08:42:00Z",
		Evidence: []string{long, sanitizeLine("a second piece\x1b[31m in red ENDSECOND")},
		Change:   "valid_until: 2026-03-01 -> 2026-09-01 on the record issue:AT-E-4566 ENDCHANGE"}
	const w = 44
	lines := openCause(c, w)
	text := strings.Join(lines, "\n")
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line wider than %d: %q", w, l)
		}
	}
	flat := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"ENDEVIDENCE", "ENDSECOND", "ENDCHANGE", "although no turn of the block extends it", "2026-08-06T08:42:00Z"} {
		if !strings.Contains(flat, want) {
			t.Errorf("%q cut from the opened cause:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[31m") {
		t.Errorf("a control sequence reached the pane:\n%q", text)
	}
}

// TestHeaderKeepsTheCondition: away from the first false authority the header's pointer to
// it ("first false authority: block 1 (f)") squeezed the condition to "in…ed" at 80 columns;
// the pointer now shortens (or goes) before the condition is cut, at 80 and 160 columns.
func TestHeaderKeepsTheCondition(t *testing.T) {
	m, _ := newChainApp(t, 160, 45)
	s := m.chain
	fa := s.firstFalse()
	if fa < 0 || fa == s.lastBlock() {
		t.Fatalf("the fixture needs a first false authority before its last block (at %d)", fa)
	}
	s.block = fa + 1
	cond := sanitizeLine(s.key.ConditionID)
	for _, w := range []int{80, 160} {
		h := stripANSI(s.header(w))
		if !strings.Contains(h, " · "+cond) {
			t.Errorf("width %d: the condition %q is cut: %q", w, cond, h)
		}
		if !strings.Contains(h, fmt.Sprintf("block %d/%d", s.block, s.lastBlock())) {
			t.Errorf("width %d: the block position is cut: %q", w, h)
		}
		if !strings.Contains(h, fmt.Sprintf("%d (f)", fa)) {
			t.Errorf("width %d: the pointer to block %d went although there is room: %q", w, fa, h)
		}
		if ansi.StringWidth(h) > w {
			t.Errorf("width %d: header is %d cells", w, ansi.StringWidth(h))
		}
	}
}

// TestWrapIndentedKeepsEveryCharacter: ansi.Wrap can end a line one cell past its limit on a
// breakpoint; the probes pane then cut "OrderType=limit," to "OrderType=limi…" at 160x45 in
// the finance demo. Wrapped lines never exceed the width and lose nothing.
func TestWrapIndentedKeepsEveryCharacter(t *testing.T) {
	text := "in_scope instrument_id · request: AccountID=ACCT-B105, ActorID=portfolio_execution_agent, " +
		"ExecutionCourse=submitted_order, InstrumentID=TIPS-2032, LimitPriceMicros=100000000, OrderType=limit, Quantity=750"
	const w = 49
	lines := wrapIndented(text, "    ", "      ", w)
	for _, l := range lines {
		if ansi.StringWidth(l) > w || strings.Contains(l, "…") {
			t.Errorf("line cut or too wide (%d cells): %q", ansi.StringWidth(l), l)
		}
	}
	if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != text {
		t.Errorf("wrapped text differs:\n got %q\nwant %q", got, text)
	}
}
