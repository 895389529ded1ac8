package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine"
)

// firstFalseBlock is the loaded block the chain view opened at (the first false authority).
func firstFalseBlock(t *testing.T, m Model) BlockDetail {
	t.Helper()
	b, ok := m.chain.blocks[m.chain.block]
	if !ok || len(b.Fidelity) == 0 {
		t.Fatalf("block %d is not loaded or has no fidelity rows", m.chain.block)
	}
	return b
}

// TestLedgerRowExpandsToFullValues: j moves the row cursor, enter expands the focused row to
// its full ledger and remembered values (cut to the column before), enter again collapses.
func TestLedgerRowExpandsToFullValues(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "tab", "tab", "c")
	if m.chain.base != baseLedger {
		t.Fatalf("baseline %v, want the ledger", m.chain.base)
	}
	b := firstFalseBlock(t, m)
	// The longest one-line value that fits the pane once expanded, but not its column.
	target, best := -1, 0
	for i, r := range b.Fidelity {
		v := expandJSON(r.Ledger)
		if !strings.Contains(v, "\n") && len(v) > best && len(v) < 40 {
			target, best = i, len(v)
		}
	}
	if target < 0 || best < 14 {
		t.Fatalf("no long one-line ledger value in block %d", b.Index)
	}
	want := b.Fidelity[target].Ledger
	if strings.Contains(frame(m, ""), want) {
		t.Fatalf("the collapsed table already shows %q whole: pick a longer value", want)
	}
	for range target {
		m = press(t, m, "j")
	}
	if m.chain.ledger.row != target {
		t.Fatalf("row cursor at %d after %d × j", m.chain.ledger.row, target)
	}
	m = press(t, m, "enter")
	out := frame(m, "")
	if !strings.Contains(out, want) || !strings.Contains(out, "ledger:") || !strings.Contains(out, "memory:") {
		t.Errorf("enter does not show the full ledger value %q:\n%s", want, out)
	}
	if m.chain.focus != paneMemory {
		t.Errorf("enter on the ledger table moved the focus to %v", m.chain.focus)
	}
	m = press(t, m, "enter")
	if strings.Contains(frame(m, ""), want) {
		t.Error("a second enter does not collapse the row")
	}
	m = press(t, m, "G")
	if m.chain.ledger.row != len(b.Fidelity)-1 {
		t.Errorf("G puts the cursor on row %d, want %d", m.chain.ledger.row, len(b.Fidelity)-1)
	}
	m = press(t, m, "y")
	if !strings.Contains(m.chain.notice, "copied row") {
		t.Errorf("y on the ledger table: notice %q", m.chain.notice)
	}
}

// TestExpandedValuesMarkTheDifference: the ledger side marks what the memory lost, the memory
// side what it added, and records are shown whole (indented JSON).
func TestExpandedValuesMarkTheDifference(t *testing.T) {
	styles := NewStyles(NewPalette(true, true))
	st := &styles
	r := FieldRow{AuthorizationID: "auth_1", Field: "scope.allowed_categories",
		Ledger: `["compute_reserved","object_storage"]`, Remembered: `["compute_reserved","object_storage","gpu_spot"]`,
		Errors: []string{"scope_broadened"}, Overgrant: true}
	out := strings.Join(diffTexts(expandedValues(st, engine.RecordSchema{}, r, 60)), "\n")
	if !strings.Contains(out, `{+"gpu_spot"+}`) {
		t.Errorf("the added value is not marked {+…+}:\n%s", out)
	}
	if strings.Contains(out, "…") {
		t.Errorf("an expanded row cuts a value:\n%s", out)
	}
	text := ledgerRowText(r)
	wantAll(t, "the copied row", text, r.Ledger, r.Remembered, "scope_broadened +over", "auth_1 scope.allowed_categories")
}

