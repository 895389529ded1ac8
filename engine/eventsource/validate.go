package eventsource

import (
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// TokenCounter counts reference tokens for the capacity check (engine/reftoken's reference
// tokenizer satisfies it; the reducer takes the counter it is given).
type TokenCounter interface {
	Count(text string) int
}

// BatchInput is what one block's batch is checked against (the `input` object of a reference
// reduction): the writer's tool arguments, the source ids it could see (the previous state's
// citations and the current block's turns), the record ids the block's text names (so an
// inactive record may still be addressed), the logical update the event ids derive from, and
// the capacity of the reduced state.
type BatchInput struct {
	Arguments                   any
	VisibleSourceIDs            []string
	AddressableAuthorizationIDs []string
	LogicalUpdateID             string
	CapacityTokens              int
}

// Batch is an accepted batch: its events with their ids, the reduced visible state, its
// reference-token count, and the reducer after it (the state for the next block).
type Batch struct {
	Events       []Event
	ReducedState map[string]any
	Tokens       int
	Reducer      *Reducer
}

var eventKeys = []string{"event_type", "target_authorization_id", "source_turn_ids", "record", "changes"}

// ValidateBatch checks a batch structurally and reduces it atomically on a clone of r (core.py
// validate_event_arguments); r itself is never changed. A rejection is an *Error with
// EAL-Bench's own message. It checks that cited sources were visible, never that they carry
// authority, and it does not judge content: that is left to the domain's parser on the
// reduced state.
func ValidateBatch(r *Reducer, in BatchInput, counter TokenCounter) (*Batch, error) {
	args, ok := in.Arguments.(map[string]any)
	if !ok {
		return nil, &Error{Exception: "TypeError", Message: "arguments must be an object"}
	}
	rawEvents, ok := args["events"].([]any)
	if !ok {
		return nil, valueErr("events must be an array")
	}
	if len(rawEvents) > MaxEventsPerBlock {
		return nil, valueErr("events must contain at most %d entries", MaxEventsPerBlock)
	}
	candidate := r.Clone()
	initial, err := candidate.VisibleState()
	if err != nil {
		return nil, err
	}
	available := addressableIDs(initial, in.AddressableAuthorizationIDs)
	visible := map[string]bool{}
	for _, id := range in.VisibleSourceIDs {
		visible[id] = true
	}
	var parsed []Event
	for index, raw := range rawEvents {
		e, err := r.parseEvent(raw, index, in.LogicalUpdateID, visible, available)
		if err != nil {
			return nil, err
		}
		if err := candidate.Apply(e); err != nil {
			return nil, err
		}
		if e.Record != nil {
			available[pyStr(e.Record["authorization_id"])] = true
		}
		parsed = append(parsed, e)
	}
	reduced, err := candidate.VisibleState()
	if err != nil {
		return nil, err
	}
	text, err := pyjson.CanonicalJSON(reduced)
	if err != nil {
		return nil, &Error{Exception: "ValueError", Message: err.Error()}
	}
	tokens := counter.Count(text)
	if tokens > in.CapacityTokens {
		return nil, valueErr("reduced state uses %d reference tokens, exceeding capacity %d", tokens, in.CapacityTokens)
	}
	if parsed == nil {
		parsed = []Event{}
	}
	return &Batch{Events: parsed, ReducedState: reduced, Tokens: tokens, Reducer: candidate}, nil
}

// addressableIDs are the record ids a batch may target: every record of the state before the
// block and the ids the block's text names. Records the batch issues join them as it goes.
func addressableIDs(initial map[string]any, named []string) map[string]bool {
	available := map[string]bool{}
	if list, ok := initial["authorizations"].([]any); ok {
		for _, item := range list {
			if rec, ok := item.(map[string]any); ok {
				available[pyStr(rec["authorization_id"])] = true
			}
		}
	}
	for _, id := range named {
		available[id] = true
	}
	return available
}

// parseEvent checks event index of a batch structurally, in EAL-Bench's order of checks (its
// fields, type, target, cited sources, then the shape its type requires), and returns it
// with its id; it does not apply it.
func (r *Reducer) parseEvent(raw any, index int, logicalUpdateID string, visible, available map[string]bool) (Event, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Event{}, valueErr("event %d must be an object", index)
	}
	if !sameKeys(m, eventKeys) {
		return Event{}, valueErr("event %d has missing or unexpected fields", index)
	}
	eventType, isStr := m["event_type"].(string)
	switch m["event_type"].(type) {
	case []any, map[string]any:
		return Event{}, &Error{Exception: "TypeError", Message: "unhashable type: '" + pyTypeName(m["event_type"]) + "'"}
	}
	if !isStr || !validType(eventType) {
		return Event{}, valueErr("event %d has an unsupported event_type", index)
	}
	var target *string
	switch t := m["target_authorization_id"].(type) {
	case nil:
	case string:
		if engine.PyStrip(t) == "" {
			return Event{}, valueErr("event %d target must be null or a non-empty string", index)
		}
		target = &t
	default:
		return Event{}, valueErr("event %d target must be null or a non-empty string", index)
	}
	sources, ok := uniqueNonEmptyStrings(m["source_turn_ids"])
	if !ok {
		return Event{}, valueErr("event %d source_turn_ids must be unique non-empty strings", index)
	}
	var unseen []string
	for _, s := range sources {
		if !visible[s] {
			unseen = append(unseen, s)
		}
	}
	if len(unseen) > 0 {
		sort.Strings(unseen)
		return Event{}, valueErr("event %d cites source IDs outside the model-visible state/block: %s", index, pyRepr(unseen))
	}
	if err := r.checkEventShape(m, eventType, target != nil && available[*target], available); err != nil {
		return Event{}, err
	}
	e := Event{
		EventID:               EventID(logicalUpdateID, index),
		EventIndex:            index,
		EventType:             eventType,
		TargetAuthorizationID: target,
		SourceTurnIDs:         sources,
	}
	if record, ok := m["record"].(map[string]any); ok {
		e.Record = pyjson.CloneObject(record)
	}
	if changes, ok := m["changes"].(map[string]any); ok {
		e.Changes = pyjson.CloneObject(changes)
	}
	return e, nil
}

