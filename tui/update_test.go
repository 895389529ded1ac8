package tui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Update tests: drive the root with key and data messages, then assert state and commands.

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestBlockStepping(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	fa := m.chain.firstFalse()
	if m.chain.block != max(fa, 0) {
		t.Fatalf("opened at block %d, want the first false-authority block %d", m.chain.block, fa)
	}
	last := m.chain.lastBlock()
	m = press(t, m, "right", "right", "right", "right", "right", "right", "right", "right")
	if m.chain.block != last {
		t.Errorf("stepping right stops at the last block: at %d, want %d", m.chain.block, last)
	}
	m = press(t, m, "[")
	if m.chain.block != last-1 {
		t.Errorf("[ steps back: at %d", m.chain.block)
	}
	m = press(t, m, "f")
	if m.chain.block != fa {
		t.Errorf("f: at %d, want %d", m.chain.block, fa)
	}
	// Each visited block was queried once and cached.
	if len(m.chain.blocks) != last+1-min(fa, last) && len(m.chain.blocks) == 0 {
		t.Errorf("blocks cached: %d", len(m.chain.blocks))
	}
	next, cmd := m.Update(keyPress("right"))
	m = next.(Model)
	if cmd != nil {
		t.Error("stepping onto a cached block must not query the store again")
	}
}

func TestStepIssuesOneQueryForUncachedBlock(t *testing.T) {
	m, _ := newChainApp(t, 80, 24)
	delete(m.chain.blocks, m.chain.block+1)
	next, cmd := m.Update(keyPress("right"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("stepping onto an uncached block returns its query")
	}
	if _, ok := cmd().(blockLoadedMsg); !ok {
		t.Error("the step's command loads the block")
	}
	if v := m.Render(); !strings.Contains(v, "loading block") {
		t.Error("while the block loads, the panes say so")
	}
}

func TestEscNeverQuitsAndQBacksOut(t *testing.T) {
	m, _ := newChainApp(t, 80, 24)
	if len(m.stack) != 3 {
		t.Fatalf("stack %v", m.stack)
	}
	m = press(t, m, "tab") // focus history
	next, cmd := m.Update(keyPress("esc"))
	m = next.(Model)
	if isQuit(cmd) || m.top() != screenChain || m.chain.focus != paneTimeline {
		t.Fatal("first esc returns focus to the timeline")
	}
	m = press(t, m, "esc")
	if m.top() != screenChains {
		t.Fatalf("esc goes back to the chains list, top is %v", m.top())
	}
	m = press(t, m, "q")
	if m.top() != screenRuns {
		t.Fatalf("q below the top screen goes back, top is %v", m.top())
	}
	next, cmd = m.Update(keyPress("esc"))
	m = next.(Model)
	if isQuit(cmd) || m.top() != screenRuns {
		t.Fatal("esc on the first screen does nothing")
	}
	_, cmd = m.Update(keyPress("q"))
	if !isQuit(cmd) {
		t.Fatal("q on the first screen quits")
	}
}

func TestCtrlCAlwaysQuits(t *testing.T) {
	m, _ := newChainApp(t, 80, 24)
	for _, keys := range [][]string{nil, {"/"}, {":"}, {"?"}} {
		mm := press(t, m, keys...)
		if _, cmd := mm.Update(keyPress("ctrl+c")); !isQuit(cmd) {
			t.Errorf("ctrl+c after %v does not quit", keys)
		}
	}
}

func TestBaselineAndSideBySide(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "tab", "tab")
	if m.chain.focus != paneMemory {
		t.Fatalf("focus %v", m.chain.focus)
	}
	for i, want := range []baseline{baseLedger, baseOracle, baseRaw, basePrevious} {
		m = press(t, m, "c")
		if m.chain.base != want {
			t.Errorf("c #%d: baseline %v, want %v", i+1, m.chain.base, want)
		}
	}
	m = press(t, m, "s")
	if !m.chain.side || !strings.Contains(frame(m, ""), "side by side") {
		t.Error("s switches the memory diff to side by side")
	}
	m = press(t, m, "n")
	if m.chain.scroll[paneMemory] == 0 {
		t.Error("n scrolls to the next change")
	}
}

func TestCommandLine(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, ":", "b", "l", "o", "c", "k", "space", "0", "enter")
	if m.chain.block != 0 {
		t.Errorf(":block 0 moved to %d", m.chain.block)
	}
	next, cmd := m.Update(keyPress(":"))
	m = next.(Model)
	for _, r := range "link" {
		next, _ = m.Update(keyPress(string(r)))
		m = next.(Model)
	}
	next, cmd = m.Update(keyPress("enter"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal(":link returns a clipboard write")
	}
	k := m.chain.key
	want := "ealscope open --db /tmp/ws.db --run " + k.RunID + " --case " + k.CaseID + " --condition " + k.ConditionID + " --writer-run 0 --block 0"
	if got := m.link(); got != want {
		t.Errorf("link = %q\nwant  %q", got, want)
	}
	m = press(t, m, ":", "n", "o", "p", "e", "enter")
	if m.err == nil || !strings.Contains(m.err.Error(), "unknown command") {
		t.Errorf("unknown command error: %v", m.err)
	}
	if _, cmd := press(t, m, ":").Update(keyPress("q")); isQuit(cmd) {
		t.Error("typing q into the command line must not quit")
	}
}

