package cause

import (
	"sync"

	"github.com/ealscope/ealscope/engine"
)

// Cache keeps what does not change between the failures of one case: each turn's mention
// index and the ledger replayed through each block. Attributing every failure of a chain (or
// of all chains of a case) with one Cache reads each turn once. A Cache belongs to one case.
type Cache struct {
	mu       sync.Mutex
	c        *engine.Case
	mentions map[string]*mentions
	ledgers  map[int]*ledgerView
}

// NewCache is an empty cache for case c.
func NewCache(c *engine.Case) *Cache {
	return &Cache{c: c, mentions: map[string]*mentions{}, ledgers: map[int]*ledgerView{}}
}

func (k *Cache) usable(c *engine.Case) bool { return k != nil && k.c == c }

func (k *Cache) mentionsOf(id, text string) *mentions {
	k.mu.Lock()
	defer k.mu.Unlock()
	if m, ok := k.mentions[id]; ok {
		return m
	}
	m := readMentions(text)
	k.mentions[id] = &m
	return &m
}

func (k *Cache) ledger(d engine.Domain, c *engine.Case, through int) (*ledgerView, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if lv, ok := k.ledgers[through]; ok {
		return lv, nil
	}
	lv, err := newLedgerView(d, c, through)
	if err == nil {
		k.ledgers[through] = lv
	}
	return lv, err
}
