package cause

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// memoryChanges finds what the memory after the block holds that the ledger does not, on the
// records that authorize the request: a field whose ledger value would deny it, a record the
// ledger no longer holds active, or one it never held.
func (w *work) memoryChanges() error {
	d, sc := w.in.Domain, w.lv.schema
	after, err := recordTrees(d, sc, w.in.After)
	if err != nil {
		return fmt.Errorf("cause: memory after block %d: %w", w.in.Block, err)
	}
	if w.before, err = recordTrees(d, sc, w.in.Before); err != nil {
		return fmt.Errorf("cause: memory before block %d: %w", w.in.Block, err)
	}
	w.grants = map[string]map[string]any{}
	for _, r := range w.in.After {
		if w.in.Request == nil || d.Deny(w.in.Case, r, w.in.Request) == "" {
			if t := after[r.AuthorizationID()]; t != nil {
				w.grants[r.AuthorizationID()] = t
			}
		}
	}
	k := w.in.Block
	for _, id := range slices.Sorted(maps.Keys(w.grants)) {
		mem, led, prev := w.grants[id], w.lv.at(k, id), w.before[id]
		if led == nil {
			c := Change{AuthorizationID: id, Here: prev == nil || valueKey(prev) != valueKey(mem)}
			if b := w.lv.lastEvent(id, k); b >= 0 {
				c.Ledger, c.Stale = fmt.Sprintf("no longer active after block %d", b), true
			}
			w.changes = append(w.changes, c)
			continue
		}
		var fields []Change
		for _, f := range sc.Fields {
			if !compared(f) || sameField(f, engine.GetPath(mem, f.Path), engine.GetPath(led, f.Path)) {
				continue
			}
			here := prev == nil || !sameField(f, engine.GetPath(prev, f.Path), engine.GetPath(mem, f.Path))
			fields = append(fields, Change{AuthorizationID: id, Field: f.Path, Memory: show(engine.GetPath(mem, f.Path)),
				Ledger: show(engine.GetPath(led, f.Path)), Here: here, Stale: w.heldEarlier(id, f, engine.GetPath(mem, f.Path))})
		}
		w.changes = append(w.changes, w.necessary(id, mem, led, fields)...)
	}
	return nil
}

// heldEarlier says the ledger held value in field f of record id at a block before the error
// block.
func (w *work) heldEarlier(id string, f engine.SchemaField, value any) bool {
	for b := 0; b < w.in.Block; b++ {
		if r := w.lv.at(b, id); r != nil && sameField(f, engine.GetPath(r, f.Path), value) {
			return true
		}
	}
	return false
}

// compared are the fields that bound what a record grants: scope, status, window, issuer.
func compared(f engine.SchemaField) bool {
	switch f.Role {
	case engine.RoleStatus, engine.RoleValidFrom, engine.RoleValidUntil, engine.RoleIssuer:
		return true
	case engine.RoleID, engine.RoleSources, engine.RoleSupersedes:
		return false
	}
	return f.Scope && f.Kind != engine.KindCitations
}

// sameField compares two values of a field as the oracle reads them: lists as sets,
// instants as instants.
func sameField(f engine.SchemaField, a, b any) bool {
	if f.Kind == engine.KindList {
		x, y := fieldValues(f, a), fieldValues(f, b)
		sort.Strings(x)
		sort.Strings(y)
		return strings.Join(x, "\x00") == strings.Join(y, "\x00")
	}
	if f.Kind == engine.KindTimestamp {
		as, aok := a.(string)
		bs, bok := b.(string)
		if aok && bok && sameInstant(as, bs) {
			return true
		}
	}
	return valueKey(a) == valueKey(b)
}

func show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "none"
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = leafText(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if s := leafText(v); s != "" {
		return s
	}
	return valueKey(v)
}