func TestChainsFilterSortAndNextFlagged(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "esc")
	total := len(m.chains.shown)
	m = press(t, m, "/", "!", "F", "A", "@", "enter")
	if n := len(m.chains.shown); n == 0 || n >= total {
		t.Fatalf("filter !FA@ kept %d of %d", n, total)
	}
	for _, i := range m.chains.shown {
		if m.chains.all[i].FirstFalseAuthority < 0 {
			t.Errorf("filtered row %+v does not form", m.chains.all[i].Key)
		}
	}
	m = press(t, m, "/", "ctrl+u", "esc") // esc restores the previous filter
	if m.chains.query != "!FA@" {
		t.Errorf("esc in the filter keeps %q", m.chains.query)
	}
	m = press(t, m, "/")
	next, _ := m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	m = next.(Model)
	m = press(t, m, "enter")
	if len(m.chains.shown) != total {
		t.Errorf("cleared filter shows %d of %d", len(m.chains.shown), total)
	}
	m = press(t, m, "o", "o", "o") // sort by first false authority
	first := m.chains.all[m.chains.shown[0]]
	if first.FirstFalseAuthority < 0 {
		t.Errorf("sorted by first false authority, first row %+v does not form", first.Key)
	}
	m = press(t, m, "g", "n")
	if !m.chains.all[m.chains.shown[m.chains.cur.sel]].Flagged() {
		t.Error("n stops on a flagged row")
	}
}

func TestRemapKeys(t *testing.T) {
	k := DefaultKeyMap()
	if err := k.Remap(map[string][]string{"next_block": {"x", "right"}, "global.quit": {"Q"}}); err != nil {
		t.Fatal(err)
	}
	if got := k.Chain.NextBlock.Keys(); strings.Join(got, ",") != "x,right" {
		t.Errorf("next_block keys %v", got)
	}
	if err := k.Remap(map[string][]string{"nxet_block": {"x"}}); err == nil || !strings.Contains(err.Error(), "keys.nxet_block") {
		t.Errorf("unknown action error: %v", err)
	}
	if err := k.Remap(map[string][]string{"force_quit": {"F"}}); err != nil || !slices.Contains(k.Global.ForceQuit.Keys(), "ctrl+c") {
		t.Error("ctrl+c stays bound to force_quit")
	}
	s, _ := testStore(t)
	ck := formingChain(t)
	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Keys: map[string][]string{"next_block": {"x"}}, Start: Start{Chain: &ck, Block: 0}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 80, 24)
	m = press(t, m, "x")
	if m.chain.block != 1 {
		t.Errorf("remapped x steps to block 1, at %d", m.chain.block)
	}
}

func TestResizeAnyTime(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	for _, sz := range [][2]int{{40, 10}, {200, 60}, {80, 24}, {20, 5}, {1, 1}} {
		next, _ := m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = next.(Model)
		out := frame(m, "")
		if sz[0] >= 20 {
			assertFits(t, out, sz[0], sz[1])
		}
	}
}

func TestChainLayout(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		wide bool
	}{{80, 24, false}, {120, 40, true}, {109, 40, false}, {200, 60, true}, {45, 20, false}} {
		f := chainLayout(tc.w, tc.h, layoutState{focus: paneHistory})
		if f.wide != tc.wide {
			t.Errorf("%dx%d: wide %v", tc.w, tc.h, f.wide)
		}
		bodyH := tc.h - headerHeight - footerHeight
		if f.timeline.h != bodyH && f.timeline.w > 0 {
			t.Errorf("%dx%d: timeline height %d, want %d", tc.w, tc.h, f.timeline.h, bodyH)
		}
		if f.wide {
			if f.timeline.w+f.history.w != tc.w || f.timeline.w+f.memory.w+f.probes.w != tc.w || f.history.h+f.memory.h != bodyH {
				t.Errorf("%dx%d: panes do not tile: %+v", tc.w, tc.h, f)
			}
		} else if f.timeline.w+f.history.w != tc.w {
			t.Errorf("%dx%d: timeline + content = %d", tc.w, tc.h, f.timeline.w+f.history.w)
		}
	}
	f := chainLayout(80, 24, layoutState{focus: paneProbes})
	if f.probes.w == 0 || f.history.w != 0 || f.memory.w != 0 {
		t.Errorf("narrow mode shows the focused content pane only: %+v", f)
	}
	f = chainLayout(80, 24, layoutState{only: paneMemory})
	if f.memory != (size{80, 21}) || f.timeline.w != 0 {
		t.Errorf("only-pane layout: %+v", f)
	}
}

