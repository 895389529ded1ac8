package tui

import (
	"strings"
	"testing"
)

// TestCandidateCausesAtFirstFalseAuthority: at the fixture's first false-authority block the
// probes pane lists candidate causes; each is an event on a wrongly remembered record or a
// turn the ledger did not take authority from.
func TestCandidateCausesAtFirstFalseAuthority(t *testing.T) {
	m, _ := newChainApp(t, 120, 40)
	b := m.chain.blocks[m.chain.block]
	causes := candidateCauses(b)
	if len(causes) == 0 {
		t.Fatalf("no candidate cause at block %d", b.Index)
	}
	turns := map[string]Turn{}
	for _, tn := range b.Turns {
		turns[tn.ID] = tn
	}
	for _, c := range causes {
		if c.kind == "misleading" {
			if tn, ok := turns[c.turns[0]]; !ok || tn.CitedByLedger {
				t.Errorf("misleading turn %v is not a non-authoritative turn of the block", c.turns)
			}
		}
	}
	out := strings.Join(m.chain.probeLines(b, 100, 60), "\n")
	if !strings.Contains(out, "candidate causes") {
		t.Errorf("probes pane:\n%s", out)
	}
	if got := valueClues("2027-02-14T00:00:00Z"); len(got) != 2 || got[1] != "February" {
		t.Errorf("date clues %v", got)
	}
	if got := valueClues("36000"); len(got) != 2 || got[1] != "36,000" {
		t.Errorf("number clues %v", got)
	}
}
