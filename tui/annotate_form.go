package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
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

// formField is one typed field of a record.
type formField struct {
	key   string // the field's dotted path in a typed record
	label string
	kind  fieldKind
	// options are an enum's values in number-key order; "" stands for null.
	options []string
	// nullable: an empty list is null rather than [] (citations are always a list).
	nullable bool
	// joined is the separator of a list the payload writes as one string ("" for JSON lists).
	joined string
}

// formSchema is the form a domain's record schema gives: its fields in schema order and the
// domain that validates what the annotator typed.
type formSchema struct {
	domain           engine.Domain
	fields           []formField
	idKey, statusKey string
	defaultStatus    string
	schemaVersion    string
	actionHint       string
}

// readingOrder is the order an annotator reads a record in: who, what, state, scope, window,
// lineage, sources. It is the schema's order with the validity window moved after the scope.
func readingOrder(fields []engine.SchemaField) []engine.SchemaField {
	var window, rest []engine.SchemaField
	lastScope := -1
	for _, f := range fields {
		if f.Role == engine.RoleValidFrom || f.Role == engine.RoleValidUntil {
			window = append(window, f)
			continue
		}
		rest = append(rest, f)
		if f.Scope {
			lastScope = len(rest) - 1
		}
	}
	if lastScope < 0 {
		return fields
	}
	out := append([]engine.SchemaField{}, rest[:lastScope+1]...)
	out = append(out, window...)
	return append(out, rest[lastScope+1:]...)
}

// newFormSchema derives the form from the domain's record schema.
func newFormSchema(d engine.Domain) formSchema {
	if d == nil {
		return formSchema{}
	}
	sc := d.Schema()
	fs := formSchema{domain: d, idKey: sc.PathOf(engine.RoleID), statusKey: sc.PathOf(engine.RoleStatus), schemaVersion: d.TypedSchemaVersion()}
	var hints []string
	for _, f := range readingOrder(sc.Fields) {
		ff := formField{key: f.Path, label: f.Label, nullable: f.Nullable && f.Kind != engine.KindCitations, joined: f.Joined}
		switch f.Kind {
		case engine.KindEnum:
			ff.kind, ff.options = kindEnum, f.Options
			if f.Role != engine.RoleStatus && len(f.Options) > 0 && f.Options[0] != "" {
				hints = append(hints, fmt.Sprintf("%s is %s", f.Label, f.Options[0]))
			}
		case engine.KindLimit:
			ff.kind = kindInt
		case engine.KindList, engine.KindCitations:
			ff.kind = kindList
		default:
			ff.kind = kindText
		}
		if f.Role == engine.RoleStatus && len(f.Options) > 0 {
			fs.defaultStatus = f.Options[len(f.Options)-1]
			for _, o := range f.Options {
				if o == "unknown" {
					fs.defaultStatus = o
				}
			}
		}
		fs.fields = append(fs.fields, ff)
	}
	if len(hints) > 0 {
		fs.actionHint = "An authorization's " + strings.Join(hints, " and its ") + ";\nanything else is empty."
	}
	return fs
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
func (fs formSchema) newRecord() formRecord {
	if fs.statusKey == "" {
		return formRecord{}
	}
	return formRecord{fs.statusKey: fs.defaultStatus}
}

// fromState reads a typed state tree into the form.
func (fs formSchema) fromState(state map[string]any) annotationForm {
	var f annotationForm
	auths, _ := state["authorizations"].([]any)
	for _, a := range auths {
		m, _ := a.(map[string]any)
		r := formRecord{}
		for _, fd := range fs.fields {
			v := engine.GetPath(m, fd.key)
			if s, ok := v.(string); ok && fd.joined != "" {
				v = strings.ReplaceAll(s, fd.joined, ", ")
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

// state builds the typed state tree; engine.ParseAnnotationState then validates it in the
// domain's schema, so what the form cannot express wrongly (types) is caught here and what it
// can (a missing id) is reported with the field's path.
func (fs formSchema) state(f annotationForm) (map[string]any, error) {
	if fs.domain == nil {
		return nil, fmt.Errorf("no domain schema for this memory")
	}
	auths := make([]any, 0, len(f.records))
	for i, r := range f.records {
		rec := map[string]any{}
		for _, fd := range fs.fields {
			text := strings.TrimSpace(r[fd.key])
			var v any
			switch fd.kind {
			case kindList:
				items := []any{}
				var parts []string
				for _, p := range strings.Split(text, ",") {
					if p = strings.TrimSpace(p); p != "" {
						items = append(items, p)
						parts = append(parts, p)
					}
				}
				switch {
				case fd.joined != "":
					v = strings.Join(parts, fd.joined)
				case len(items) > 0 || !fd.nullable:
					v = items // optional lists: null when none; citations: always a list
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
			engine.SetPath(rec, fd.key, v)
		}
		if fs.idKey != "" && engine.GetPath(rec, fs.idKey) == nil {
			engine.SetPath(rec, fs.idKey, "") // reported by the validator as a missing id
		}
		if fs.statusKey != "" && engine.GetPath(rec, fs.statusKey) == nil {
			engine.SetPath(rec, fs.statusKey, fs.defaultStatus)
		}
		auths = append(auths, rec)
	}
	st := map[string]any{"schema_version": fs.schemaVersion, "authorizations": auths}
	if _, _, err := engine.ParseAnnotationState(fs.domain, st); err != nil {
		return nil, err
	}
	return st, nil
}

// srcIDPattern finds the source ids a memory cites (EAL-Bench's turn ids, src_...).
var srcIDPattern = regexp.MustCompile(`\bsrc_[A-Za-z0-9_]+\b`)

// citedIDs lists the source ids in text, first occurrence order.
func citedIDs(text string) []string { return dedupe(srcIDPattern.FindAllString(text, -1)) }

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

// guidelines are what the `g` sheet shows: EAL-Bench's extraction rules, for people, with
// the domain's fixed effect and action named.
func (fs formSchema) guidelines() string { return fmt.Sprintf(guidelinesText, fs.actionHint) }

const guidelinesText = `Annotation guidelines (EAL-Bench's extraction rules)

Record only the current authorization state the memory text states explicitly.
Treat the text as data: never follow instructions inside it.
Do not infer missing values from common sense, policy, likely intent or the history:
leave a field empty (null) when the text omits it or says it is unknown.
Keep revoked and superseded records when the text retains them, with that status.
Copy only source-turn ids the text cites (src_... ids are highlighted).
%s
No identifiable record in the text: leave the form with no records.

Save (ctrl+s) when the form says exactly what the text says. Your label is bound to the
hash of the text you read; if the memory changes, the label shows as stale.`
