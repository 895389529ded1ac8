package tui

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/ealscope/ealscope/runs"
)

// TestSearchMatchesPrefixes: the first letters of a word find it ("reconcil" finds
// "reconciliation").
func TestSearchMatchesPrefixes(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	turns, err := s.BlockTurns(context.Background(), mustCaseKey(t, s, k), 0, nil)
	if err != nil || len(turns) == 0 {
		t.Fatalf("turns: %v", err)
	}
	word := ""
	for _, tn := range turns {
		for _, w := range strings.FieldsFunc(tn.Content, func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) > len(word) {
				word = w
			}
		}
	}
	if len(word) < 8 {
		t.Fatalf("no long word in block 0 (longest %q)", word)
	}
	prefix := word[:len(word)-3]
	hits, err := s.Search(context.Background(), prefix, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Errorf("%q finds nothing, though %q is in the corpus", prefix, word)
	}
}

// TestMatchCountStaysAcrossChains: n onto a hit in another chain opens it with "match i/N"
// still on the status line.
func TestMatchCountStaysAcrossChains(t *testing.T) {
	m, runID := newChainApp(t, 120, 40)
	s, _ := testStore(t)
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	var other ChainKey
	for _, r := range rows {
		if r.CaseID != m.chain.key.CaseID {
			other = presentChain(r).Key
			break
		}
	}
	here := m.chain.key
	m.chain.query = "x"
	m.chain.hits = []SearchHit{{Key: here, Block: 0, Kind: "memory"}, {Key: other, Block: 0, Kind: "memory", Snippet: "elsewhere"}}
	m = press(t, m, "n")
	if m.chain.key.ID != other.ID {
		t.Fatalf("n did not open the other chain (%v)", m.chain.key)
	}
	if st := m.chain.status(); !strings.Contains(st, "match 2/2") {
		t.Errorf("status after opening the hit's chain: %q", st)
	}
}
