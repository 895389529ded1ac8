package eventsource

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Error is a rejected batch: the Python exception class EAL-Bench's reducer raises
// ("ValueError" for its own hand-written checks, "ValidationError" where the domain's strict
// parser refuses the reduced state, "KeyError"/"TypeError" where the reducer trips over a
// missing record or a wrong type) and str(exception). runtime.py catches all four and
// records the message as the attempt's detail.
type Error struct {
	Exception string `json:"exception"`
	Message   string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

func valueErr(format string, args ...any) *Error {
	return &Error{Exception: "ValueError", Message: fmt.Sprintf(format, args...)}
}

// keyErr is str(KeyError(key)): the key's repr.
func keyErr(key string) *Error { return &Error{Exception: "KeyError", Message: pyjson.StrRepr(key)} }

// Reducer is EAL-Bench's PublicEventReducer: every record ever issued, keyed by
// authorization id (inactive ones included), and the events applied so far. Records are JSON
// trees in the domain's typed record shape.
type Reducer struct {
	Spec    engine.EventSourcingSpec
	Codec   engine.MemoryCodec
	Records map[string]map[string]any
	Log     []Event
}

// New is an empty reducer for a domain.
func New(spec engine.EventSourcingSpec, codec engine.MemoryCodec) *Reducer {
	return &Reducer{Spec: spec, Codec: codec, Records: map[string]map[string]any{}}
}

// ForDomain is an empty reducer for a domain that declares its event-sourcing rules.
func ForDomain(d engine.Domain) (*Reducer, error) {
	rules, ok := d.(engine.EventSourcingRules)
	if !ok {
		return nil, fmt.Errorf("domain %s declares no event-sourcing rules", d.ID())
	}
	return New(rules.EventSourcingSpec(), d), nil
}

// Clone copies the reducer deeply (the batch runs on a clone, which is what makes it atomic).
func (r *Reducer) Clone() *Reducer {
	out := &Reducer{Spec: r.Spec, Codec: r.Codec, Records: make(map[string]map[string]any, len(r.Records))}
	for k, v := range r.Records {
		out.Records[k] = pyjson.CloneObject(v)
	}
	out.Log = append([]Event(nil), r.Log...)
	return out
}

// SortedIDs are the record ids in Python's sorted() order.
func (r *Reducer) SortedIDs() []string {
	ids := make([]string, 0, len(r.Records))
	for k := range r.Records {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return ids
}

// RecordsTree is the records as one JSON object keyed by id (EAL-Bench's records dict).
func (r *Reducer) RecordsTree() map[string]any {
	out := make(map[string]any, len(r.Records))
	for k, v := range r.Records {
		out[k] = pyjson.CloneObject(v)
	}
	return out
}

// LoadRecords replaces the records with a records dict (records_before of a batch).
func (r *Reducer) LoadRecords(tree map[string]any) error {
	r.Records = make(map[string]map[string]any, len(tree))
	for k, v := range tree {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("record %s: expected an object", k)
		}
		r.Records[k] = pyjson.CloneObject(m)
	}
	return nil
}

// VisibleState is the typed state the writer and the executor see: the records sorted by id
// (inactive ones only if the domain retains them), validated and normalised by the domain's
// strict parser. A parser refusal is a "ValidationError".
func (r *Reducer) VisibleState() (map[string]any, error) {
	records := []any{}
	for _, id := range r.SortedIDs() {
		rec := r.Records[id]
		if r.Spec.RetainInactiveRecords || rec["status"] == "active" {
			records = append(records, pyjson.CloneObject(rec))
		}
	}
	payload := map[string]any{"schema_version": r.Codec.TypedSchemaVersion(), "authorizations": records}
	parsed, err := r.Codec.ParseTyped(payload)
	if err != nil {
		return nil, &Error{Exception: "ValidationError", Message: err.Error()}
	}
	tree, err := pyjson.Retree(r.Codec.TypedPayload(parsed))
	if err != nil {
		return nil, &Error{Exception: "ValidationError", Message: err.Error()}
	}
	m, _ := tree.(map[string]any)
	return m, nil
}

// sourceIDs are a record's cited source ids in the domain's storage (core.py
// _record_source_ids): split on the separator, or the list items as strings.
func (r *Reducer) sourceIDs(rec map[string]any) ([]string, error) {
	return recordSourceIDs(r.Spec, rec["source_turn_ids"])
}

func recordSourceIDs(spec engine.EventSourcingSpec, value any) ([]string, error) {
	if spec.SourceIDSeparator != nil {
		s, ok := value.(string)
		if !ok {
			return nil, nil
		}
		return strings.Split(s, *spec.SourceIDSeparator), nil
	}
	switch t := value.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = pyStr(x)
		}
		return out, nil
	case string:
		// Python iterates a string by character.
		var out []string
		for _, c := range t {
			out = append(out, string(c))
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys, nil
	}
	if !pyTruthy(value) {
		// `value or ()`: a falsy value reads as no sources.
		return nil, nil
	}
	return nil, &Error{Exception: "TypeError", Message: fmt.Sprintf("'%s' object is not iterable", pyTypeName(value))}
}