// necessary keeps the wrong fields that make the record grant: those whose ledger value,
// put back alone, makes the record deny the request. When no single field does (the record
// grants through several), all of them are kept.
func (w *work) necessary(id string, mem, led map[string]any, fields []Change) []Change {
	if len(fields) <= 1 || w.in.Request == nil {
		return fields
	}
	var out []Change
	for _, c := range fields {
		fixed := pyjson.CloneTree(mem).(map[string]any)
		engine.SetPath(fixed, c.Field, pyjson.CloneTree(engine.GetPath(led, c.Field)))
		recs, err := w.in.Domain.ParseTyped(map[string]any{"schema_version": w.in.Domain.TypedSchemaVersion(), "authorizations": []any{fixed}})
		if err != nil || len(recs) != 1 {
			continue
		}
		if w.in.Domain.Deny(w.in.Case, recs[0], w.in.Request) != "" {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return fields
	}
	return out
}

// changeBlock is the block whose ledger events set what the change contradicts (-1 for a
// record the ledger never held).
func (w *work) changeBlock(c Change) int {
	if c.Field == "" {
		return w.lv.lastEvent(c.AuthorizationID, w.in.Block)
	}
	if b := w.lv.lastSet(c.AuthorizationID, c.Field, w.in.Block); b >= 0 {
		return b
	}
	return w.lv.lastEvent(c.AuthorizationID, w.in.Block)
}

// traceChanges ranks, for every wrong field of a granting record, the turn behind it: a turn
// that cannot grant and states the value the memory took (or that the record cites), and the
// source turns of the ledger event the memory misapplied.
func (w *work) traceChanges() []*scored {
	var out []*scored
	rules, _ := w.in.Domain.(engine.SourceAuthorityRules)
	after := map[string]engine.Record{}
	for _, r := range w.in.After {
		after[r.AuthorizationID()] = r
	}
	records := engine.SortedSet(w.relevant)
	for _, c := range w.changes {
		taken := w.takenOf(c)
		var cites []string
		if rules != nil && after[c.AuthorizationID] != nil {
			cites = rules.RecordCitations(after[c.AuthorizationID])
		}
		unheld := c.Ledger == "" && c.Field == ""
		citedBy := map[string]bool{}
		for _, id := range cites {
			citedBy[id] = true
		}
		recs := append([]string{c.AuthorizationID}, records...)
		// A turn can have misled the writer into a value only where the writer wrote it: a
		// value the memory already held before the block was not taken from this block. With
		// no memory before, a value the principal granted earlier is read as the later change
		// not applied rather than as a copy the writer followed. A record the ledger never
		// held came from some turn whenever it was written.
		if (c.Here && (w.in.HaveBefore || !c.Stale)) || unheld {
			var found []*scored
			cited := false
			for _, id := range w.h.order {
				var by []string
				if citedBy[id] && unheld {
					by = []string{c.AuthorizationID}
				}
				s := w.h.misleadingEvidence(id, taken, w.beyond, recs, by)
				if s == nil || !hasEvidence(s, EvStatesTaken, EvCitedByMemory) {
					continue
				}
				if citedBy[id] && !unheld {
					s.add(5, EvCitedByMemory, "the memory's "+c.AuthorizationID+" cites it")
				}
				if s.block == w.in.Block {
					s.score += 5
				}
				s.change, s.record = c.Text(), c.AuthorizationID
				found = append(found, s)
				cited = cited || (citedBy[id] && unheld)
			}
			// A record the ledger never held names its own source: that is the writer's own
			// account of where it came from, and other turns stating its values are then not.
			for _, s := range found {
				if !cited || citedBy[s.id] {
					out = append(out, s)
				}
			}
		}
		b := w.changeBlock(c)
		if b < 0 {
			continue
		}
		for _, e := range w.lv.eventsAt(b, c.AuthorizationID) {
			for _, id := range e.SourceTurnIDs {
				s := &scored{id: id, role: RoleMisapplied, block: e.BlockIndex, change: c.Text(), record: c.AuthorizationID}
				s.add(9, EvLedgerSource, fmt.Sprintf("the ledger's %s of %s at block %d comes from it", e.Type, eventRecord(e), e.BlockIndex))
				s.add(0, EvMisapplied, "the memory does not follow it: "+c.Text())
				if citedBy[id] {
					s.add(5, EvCitedByMemory, "the memory's "+c.AuthorizationID+" cites it")
				}
				if c.Here {
					s.score += 3
				}
				if b == w.in.Block {
					s.score += 2
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func hasEvidence(s *scored, kinds ...string) bool {
	for _, e := range s.ev {
		for _, k := range kinds {
			if e.Kind == k {
				return true
			}
		}
	}
	return false
}

// takenOf are the values a turn would have to state for the memory to have taken the change
// from it: a field's wrong values, or an unheld record's scope values no ledger record holds.
func (w *work) takenOf(c Change) []Value {
	sc := w.lv.schema
	mem := w.grants[c.AuthorizationID]
	var out []Value
	if c.Field != "" {
		f, _ := sc.Field(c.Field)
		for _, v := range takenValues(f, engine.GetPath(mem, c.Field), engine.GetPath(w.lv.at(w.in.Block, c.AuthorizationID), c.Field)) {
			out = append(out, Value{Field: c.Field, Text: v, Kind: f.Kind, Scale: f.Scale})
		}
		return out
	}
	for _, f := range sc.Fields {
		if !f.Scope || f.Kind == engine.KindCitations {
			continue
		}
		held := map[string]bool{}
		for _, led := range w.lv.trees[w.in.Block] {
			for _, v := range fieldValues(f, engine.GetPath(led, f.Path)) {
				held[v] = true
			}
		}
		for _, v := range fieldValues(f, engine.GetPath(mem, f.Path)) {
			if !held[v] {
				out = append(out, Value{Field: f.Path, Text: v, Kind: f.Kind, Scale: f.Scale})
			}
		}
	}
	return out
}
