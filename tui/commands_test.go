package tui

import (
	"strings"
	"testing"
)

func typeKeys(t *testing.T, m Model, text string) Model {
	t.Helper()
	for _, r := range text {
		k := string(r)
		if r == ' ' {
			k = "space"
		}
		m = press(t, m, k)
	}
	return m
}

// TestCommandLineAnswersWithWhatWorks: `:block 99` names the valid range instead of
// clamping, `:case` with an unknown id names the closest ids, `:replay` opens the re-run form.
func TestCommandLineAnswersWithWhatWorks(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	was := m.chain.block
	m = press(t, typeKeys(t, press(t, m, ":"), "block 99"), "enter")
	if m.chain.block != was || m.err == nil || !strings.Contains(m.err.Error(), "blocks 0..") {
		t.Errorf(":block 99: block %d (was %d), err %v", m.chain.block, was, m.err)
	}
	caseID := m.chain.key.CaseID
	typo := caseID[:len(caseID)-2] + "zz"
	m = press(t, typeKeys(t, press(t, m, ":"), "case "+typo), "enter")
	if m.err == nil || !strings.Contains(m.err.Error(), "closest: "+caseID) {
		t.Errorf(":case %s: err %v, want the closest id %s", typo, m.err, caseID)
	}
	m = press(t, typeKeys(t, press(t, m, ":"), "replay"), "enter")
	if m.chain.rerun == nil {
		t.Fatalf(":replay does not open the re-run form (err %v)", m.err)
	}
	m = press(t, m, "?")
	if out := frame(m, ""); !strings.Contains(out, "change the value") || !strings.Contains(out, "cancel a running re-run") {
		t.Errorf("? in the re-run form does not show its keys:\n%s", out)
	}
}

// TestSearchPromptOpensEmpty: `/` after a search opens empty, so typing never appends to the
// previous query.
func TestSearchPromptOpensEmpty(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, typeKeys(t, press(t, m, "/"), "vendor"), "enter")
	m = press(t, m, "/")
	if !m.chain.search.active || m.chain.search.value != "" {
		t.Errorf("second / opens with %q", m.chain.search.value)
	}
}

// TestHelpSaysQGoesBack: on an inner screen the help sheet says q goes back, as esc does.
func TestHelpSaysQGoesBack(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	if out := frame(press(t, m, "?"), ""); !strings.Contains(out, "q goes back, as esc does") {
		t.Errorf("help sheet:\n%s", out)
	}
}

// TestChainsFilterAllWordsAnyOrder: "typed incremental" finds the incremental_typed chains.
func TestChainsFilterAllWordsAnyOrder(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "esc")
	m = press(t, typeKeys(t, press(t, m, "/"), "typed incremental"), "enter")
	if len(m.chains.shown) == 0 {
		t.Fatal("no chain matches both words")
	}
	for _, i := range m.chains.shown {
		if c := m.chains.all[i]; c.Key.ConditionID != "incremental_typed" {
			t.Errorf("%s/%s matches \"typed incremental\"", c.Key.CaseID, c.Key.ConditionID)
		}
	}
}

// TestChainsListKeepsCaseEnds: at 80 columns case ids keep their distinctive end and the
// writer is shown.
func TestChainsListKeepsCaseEnds(t *testing.T) {
	m, _ := newChainApp(t, 80, 24)
	m = press(t, m, "esc")
	caseID := m.chains.all[m.chains.shown[m.chains.cur.sel]].Key.CaseID // the row on screen for sure
	out := frame(m, "")
	if !strings.Contains(out, "writer") || !strings.Contains(out, "scripted") {
		t.Errorf("no writer column:\n%s", out)
	}
	if tail := caseID[len(caseID)-10:]; !strings.Contains(out, tail) {
		t.Errorf("the end of %s (%s) is cut at 80 columns:\n%s", caseID, tail, out)
	}
	if got := keepEnd("ealscope_v1_cloud_reserved_capacity", 12); got != "…ed_capacity" {
		t.Errorf("keepEnd = %q", got)
	}
}

// TestPageKeysInEveryPane: g/G and ctrl+d/ctrl+u move in the timeline, the history, the
// memory pane and the probes.
func TestPageKeysInEveryPane(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	if m = press(t, m, "G"); m.chain.block != m.chain.lastBlock() {
		t.Errorf("G on the timeline: block %d, want %d", m.chain.block, m.chain.lastBlock())
	}
	if m = press(t, m, "g"); m.chain.block != 0 {
		t.Errorf("g on the timeline: block %d", m.chain.block)
	}
	m = press(t, m, "f", "tab") // history of the first false-authority block
	b := m.chain.blocks[m.chain.block]
	if m = press(t, m, "G"); len(b.Turns) > 1 && m.chain.turn != len(b.Turns)-1 {
		t.Errorf("G in the history: turn %d of %d", m.chain.turn, len(b.Turns))
	}
	if m = press(t, m, "ctrl+u"); len(b.Turns) > 2 && m.chain.turn == len(b.Turns)-1 {
		t.Error("ctrl+u in the history does not move up")
	}
	m = press(t, m, "tab") // memory
	if m = press(t, m, "ctrl+d"); m.chain.scroll[paneMemory] == 0 {
		t.Error("ctrl+d in the memory pane does not scroll")
	}
	if m = press(t, m, "g"); m.chain.scroll[paneMemory] != 0 {
		t.Error("g in the memory pane does not go to the top")
	}
	m = press(t, m, "tab") // probes
	// The cursor runs over the probes, then the ranked causes of the shown failure.
	if m = press(t, m, "G"); len(b.Probes) > 1 && m.chain.probe != len(b.Probes)+m.chain.causeCount(b)-1 {
		t.Errorf("G in the probes: item %d of %d probes and %d causes", m.chain.probe, len(b.Probes), m.chain.causeCount(b))
	}
}