// checkEventShape checks the target, record and changes an event's type requires: an issue
// has no target and a complete record (superseding only an addressable record); patch, revoke
// and replace need an addressable target, with non-empty changes, nothing, or a complete
// record respectively.
func (r *Reducer) checkEventShape(m map[string]any, eventType string, targetAvailable bool, available map[string]bool) error {
	record, recordIsMap := m["record"].(map[string]any)
	changes, changesIsMap := m["changes"].(map[string]any)
	switch eventType {
	case Issue:
		if m["target_authorization_id"] != nil || !recordIsMap || m["changes"] != nil {
			return valueErr("issue requires null target, complete record, and null changes")
		}
		if sup := r.supersedes(record); sup != nil && !available[*sup] {
			return valueErr("issue supersedes reference does not exist in bounded current state")
		}
	case Patch:
		if !targetAvailable {
			return valueErr("patch target does not exist in bounded current state")
		}
		if m["record"] != nil || !changesIsMap || len(changes) == 0 {
			return valueErr("patch requires an existing target, null record, and non-empty changes")
		}
	case Revoke:
		if !targetAvailable {
			return valueErr("revoke target does not exist in bounded current state")
		}
		if m["record"] != nil || m["changes"] != nil {
			return valueErr("revoke requires an existing target and null record/changes")
		}
	case Replace:
		if !targetAvailable {
			return valueErr("replace target does not exist in bounded current state")
		}
		if !recordIsMap || m["changes"] != nil {
			return valueErr("replace requires an existing target, complete record, and null changes")
		}
	}
	return nil
}

func sameKeys(m map[string]any, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func validType(t string) bool {
	for _, x := range EventTypes {
		if t == x {
			return true
		}
	}
	return false
}

func uniqueNonEmptyStrings(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok || engine.PyStrip(s) == "" || seen[s] {
			return nil, false
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, true
}
