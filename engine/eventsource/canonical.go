package eventsource

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// CanonicalEvents are a case's ledger events as the event writer's tool would state them,
// grouped by block (core.py _canonical_events_by_block): a record's content is normalised by
// the domain's strict parser and loses the system-owned status and source_turn_ids; a
// replace targets the record it supersedes; a patch's changes move the domain's flat scope
// fields under scope (procurement) or flatten scope lists into joined strings (finance).
// They are what a writer that misses nothing would send, and the scripted event writer's
// starting point.
func CanonicalEvents(spec engine.EventSourcingSpec, codec engine.MemoryCodec, c *engine.Case) (map[int][]map[string]any, error) {
	events := append([]engine.Event(nil), c.Events...)
	sort.SliceStable(events, func(i, j int) bool {
		a, b := events[i], events[j]
		if a.BlockIndex != b.BlockIndex {
			return a.BlockIndex < b.BlockIndex
		}
		if spec.OrderByEffectiveAt && a.EffectiveAt != b.EffectiveAt {
			return a.EffectiveAt < b.EffectiveAt
		}
		return a.ID < b.ID
	})
	out := map[int][]map[string]any{}
	for _, e := range events {
		ev, err := canonicalEvent(spec, codec, e)
		if err != nil {
			return nil, fmt.Errorf("case %s, event %s: %w", c.ID, e.ID, err)
		}
		out[e.BlockIndex] = append(out[e.BlockIndex], ev)
	}
	return out, nil
}

func canonicalEvent(spec engine.EventSourcingSpec, codec engine.MemoryCodec, e engine.Event) (map[string]any, error) {
	var target any
	switch e.Type {
	case Replace, Patch, Revoke:
		target = e.AuthorizationID
	case Issue:
	default:
		return nil, fmt.Errorf("unsupported ledger event type %q", e.Type)
	}
	sources := make([]any, len(e.SourceTurnIDs))
	for i, s := range e.SourceTurnIDs {
		sources[i] = s
	}
	var record, changes any
	if e.Detail != nil {
		tree, err := pyjson.Retree(e.Detail)
		if err != nil {
			return nil, err
		}
		detail, ok := tree.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("event detail is not an object")
		}
		switch e.Type {
		case Issue, Replace:
			if e.Type == Replace && spec.ReplacementTargetField != "authorization_id" {
				// The ledger names the replaced record in the new record's own field.
				target = pyStr(detail[spec.ReplacementTargetField])
			}
			rec, err := canonicalRecord(spec, codec, detail)
			if err != nil {
				return nil, err
			}
			record = rec
		case Patch:
			changes = canonicalChanges(spec, detail)
		}
	}
	return map[string]any{
		"event_type": e.Type, "target_authorization_id": target, "source_turn_ids": sources,
		"record": record, "changes": changes,
	}, nil
}

// canonicalRecord is core.py _canonical_record_content.
func canonicalRecord(spec engine.EventSourcingSpec, codec engine.MemoryCodec, raw map[string]any) (map[string]any, error) {
	raw = pyjson.CloneObject(raw)
	if len(spec.NestedScopeFields) > 0 {
		if _, ok := raw["scope"]; !ok {
			scope := map[string]any{}
			for _, f := range spec.NestedScopeFields {
				scope[f] = raw[f]
				delete(raw, f)
			}
			raw["scope"] = scope
		}
	}
	payload := map[string]any{"schema_version": codec.TypedSchemaVersion(), "authorizations": []any{raw}}
	records, err := codec.ParseTyped(payload)
	if err != nil {
		return nil, err
	}
	tree, err := pyjson.Retree(codec.TypedPayload(records))
	if err != nil {
		return nil, err
	}
	norm := tree.(map[string]any)["authorizations"].([]any)[0].(map[string]any)
	delete(norm, "status")
	delete(norm, "source_turn_ids")
	return norm, nil
}

// canonicalChanges is core.py _canonical_changes.
func canonicalChanges(spec engine.EventSourcingSpec, raw map[string]any) map[string]any {
	changes := pyjson.CloneObject(raw)
	switch {
	case len(spec.NestedScopeFields) > 0:
		scope := map[string]any{}
		for _, f := range spec.NestedScopeFields {
			if v, ok := changes[f]; ok {
				scope[f] = v
				delete(changes, f)
			}
		}
		if len(scope) > 0 {
			changes["scope"] = scope
		}
	case len(spec.FlattenedScopeListFields) > 0:
		if scope, ok := changes["scope"].(map[string]any); ok {
			delete(changes, "scope")
			for k, v := range scope {
				changes[k] = v
			}
			sep := " | "
			if spec.SourceIDSeparator != nil {
				sep = *spec.SourceIDSeparator
			}
			for _, f := range spec.FlattenedScopeListFields {
				if list, ok := changes[f].([]any); ok {
					parts := make([]string, len(list))
					for i, x := range list {
						parts[i] = pyStr(x)
					}
					changes[f] = strings.Join(parts, sep)
				}
			}
		}
	}
	return changes
}

// BlockContext is what the runtime derives for one block's batch (runtime.py _attempt_input):
// the source ids the writer can see, the previous state's citations and the block's turns,
// and the record ids (of every record, inactive too) the block's rendered text names.
func BlockContext(r *Reducer, previous map[string]any, c *engine.Case, block int, blockText string) (visible, addressable []string) {
	seen := map[string]bool{}
	for _, id := range ReferencedSourceIDs(r.Spec, previous) {
		if !seen[id] {
			seen[id] = true
			visible = append(visible, id)
		}
	}
	for _, b := range c.Blocks {
		if b.Index != block {
			continue
		}
		for _, t := range b.Turns {
			if !seen[t.ID] {
				seen[t.ID] = true
				visible = append(visible, t.ID)
			}
		}
	}
	sort.Strings(visible)
	for _, id := range r.SortedIDs() {
		if strings.Contains(blockText, id) {
			addressable = append(addressable, id)
		}
	}
	return visible, addressable
}
