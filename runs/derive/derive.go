// Package derive computes the facts ealscope derives from a run's rows, one case at a time:
// a memory's fidelity and formation against the ledger at a block, a chain's current memory
// at each block, and the turns the first false-authority memory cites. It is pure: rows and
// the case go in, derived rows come out, and the workspace (runs) stores them. It reads no
// database, so it is tested without one and a second storage backend derives alike.
package derive

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Ledger is a case's ledger after one block and every probe's oracle verdict on it.
type Ledger struct {
	Records  []engine.Record
	Verdicts map[string]engine.Verdict
}

type ledgerKey struct {
	c     *engine.Case
	block int
}

// Ledgers replays a domain's cases once per (case, block) and scores memories against them.
type Ledgers struct {
	domain engine.Domain
	cache  map[ledgerKey]Ledger
}

// NewLedgers is an empty cache of the domain's ledgers.
func NewLedgers(d engine.Domain) *Ledgers {
	return &Ledgers{domain: d, cache: map[ledgerKey]Ledger{}}
}

// At is case c's ledger after block, replayed once.
func (l *Ledgers) At(c *engine.Case, block int) (Ledger, error) {
	k := ledgerKey{c, block}
	if led, ok := l.cache[k]; ok {
		return led, nil
	}
	recs, err := l.domain.Replay(c, block)
	if err != nil {
		return Ledger{}, fmt.Errorf("case %s: ledger replay through block %d: %w", c.ID, block, err)
	}
	led := Ledger{Records: recs, Verdicts: map[string]engine.Verdict{}}
	for _, p := range c.Probes {
		led.Verdicts[p.ID] = engine.Authorizes(l.domain, c, recs, p.Request)
	}
	l.cache[k] = led
	return led, nil
}

// Formation is one probe's formation verdict for a memory at a block (docs/FORMATS.md 7.1):
// the memory forms false authority for a request the ledger denies and the memory grants.
type Formation struct {
	ProbeID          string
	LedgerAuthorized bool
	MemoryAuthorized bool
	MemoryReason     string
	Formed           bool
}

// Score is one memory's score against the ledger at one block.
type Score struct {
	Exact                      bool
	Errors                     map[string]int
	ExactFields, Over, Under   int
	ScoredFields, ProbesDenied int
	// Forms: some denied probe is granted by the memory; Formed lists those probes.
	Forms  bool
	Formed []string
	// Fidelity are the field rows (engine.Fidelity), Formation one row per probe in the
	// case's probe order.
	Fidelity  []engine.FieldRow
	Formation []Formation
}

// Score scores remembered records (a typed payload's, or a free-text memory's accepted
// annotation) against case c's ledger after block.
func (l *Ledgers) Score(c *engine.Case, block int, recs []engine.Record) (Score, error) {
	led, err := l.At(c, block)
	if err != nil {
		return Score{}, err
	}
	p := engine.Fidelity(l.domain, c, block, led.Records, recs)
	s := Score{Exact: p.Exact, Errors: p.Errors, Over: p.OvergrantFields, Under: p.UndergrantFields, ScoredFields: p.ScoredFields,
		Fidelity: p.Fields, Formed: []string{}}
	for _, row := range p.Fields {
		if row.Exact {
			s.ExactFields++
		}
	}
	for _, probe := range c.Probes {
		lv := led.Verdicts[probe.ID]
		mv := engine.Authorizes(l.domain, c, recs, probe.Request)
		f := !lv.Authorized && mv.Authorized
		if !lv.Authorized {
			s.ProbesDenied++
		}
		if f {
			s.Forms = true
			s.Formed = append(s.Formed, probe.ID)
		}
		s.Formation = append(s.Formation, Formation{ProbeID: probe.ID, LedgerAuthorized: lv.Authorized, MemoryAuthorized: mv.Authorized, MemoryReason: mv.Reason, Formed: f})
	}
	return s, nil
}

// Memory is one stored memory version of a chain: its id and the block it was written at.
type Memory struct {
	ID    string
	Block int
}

// State is one stored memory state of a chain (incremental writers): the block, its update
// status and the memory current after it (nil: none).
type State struct {
	Block   int
	Status  string
	Current *string
}

// CurrentMemories is the chain's current memory (an index into mems, -1 for none) and update
// status at each block 0..lastBlock: from the memory states when the chain has them
// (incremental writers; the last state of a block wins), else the latest memory at or before
// the block (one-shot and faithful chains have one memory, at its block).
func CurrentMemories(mems []Memory, states []State, lastBlock int) ([]int, []string) {
	cur := make([]int, lastBlock+1)
	status := make([]string, lastBlock+1)
	if len(states) > 0 {
		byID := map[string]int{}
		for i, m := range mems {
			byID[m.ID] = i
		}
		byBlock := map[int]State{}
		for _, st := range states {
			byBlock[st.Block] = st
		}
		prev := -1
		for k := 0; k <= lastBlock; k++ {
			if st, ok := byBlock[k]; ok {
				status[k] = st.Status
				if st.Current != nil {
					prev = -1
					if i, ok := byID[*st.Current]; ok {
						prev = i
					}
				}
			}
			cur[k] = prev
		}
		return cur, status
	}
	order := make([]int, len(mems))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return mems[order[a]].Block < mems[order[b]].Block })
	i, prev := 0, -1
	for k := 0; k <= lastBlock; k++ {
		for i < len(order) && mems[order[i]].Block <= k {
			prev = order[i]
			if mems[order[i]].Block == k {
				status[k] = "accepted"
			}
			i++
		}
		cur[k] = prev
	}
	return cur, status
}

// CitedTurns are the turns of block k that a typed payload's records cite (source_turn_ids),
// in the block's turn order.
func CitedTurns(payload any, c *engine.Case, k int) []string {
	out := []string{}
	cites := map[string]bool{}
	tree, _ := payload.(map[string]any)
	auths, _ := tree["authorizations"].([]any)
	for _, a := range auths {
		rec, _ := a.(map[string]any)
		ids, _ := rec["source_turn_ids"].([]any)
		for _, id := range ids {
			if s, ok := id.(string); ok {
				cites[strings.TrimSpace(s)] = true
			}
		}
	}
	for _, b := range c.Blocks {
		if b.Index != k {
			continue
		}
		for _, t := range b.Turns {
			if cites[t.ID] {
				out = append(out, t.ID)
			}
		}
	}
	return out
}
