package eventsource

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// Identities of EAL-Bench's bounded event sourcing (core.py).
const (
	// ConditionID is the writer condition.
	ConditionID = "bounded_event_sourced_typed"
	// ImplementationID is the memory implementation the condition's rows carry.
	ImplementationID = "bounded_event_sourcing_v1"
	// EventSchemaVersion is every event's schema_version.
	EventSchemaVersion = "bounded_authorization_event_v1"
	// ToolName is the event writer's one tool.
	ToolName = "record_authorization_events"
	// MaxEventsPerBlock bounds one batch.
	MaxEventsPerBlock = 32
	// ReducerID names the reducer in memory artifacts' framework object.
	ReducerID = "public_event_reducer_v1"
)

// The four event types, in the tool schema's order.
const (
	Issue   = "issue"
	Patch   = "patch"
	Revoke  = "revoke"
	Replace = "replace"
)

// EventTypes lists the event types in the tool schema's order.
var EventTypes = []string{Issue, Patch, Revoke, Replace}

// Event is one extracted lifecycle event after the system assigned its id (core.py
// ExtractedEvent). Record and Changes are JSON trees (json.Number leaves) or nil.
type Event struct {
	EventID               string
	EventType             string
	TargetAuthorizationID *string
	SourceTurnIDs         []string
	Record                map[string]any
	Changes               map[string]any
	EventIndex            int
}

// Tree is the event in EAL-Bench's to_dict shape.
func (e Event) Tree() map[string]any {
	var target any
	if e.TargetAuthorizationID != nil {
		target = *e.TargetAuthorizationID
	}
	sources := make([]any, len(e.SourceTurnIDs))
	for i, s := range e.SourceTurnIDs {
		sources[i] = s
	}
	var record, changes any
	if e.Record != nil {
		record = pyjson.CloneObject(e.Record)
	}
	if e.Changes != nil {
		changes = pyjson.CloneObject(e.Changes)
	}
	return map[string]any{
		"schema_version":          EventSchemaVersion,
		"event_id":                e.EventID,
		"event_type":              e.EventType,
		"target_authorization_id": target,
		"source_turn_ids":         sources,
		"record":                  record,
		"changes":                 changes,
		"event_index":             e.EventIndex,
	}
}

// Target is the event's target id, "" for none.
func (e Event) Target() string {
	if e.TargetAuthorizationID == nil {
		return ""
	}
	return *e.TargetAuthorizationID
}

var eventIDUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// EventID is the system-assigned id of the event at index within the batch of one logical
// update: evtgen_{re.sub('[^A-Za-z0-9._-]+','-',logical_update_id).strip('-')}_{index:02d}.
func EventID(logicalUpdateID string, index int) string {
	safe := strings.Trim(eventIDUnsafe.ReplaceAllString(logicalUpdateID, "-"), "-")
	return fmt.Sprintf("evtgen_%s_%02d", safe, index)
}

// EventFromTree reads an event row (to_dict shape, as in an event log) back.
func EventFromTree(m map[string]any) (Event, error) {
	e := Event{}
	var ok bool
	if e.EventID, ok = m["event_id"].(string); !ok {
		return e, fmt.Errorf("event_id: expected a string")
	}
	if e.EventType, ok = m["event_type"].(string); !ok {
		return e, fmt.Errorf("event_type: expected a string")
	}
	switch t := m["target_authorization_id"].(type) {
	case nil:
	case string:
		e.TargetAuthorizationID = &t
	default:
		return e, fmt.Errorf("target_authorization_id: expected a string or null")
	}
	list, ok := m["source_turn_ids"].([]any)
	if !ok {
		return e, fmt.Errorf("source_turn_ids: expected a list")
	}
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return e, fmt.Errorf("source_turn_ids[%d]: expected a string", i)
		}
		e.SourceTurnIDs = append(e.SourceTurnIDs, s)
	}
	for _, k := range []string{"record", "changes"} {
		switch t := m[k].(type) {
		case nil:
		case map[string]any:
			if k == "record" {
				e.Record = pyjson.CloneObject(t)
			} else {
				e.Changes = pyjson.CloneObject(t)
			}
		default:
			return e, fmt.Errorf("%s: expected an object or null", k)
		}
	}
	idx, err := intOf(m["event_index"])
	if err != nil {
		return e, fmt.Errorf("event_index: %v", err)
	}
	e.EventIndex = idx
	return e, nil
}