// ReferencedSourceIDs are the source ids a typed state's records cite (the writer may cite
// them again: they are visible through the state it is shown).
func ReferencedSourceIDs(spec engine.EventSourcingSpec, state map[string]any) []string {
	list, _ := state["authorizations"].([]any)
	var out []string
	for _, item := range list {
		rec, _ := item.(map[string]any)
		ids, _ := recordSourceIDs(spec, rec["source_turn_ids"])
		out = append(out, ids...)
	}
	return out
}

// supersedes is core.py _record_supersedes: the domain's "no predecessor" value reads as
// none, anything else as its str().
func (r *Reducer) supersedes(rec map[string]any) *string {
	v := rec["supersedes"]
	if v == nil {
		return nil
	}
	if s, isStr := v.(string); isStr && r.Spec.EmptySupersedes != nil && s == *r.Spec.EmptySupersedes {
		return nil
	}
	s := pyStr(v)
	return &s
}

// generated sets the fields the system owns (core.py _generated_record_fields).
func (r *Reducer) generated(rec map[string]any, status string, supersedes *string, sources []string) {
	rec["status"] = status
	if r.Spec.SourceIDSeparator != nil {
		switch {
		case supersedes != nil && *supersedes != "":
			rec["supersedes"] = *supersedes
		case r.Spec.EmptySupersedes != nil:
			rec["supersedes"] = *r.Spec.EmptySupersedes
		default:
			rec["supersedes"] = nil
		}
		rec["source_turn_ids"] = strings.Join(sources, *r.Spec.SourceIDSeparator)
		return
	}
	if supersedes == nil {
		rec["supersedes"] = nil
	} else {
		rec["supersedes"] = *supersedes
	}
	list := make([]any, len(sources))
	for i, s := range sources {
		list[i] = s
	}
	rec["source_turn_ids"] = list
}

// mergeSources is dict.fromkeys([*old, *new]): the union in first-seen order (never nil).
// A record cites a handful of turns, so a linear membership test is enough.
func mergeSources(old, add []string) []string {
	out := []string{}
	for _, s := range slices.Concat(old, add) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Apply applies one event literally (PublicEventReducer.apply). It assumes the event passed
// ValidateBatch's structural checks; a target with no record is a KeyError, as in Python.
func (r *Reducer) Apply(e Event) error {
	sources := append([]string(nil), e.SourceTurnIDs...)
	switch e.EventType {
	case Issue:
		rec := pyjson.CloneObject(e.Record)
		r.generated(rec, "active", r.supersedes(rec), sources)
		id, ok := rec["authorization_id"]
		if !ok {
			return keyErr("authorization_id")
		}
		r.Records[pyStr(id)] = rec
	case Patch:
		cur, ok := r.Records[e.Target()]
		if !ok {
			return keyErr(e.Target())
		}
		cur = pyjson.CloneObject(cur)
		for k, v := range e.Changes {
			if sm, isMap := v.(map[string]any); k == "scope" && isMap {
				merged := map[string]any{}
				if old, ok := cur["scope"].(map[string]any); ok {
					for sk, sv := range old {
						merged[sk] = sv
					}
				} else if pyTruthy(cur["scope"]) {
					return &Error{Exception: "TypeError", Message: fmt.Sprintf("'%s' object is not a mapping", pyTypeName(cur["scope"]))}
				}
				for sk, sv := range sm {
					merged[sk] = pyjson.CloneTree(sv)
				}
				cur["scope"] = merged
				continue
			}
			cur[k] = pyjson.CloneTree(v)
		}
		old, err := r.sourceIDs(cur)
		if err != nil {
			return err
		}
		status, ok := cur["status"]
		if !ok {
			return keyErr("status")
		}
		r.generated(cur, pyStr(status), r.supersedes(cur), mergeSources(old, sources))
		r.Records[e.Target()] = cur
	case Revoke, Replace:
		cur, ok := r.Records[e.Target()]
		if !ok {
			return keyErr(e.Target())
		}
		cur = pyjson.CloneObject(cur)
		old, err := r.sourceIDs(cur)
		if err != nil {
			return err
		}
		status := "revoked"
		if e.EventType == Replace {
			status = "superseded"
		}
		r.generated(cur, status, r.supersedes(cur), mergeSources(old, sources))
		r.Records[e.Target()] = cur
		if e.EventType == Replace {
			rep := pyjson.CloneObject(e.Record)
			target := e.Target()
			r.generated(rep, "active", &target, sources)
			id, ok := rep["authorization_id"]
			if !ok {
				return keyErr("authorization_id")
			}
			r.Records[pyStr(id)] = rep
		}
	default:
		return valueErr("unsupported event type: %s", pyjson.StrRepr(e.EventType))
	}
	r.Log = append(r.Log, e)
	return nil
}

// ApplyAll applies events in order (replaying an immutable event log).
func (r *Reducer) ApplyAll(events []Event) error {
	for _, e := range events {
		if err := r.Apply(e); err != nil {
			return err
		}
	}
	return nil
}
