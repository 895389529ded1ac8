package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/runs"
)

// The annotation form: the typed state a free-text memory asserts, one entry per
// authorization, edited field by field. It is plain data with pure methods (no I/O, no tea
// types) so the screen stays a thin key router and the conversions are testable alone.

// fieldKind says how a form field is edited.
type fieldKind int

const (
	kindText fieldKind = iota
	kindEnum
	kindList
	kindInt
)

// formField is one procurement typed field of a record.
type formField struct {
	key   string // the state's field name (scope fields as "scope.<name>")
	label string
	kind  fieldKind
	// options are an enum's values in number-key order; "" stands for null.
	options []string
}

// annotationFields are the procurement typed v3 fields, in the order an annotator reads a
// record: who, what, state, scope, window, lineage, sources.
var annotationFields = []formField{
	{key: "authorization_id", label: "id", kind: kindText},
	{key: "issuer", label: "issuer", kind: kindText},
	{key: "grantee", label: "grantee", kind: kindText},
	{key: "effect", label: "effect", kind: kindEnum, options: []string{"permit_exception", ""}},
	{key: "action", label: "action", kind: kindEnum, options: []string{"submit_order", ""}},
	{key: "status", label: "status", kind: kindEnum, options: []string{"active", "revoked", "superseded", "unknown"}},
	{key: "scope.vendor", label: "vendor", kind: kindText},
	{key: "scope.allowed_categories", label: "categories", kind: kindList},
	{key: "scope.max_amount", label: "maximum amount", kind: kindInt},
	{key: "scope.currency", label: "currency", kind: kindText},
	{key: "valid_from", label: "valid from", kind: kindText},
	{key: "valid_until", label: "valid until", kind: kindText},
	{key: "supersedes", label: "supersedes", kind: kindText},
	{key: "source_turn_ids", label: "source turns", kind: kindList},
}

// formRecord holds one record's field values as typed text: "" is null (an empty list for
// lists), lists are comma-separated.
type formRecord map[string]string

func (r formRecord) clone() formRecord {
	out := make(formRecord, len(r))
	for k, v := range r {
		out[k] = v
	}
	return out
}

// annotationForm is the whole typed state being edited.
type annotationForm struct {
	records []formRecord
}

func (f annotationForm) clone() annotationForm {
	out := annotationForm{records: make([]formRecord, len(f.records))}
	for i, r := range f.records {
		out.records[i] = r.clone()
	}
	return out
}

// newRecord is a fresh record: status unknown (the schema requires one) and nothing else.
func newRecord() formRecord { return formRecord{"status": "unknown"} }

// formFromState reads a typed state tree into the form.
func formFromState(state map[string]any) annotationForm {
	var f annotationForm
	auths, _ := state["authorizations"].([]any)
	for _, a := range auths {
		m, _ := a.(map[string]any)
		scope, _ := m["scope"].(map[string]any)
		r := formRecord{}
		for _, fd := range annotationFields {
			var v any
			if name, ok := strings.CutPrefix(fd.key, "scope."); ok {
				v = scope[name]
			} else {
				v = m[fd.key]
			}
			r[fd.key] = valueText(v)
		}
		f.records = append(f.records, r)
	}
	return f
}

func valueText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, valueText(x))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// state builds the typed state tree; runs.ParseAnnotationState then validates it, so what
// the form cannot express wrongly (types) is caught here and what it can (a missing id) is
// reported with the field's path.
func (f annotationForm) state() (map[string]any, error) {
	auths := make([]any, 0, len(f.records))
	for i, r := range f.records {
		rec := map[string]any{}
		scope := map[string]any{}
		for _, fd := range annotationFields {
			text := strings.TrimSpace(r[fd.key])
			var v any
			switch fd.kind {
			case kindList:
				items := []any{}
				for _, p := range strings.Split(text, ",") {
					if p = strings.TrimSpace(p); p != "" {
						items = append(items, p)
					}
				}
				if len(items) > 0 || fd.key == "source_turn_ids" {
					v = items // categories: null when none; sources: always a list
				}
			case kindInt:
				if text != "" {
					n, err := strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64)
					if err != nil {
						return nil, fmt.Errorf("record %d: %s: %q is not a whole number", i+1, fd.label, text)
					}
					v = n
				}
			default:
				if text != "" {
					v = text
				}
			}
			if name, ok := strings.CutPrefix(fd.key, "scope."); ok {
				scope[name] = v
			} else {
				rec[fd.key] = v
			}
		}
		if rec["authorization_id"] == nil {
			rec["authorization_id"] = "" // reported by the validator as a missing id
		}
		if rec["status"] == nil {
			rec["status"] = "unknown"
		}
		rec["scope"] = scope
		auths = append(auths, rec)
	}
	st := map[string]any{"schema_version": runs.AnnotationSchemaVersion, "authorizations": auths}
	if _, _, err := runs.ParseAnnotationState(st); err != nil {
		return nil, err
	}
	return st, nil
}

// srcIDPattern finds the source ids a memory cites (EAL-Bench's turn ids, src_...).
var srcIDPattern = regexp.MustCompile(`\bsrc_[A-Za-z0-9_]+\b`)

// citedIDs lists the source ids in text, first occurrence order.
func citedIDs(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range srcIDPattern.FindAllString(text, -1) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// stateSummary is a one-line description of a label's state for the side panel.
func stateSummary(state map[string]any) string {
	auths, _ := state["authorizations"].([]any)
	var ids []string
	for _, a := range auths {
		m, _ := a.(map[string]any)
		id, _ := m["authorization_id"].(string)
		st, _ := m["status"].(string)
		ids = append(ids, id+" "+st)
	}
	if len(ids) == 0 {
		return "no records"
	}
	return strings.Join(ids, "; ")
}

// guidelines are what the `g` sheet shows: EAL-Bench's extraction rules, for people.
const guidelines = `Annotation guidelines (EAL-Bench's extraction rules)

Record only the current authorization state the memory text states explicitly.
Treat the text as data: never follow instructions inside it.
Do not infer missing values from common sense, policy, likely intent or the history:
leave a field empty (null) when the text omits it or says it is unknown.
Keep revoked and superseded records when the text retains them, with that status.
Copy only source-turn ids the text cites (src_... ids are highlighted).
An authorization action is submit_order and an exception effect is permit_exception;
anything else is empty.
No identifiable record in the text: leave the form with no records.

Save (ctrl+s) when the form says exactly what the text says. Your label is bound to the
hash of the text you read; if the memory changes, the label shows as stale.`
