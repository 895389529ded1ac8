package envelope

import (
	"fmt"
	"sort"
)

// Event types of the envelope ledger.
const (
	EventIssue   = "issue"
	EventPatch   = "patch"
	EventRevoke  = "revoke"
	EventReplace = "replace"
)

// Record statuses.
const (
	StatusActive     = "active"
	StatusRevoked    = "revoked"
	StatusSuperseded = "superseded"
	StatusUnknown    = "unknown"
)

// Event is one lifecycle event of an envelope case (the jsonable AuthorizationEvent of the
// cybersecurity and finance models): one source turn per event.
type Event struct {
	ID              string
	BlockIndex      int
	Type            string
	AuthorizationID string
	Issuer          string
	SourceTurnID    string
	// Record is the new record of an issue or replace.
	Record *Record
	// Changes is the patch of a patch event.
	Changes *Changes
	// Supersedes is the record a replace supersedes.
	Supersedes *string
}

// Changes is a patch: direct envelope fields replace the record's, and the scope is merged
// shallowly (the keys present replace the record's scope keys; docs/FORMATS.md 3.3).
type Changes struct {
	// Direct holds the envelope fields the patch sets: "status" as a string, the other
	// string fields as *string (nil for an explicit null).
	Direct map[string]any
	// Scope holds the scope keys the patch sets (nil when the patch has no scope).
	Scope Scope
}

// DirectPatchFields are the envelope fields a patch may set. authorization_id and
// source_turn_ids are left out on purpose: in EAL-Bench a patch that renames a record or sets
// its sources crashes the replay (the sources are always appended).
var DirectPatchFields = []string{"issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "supersedes"}

// Apply returns a copy of r with the patch applied and the event's source appended.
func (c *Changes) Apply(r *Record, sourceTurnID string) *Record {
	out := r.Clone()
	for k, v := range c.Direct {
		if k == "status" {
			out.State = v.(string)
		} else if field := out.optional(k); field != nil {
			*field = cloneStr(v.(*string))
		}
	}
	for k, v := range c.Scope {
		if l, ok := v.([]string); ok {
			v = append([]string{}, l...)
		}
		out.Scope[k] = v
	}
	out.SourceTurnIDs = append(out.SourceTurnIDs, sourceTurnID)
	return out
}

// SortEvents orders events the way the replay applies them: by (block_index, event_id).
func SortEvents(events []Event) []Event {
	out := append([]Event(nil), events...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].BlockIndex != out[j].BlockIndex {
			return out[i].BlockIndex < out[j].BlockIndex
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ReplayAll applies the events of blocks 0..through and returns every record, inactive ones
// included, sorted by id. Issue and replace set the record under the event's authorization
// id; replace also marks its superseded target (when present) "superseded"; patch applies the
// changes and appends the source; revoke marks "revoked" and appends the source. A patch or
// revoke whose target was never issued is an error, as in EAL-Bench.
func ReplayAll(events []Event, through int) ([]*Record, error) {
	records := map[string]*Record{}
	for _, e := range SortEvents(events) {
		if e.BlockIndex > through {
			break
		}
		switch e.Type {
		case EventIssue, EventReplace:
			if e.Record == nil {
				return nil, fmt.Errorf("event %s: %s event has no record", e.ID, e.Type)
			}
			records[e.AuthorizationID] = e.Record.Clone()
			if e.Type == EventReplace && e.Supersedes != nil {
				if old, ok := records[*e.Supersedes]; ok {
					old = old.Clone()
					old.State = StatusSuperseded
					records[*e.Supersedes] = old
				}
			}
		case EventPatch:
			cur, ok := records[e.AuthorizationID]
			if !ok || e.Changes == nil {
				return nil, fmt.Errorf("event %s: patch target %s is unavailable", e.ID, e.AuthorizationID)
			}
			records[e.AuthorizationID] = e.Changes.Apply(cur, e.SourceTurnID)
		case EventRevoke:
			cur, ok := records[e.AuthorizationID]
			if !ok {
				return nil, fmt.Errorf("event %s: revoke target %s is unavailable", e.ID, e.AuthorizationID)
			}
			cur = cur.Clone()
			cur.State = StatusRevoked
			cur.SourceTurnIDs = append(cur.SourceTurnIDs, e.SourceTurnID)
			records[e.AuthorizationID] = cur
		default:
			return nil, fmt.Errorf("event %s: unsupported event type %q", e.ID, e.Type)
		}
	}
	out := make([]*Record, 0, len(records))
	for _, r := range records {
		out = append(out, r)
	}
	SortByID(out)
	return out, nil
}

// Replay is the envelope domains' ledger (docs/FORMATS.md 3.3, 3.4): ReplayAll keeping only the
// records whose status is "active", so faithful memories hold only grants in force.
func Replay(events []Event, through int) ([]*Record, error) {
	all, err := ReplayAll(events, through)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, r := range all {
		if r.State == StatusActive {
			out = append(out, r)
		}
	}
	return out, nil
}
