package derive

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
)

// builtinDomains are the domains whose built-in cases the tests derive from.
var builtinDomains = []string{"procurement", "cybersecurity", "finance"}

// builtinCases are a registered domain's built-in cases.
func builtinCases(t *testing.T, id string) (engine.Domain, []*engine.Case) {
	t.Helper()
	d, cases, err := domains.BuiltinCases(id)
	if err != nil {
		t.Fatal(err)
	}
	return d, cases
}

// TestFaithfulMemoryScoresExact: the ledger's own records, scored against it at every block of
// every built-in case, are exact and form nothing; each probe gets one formation row, and the
// denied count is the ledger's.
func TestFaithfulMemoryScoresExact(t *testing.T) {
	for _, id := range builtinDomains {
		d, cases := builtinCases(t, id)
		l := NewLedgers(d)
		for _, c := range cases {
			for k := 0; k <= c.LastBlock(); k++ {
				led, err := l.At(c, k)
				if err != nil {
					t.Fatal(err)
				}
				s, err := l.Score(c, k, led.Records)
				if err != nil {
					t.Fatal(err)
				}
				denied := 0
				for _, v := range led.Verdicts {
					if !v.Authorized {
						denied++
					}
				}
				if !s.Exact || s.Forms || len(s.Formed) != 0 || len(s.Formation) != len(c.Probes) || s.ProbesDenied != denied || s.ExactFields != len(s.Fidelity) {
					t.Fatalf("%s %s block %d: %+v", id, c.ID, k, s)
				}
			}
		}
	}
}

// TestStaleMemoryForms: a memory that kept an earlier block's ledger, scored at a later block
// whose ledger denies a probe the earlier one authorized, forms false authority for exactly
// the probes the stale records grant and the ledger denies.
func TestStaleMemoryForms(t *testing.T) {
	found := 0
	for _, id := range builtinDomains {
		d, cases := builtinCases(t, id)
		l := NewLedgers(d)
		for _, c := range cases {
			last := c.LastBlock()
			final, err := l.At(c, last)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < last; k++ {
				earlier, err := l.At(c, k)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, p := range c.Probes {
					if earlier.Verdicts[p.ID].Authorized && !final.Verdicts[p.ID].Authorized {
						want = append(want, p.ID)
					}
				}
				if len(want) == 0 {
					continue
				}
				s, err := l.Score(c, last, earlier.Records)
				if err != nil {
					t.Fatal(err)
				}
				if !s.Forms || s.Exact || !reflect.DeepEqual(s.Formed, want) {
					t.Fatalf("%s %s: block %d's ledger at block %d: forms %v exact %v formed %v, want %v", id, c.ID, k, last, s.Forms, s.Exact, s.Formed, want)
				}
				for _, f := range s.Formation {
					if f.Formed != slices.Contains(want, f.ProbeID) || f.LedgerAuthorized != final.Verdicts[f.ProbeID].Authorized {
						t.Fatalf("%s %s: formation row %+v", id, c.ID, f)
					}
				}
				found++
				break
			}
		}
	}
	if found == 0 {
		t.Fatal("no built-in case has a probe authorized early and denied at its final block")
	}
}

func strp(s string) *string { return &s }

// TestCurrentMemories: with states, the last state of a block wins and a block without one
// keeps the previous memory (a state naming an unknown memory leaves none); without states,
// the latest memory at or before each block is current and "accepted" at its own block.
func TestCurrentMemories(t *testing.T) {
	mems := []Memory{{ID: "m2", Block: 2}, {ID: "m0", Block: 0}}
	cur, status := CurrentMemories(mems, nil, 3)
	if !reflect.DeepEqual(cur, []int{1, 1, 0, 0}) || !reflect.DeepEqual(status, []string{"accepted", "", "accepted", ""}) {
		t.Errorf("one-shot: %v %v", cur, status)
	}
	states := []State{
		{Block: 0, Status: "accepted", Current: strp("m0")},
		{Block: 1, Status: "writer_error"},
		{Block: 1, Status: "retained_after_failed_update", Current: strp("m0")},
		{Block: 2, Status: "accepted", Current: strp("m2")},
		{Block: 3, Status: "accepted", Current: strp("gone")},
	}
	cur, status = CurrentMemories(mems, states, 4)
	if !reflect.DeepEqual(cur, []int{1, 1, 0, -1, -1}) || !reflect.DeepEqual(status, []string{"accepted", "retained_after_failed_update", "accepted", "accepted", ""}) {
		t.Errorf("incremental: %v %v", cur, status)
	}
	if cur, _ := CurrentMemories(nil, nil, 1); !reflect.DeepEqual(cur, []int{-1, -1}) {
		t.Errorf("no memory: %v", cur)
	}
}

// TestCitedTurns: the turns of the block a typed payload's records cite, in turn order,
// citations trimmed; other blocks' turns and non-string ids are not listed.
func TestCitedTurns(t *testing.T) {
	c := &engine.Case{Blocks: []engine.Block{
		{Index: 0, Turns: []engine.Turn{{ID: "a"}, {ID: "b"}}},
		{Index: 1, Turns: []engine.Turn{{ID: "c"}, {ID: "d"}, {ID: "e"}}},
	}}
	payload := map[string]any{"authorizations": []any{
		map[string]any{"source_turn_ids": []any{"e", " c ", 7}},
		map[string]any{"source_turn_ids": []any{"a"}},
	}}
	if got := CitedTurns(payload, c, 1); !reflect.DeepEqual(got, []string{"c", "e"}) {
		t.Errorf("block 1: %v", got)
	}
	if got := CitedTurns("free text", c, 0); len(got) != 0 || got == nil {
		t.Errorf("free text: %#v", got)
	}
}