func TestWordDiff(t *testing.T) {
	st := NewStyles(NewPalette(true, true))
	lines := textDiffInline(&st, "CFO approved 5000 USD for Acme", "CFO approved 9000 USD for Acme and Beta", 80)
	got := strings.Join(diffTexts(lines), "\n")
	for _, want := range []string{"[-5000-]", "{+9000+}", "{+and Beta+}"} {
		if !strings.Contains(stripANSI(got), want) {
			t.Errorf("word diff %q lacks %q", stripANSI(got), want)
		}
	}
	if !lines[0].change {
		t.Error("a changed line is flagged for n/N")
	}
}

// Meaning never rides on colour alone: without colour the first false-authority block still
// carries its glyph and bold, and the themes differ only in colour.
func TestNoColorKeepsGlyphAndBold(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	raw := m.Render()
	if strings.Contains(raw, "38;2;") || strings.Contains(raw, "48;2;") {
		t.Error("NoColor frame carries colour sequences")
	}
	if !strings.Contains(raw, "\x1b[1m!! FIRST FALSE AUTHORITY") && !strings.Contains(raw, "1m!! FIRST FALSE AUTHORITY") {
		t.Errorf("the marker is not bold in the no-colour frame")
	}
	dark, light := NewPalette(true, false), NewPalette(false, false)
	if dark.Accent == light.Accent || dark.Fg == light.Fg {
		t.Error("light and dark palettes should differ")
	}
	colored, err := New(Options{Store: m.opts.Store, Dark: ptr(false), Start: m.opts.Start})
	if err != nil {
		t.Fatal(err)
	}
	colored = drive(t, colored, 120, 40)
	if out := colored.Render(); !strings.Contains(out, "38;2;") {
		t.Error("the colour theme renders colours")
	}
	if stripANSI(colored.Render()) != stripANSI(raw) {
		t.Error("colour must not change the text of a frame")
	}
}

func TestSearchJumpsToHits(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "/")
	for _, r := range "Treasury" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	if len(m.chain.hits) == 0 {
		t.Fatalf("no hits; status %q err %v", m.statusLine(), m.err)
	}
	if len(m.tasks) != 0 {
		t.Errorf("the search task is still open: %v", m.tasks)
	}
	if !strings.Contains(stripANSI(m.statusLine()), "match 1/") {
		t.Errorf("status %q", stripANSI(m.statusLine()))
	}
	n := len(m.chain.hits)
	m = press(t, m, "n")
	if n > 1 && (m.chain.hit != 1 || len(m.chain.hits) != n) {
		t.Errorf("n moves to the next hit, keeping the search: hit %d of %d", m.chain.hit, len(m.chain.hits))
	}
}

// TestLinkIsShellSafe: ids holding escapes and bidi characters are quoted so the copied
// command holds none of them raw, and the status line shows exactly what was copied.
func TestLinkIsShellSafe(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m.chain.key.CaseID = "case\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202eexe"
	m = press(t, m, ":", "l", "i", "n", "k")
	next, _ := m.Update(keyPress("enter"))
	m = next.(Model)
	link := m.link()
	if !strings.Contains(link, `--case $'case\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202eexe'`) {
		t.Errorf("link = %q", link)
	}
	if sanitize(link) != link {
		t.Errorf("link holds characters the screen would alter: %q", link)
	}
	if m.notice != "copied: "+link {
		t.Errorf("notice %q does not show the copied %q", m.notice, link)
	}
}

// TestRemapConflictsAreRefused: one action named twice, or one key given to two actions
// of a pane (or to a global action and another), is an error naming both entries.
func TestRemapConflictsAreRefused(t *testing.T) {
	for _, c := range []struct {
		keys map[string][]string
		want string
	}{
		{map[string][]string{"next_block": {"x"}, "chain.next_block": {"y"}}, "keys.chain.next_block and keys.next_block both remap chain.next_block"},
		{map[string][]string{"chain.next_block": {"x"}, "chain.prev_block": {"x"}}, `both use "x"`},
		{map[string][]string{"global.quit": {"z"}, "chain.next_block": {"z"}}, `keys.chain.next_block and keys.global.quit both use "z"`},
	} {
		k := DefaultKeyMap()
		if err := k.Remap(c.keys); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.keys, err, c.want)
		}
	}
	k := DefaultKeyMap()
	if err := k.Remap(map[string][]string{"chain.next_block": {"x"}, "list.open": {"x"}}); err != nil {
		t.Errorf("one key in two panes: %v", err)
	}
}
