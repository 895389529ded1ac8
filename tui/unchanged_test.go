package tui

import (
	"strings"
	"testing"
)

// TestUnchangedBlockShowsNoChange: at a block where the writer changed nothing, the memory
// pane's "vs previous version" says so and shows no added or removed field, and the story's
// memory step calls the memory unchanged.
func TestUnchangedBlockShowsNoChange(t *testing.T) {
	m, _ := newDemoApp(t, "cybersecurity", 160, 45)
	d := m.chain.detail
	block := -1
	for _, b := range d.Blocks {
		if b.UpdateStatus == "no_change" && b.Index > 0 {
			block = b.Index
			break
		}
	}
	if block < 0 {
		t.Fatal("the demo chain has no unchanged block")
	}
	m = press(t, m, ":")
	for _, r := range "block " + itoa(block) {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	b := m.chain.blocks[block]
	lines := diffTexts(m.chain.memoryLines(b, 100))
	text := stripANSI(strings.Join(lines, "\n"))
	if !strings.Contains(text, "no change at block "+itoa(block)) {
		t.Errorf("block %d's memory pane does not say nothing changed:\n%s", block, text)
	}
	for _, l := range lines[1:] {
		if p := strings.TrimSpace(stripANSI(l)); strings.HasPrefix(p, "+ ") || strings.HasPrefix(p, "- ") {
			t.Errorf("an unchanged block shows a change: %q", p)
		}
	}
	st := memoryStep(b)
	if !strings.Contains(st.Caption, "unchanged") {
		t.Errorf("story memory step at an unchanged block: %q", st.Caption)
	}
}