// TestRenderLedgerShowsWholeValues: `render --pane ledger` expands every row, so each line of
// every ledger value (whole records included) is on the frame.
func TestRenderLedgerShowsWholeValues(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	h, err := s.Chain(context.Background(), k.ID)
	if err != nil || h.FirstFalseAuthorityBlock == nil {
		t.Fatalf("chain header: %v", err)
	}
	block := *h.FirstFalseAuthorityBlock
	out, err := RenderFrame(context.Background(), FrameOptions{Store: s, Chain: k, Block: block, Pane: "ledger",
		Width: 200, Height: 400, Plain: true, Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := s.MemoryAt(context.Background(), k.ID, block)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range mem.Fidelity {
		for _, raw := range []string{jsonCell(f.Canonical), jsonCell(f.Remembered)} {
			for _, line := range strings.Split(expandJSON(raw), "\n") {
				line = strings.TrimSpace(line)
				if len(line) > 150 {
					continue // wraps; the unit test above covers wrapping
				}
				checked++
				if item := strings.TrimSuffix(line, ","); strings.Count(item, `"`) == 2 && strings.HasPrefix(item, `"`) && strings.HasSuffix(item, `"`) {
					line = strings.Trim(item, `"`) // an order-free list's item: compared as a set, unquoted
				}
				if !strings.Contains(out, line) {
					t.Errorf("render --pane ledger lacks %q", line)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no ledger values checked")
	}
}

// TestOracleBaseline: the third `c` baseline diffs the memory against the oracle-exact memory
// of its block, built from the case's ledger.
func TestOracleBaseline(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	m = press(t, m, "tab", "tab", "c", "c")
	if m.chain.base != baseOracle {
		t.Fatalf("baseline %v, want the oracle-exact memory", m.chain.base)
	}
	e, ok := m.chain.exact[m.chain.block]
	if !ok || e.mem == nil {
		t.Fatalf("the oracle-exact memory did not load: %+v", e)
	}
	out := frame(m, "")
	if !strings.Contains(out, "vs oracle-exact memory") || !strings.Contains(out, "oracle@block") {
		t.Errorf("the memory pane does not show the oracle baseline:\n%s", out)
	}
	// The chain forms false authority here, so its memory differs from the oracle's.
	changed := false
	for _, l := range m.chain.oracleLines(m.chain.blocks[m.chain.block], 60) {
		changed = changed || l.change
	}
	if !changed {
		t.Error("a memory forming false authority shows no difference from the oracle-exact memory")
	}
	m = press(t, m, "right")
	if _, ok := m.chain.exact[m.chain.block]; !ok {
		t.Error("stepping a block on the oracle baseline does not load that block's oracle memory")
	}
}

// TestFirstVersionHasNoStrayNull: against "no previous memory" every field is new and no
// unnamed "- : null" line appears.
func TestFirstVersionHasNoStrayNull(t *testing.T) {
	styles := NewStyles(NewPalette(true, true))
	st := &styles
	cur := map[string]any{"authorizations": []any{map[string]any{"authorization_id": "auth_1", "status": "active"}}}
	for _, l := range fieldDiff(st, nil, cur, 80, false) {
		if p := ansi.Strip(l.text); strings.Contains(p, ": null") && strings.Contains(p, "- ") {
			t.Errorf("stray line %q", p)
		}
	}
}

// TestSideBySideWraps: a long value continues on the next line of its column instead of
// being cut ("valid_until: 2026-1 │ 2026-10-26…").
func TestSideBySideWraps(t *testing.T) {
	styles := NewStyles(NewPalette(true, true))
	st := &styles
	rec := func(until string) any {
		return map[string]any{"authorizations": []any{map[string]any{"authorization_id": "auth_1", "valid_until": until}}}
	}
	var plain []string
	for _, l := range fieldDiff(st, rec("2026-10-26T00:00:00Z"), rec("2027-02-14T00:00:00Z"), 50, true) {
		plain = append(plain, ansi.Strip(l.text))
	}
	out := strings.Join(plain, "\n")
	for _, want := range []string{"2026-10-26T00:00:00Z", "2027-02-14T00:00:00Z"} {
		if !strings.Contains(out, want) {
			t.Errorf("side by side cuts %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "…") {
		t.Errorf("side by side still cuts:\n%s", out)
	}
}
