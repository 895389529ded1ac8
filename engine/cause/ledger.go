package cause

import (
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// ledgerView is the ledger of a case replayed through every block up to the error block, as
// typed-record trees keyed by authorization id: what the principals had granted at each
// block, read through the domain's LedgerRules and MemoryCodec only.
type ledgerView struct {
	d       engine.Domain
	c       *engine.Case
	schema  engine.RecordSchema
	records [][]engine.Record
	trees   []map[string]map[string]any
}

func newLedgerView(d engine.Domain, c *engine.Case, through int) (*ledgerView, error) {
	lv := &ledgerView{d: d, c: c, schema: d.Schema()}
	for b := 0; b <= through; b++ {
		recs, err := d.Replay(c, b)
		if err != nil {
			return nil, err
		}
		trees, err := recordTrees(d, lv.schema, recs)
		if err != nil {
			return nil, err
		}
		lv.records = append(lv.records, recs)
		lv.trees = append(lv.trees, trees)
	}
	return lv, nil
}

// recordTrees writes records as typed-payload trees keyed by id.
func recordTrees(d engine.MemoryCodec, schema engine.RecordSchema, recs []engine.Record) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	if len(recs) == 0 {
		return out, nil
	}
	tree, err := pyjson.Retree(d.TypedPayload(recs))
	if err != nil {
		return nil, err
	}
	root, _ := tree.(map[string]any)
	list, _ := root["authorizations"].([]any)
	idPath := schema.PathOf(engine.RoleID)
	for _, r := range list {
		m, _ := r.(map[string]any)
		if id, ok := engine.GetPath(m, idPath).(string); ok {
			out[id] = m
		}
	}
	return out, nil
}

// at is the ledger record id at block b (nil when it does not hold it).
func (lv *ledgerView) at(b int, id string) map[string]any {
	if b < 0 || b >= len(lv.trees) {
		return nil
	}
	return lv.trees[b][id]
}

// relevant are the ids of the ledger records that authorized the request at some block up
// to the error block: the records a message about this request is about.
func (lv *ledgerView) relevant(request any) map[string]bool {
	out := map[string]bool{}
	if request == nil {
		return out
	}
	for _, recs := range lv.records {
		for _, r := range recs {
			if lv.d.Deny(lv.c, r, request) == "" {
				out[r.AuthorizationID()] = true
			}
		}
	}
	return out
}

// eventsAt are the case's ledger events of block b on record id (any record when id is "").
func (lv *ledgerView) eventsAt(b int, id string) []engine.Event {
	var out []engine.Event
	for _, e := range lv.c.Events {
		if e.BlockIndex == b && (id == "" || e.AuthorizationID == id || e.NewAuthorizationID == id) {
			out = append(out, e)
		}
	}
	return out
}

// lastSet finds the block up to `through` whose events last set field of record id (the
// whole record when field is ""): the latest block where the ledger's value differs from the
// block before. -1 when no block did.
func (lv *ledgerView) lastSet(id, field string, through int) int {
	val := func(b int) (string, bool) {
		r := lv.at(b, id)
		if r == nil {
			return "", false
		}
		if field == "" {
			return valueKey(r), true
		}
		return valueKey(engine.GetPath(r, field)), true
	}
	for b := through; b >= 0; b-- {
		cur, okc := val(b)
		prev, okp := val(b - 1)
		if okc != okp || cur != prev {
			if len(lv.eventsAt(b, id)) > 0 {
				return b
			}
		}
	}
	return -1
}

// lastEvent is the block of the last event on record id up to through (-1: none).
func (lv *ledgerView) lastEvent(id string, through int) int {
	last := -1
	for _, e := range lv.c.Events {
		if e.BlockIndex <= through && (e.AuthorizationID == id || e.NewAuthorizationID == id) && e.BlockIndex > last {
			last = e.BlockIndex
		}
	}
	return last
}

func valueKey(v any) string {
	s, err := pyjson.CanonicalJSON(v)
	if err != nil {
		return ""
	}
	return s
}

// fieldValues are the values a field holds as a writer would state them: a list's items
// each, a scalar as its text.
func fieldValues(f engine.SchemaField, v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, it := range x {
			out = append(out, leafText(it))
		}
		return out
	case string:
		if f.Joined != "" {
			var out []string
			for _, it := range strings.Split(x, f.Joined) {
				out = append(out, strings.TrimSpace(it))
			}
			return out
		}
		if f.NullText != "" && x == f.NullText {
			return nil
		}
		return []string{x}
	}
	return []string{leafText(v)}
}

// takenValues are the values the memory holds in a field that the ledger's does not: a
// list's extra items, or the scalar itself when it differs.
func takenValues(f engine.SchemaField, mem, led any) []string {
	mv, lv := fieldValues(f, mem), fieldValues(f, led)
	if f.Kind == engine.KindList {
		have := map[string]bool{}
		for _, x := range lv {
			have[x] = true
		}
		var out []string
		for _, x := range mv {
			if !have[x] {
				out = append(out, x)
			}
		}
		return out
	}
	if valueKey(mem) == valueKey(led) {
		return nil
	}
	return mv
}
