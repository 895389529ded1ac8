package engine

import (
	"strconv"
	"strings"
)

// FieldKind says what one field of a typed authorization record holds, so that code outside a
// domain (the writer prompt, the annotation form, the scripted writer's faults, the memory
// pane) can treat a field by its kind without knowing the domain's names.
type FieldKind int

const (
	// KindString is free text ("" and null are distinct only where Nullable says so).
	KindString FieldKind = iota
	// KindEnum takes one of Options.
	KindEnum
	// KindLimit is an integer bound on a request value; Direction says which way grants more.
	KindLimit
	// KindList is a list of strings; a request value must be one of its items.
	KindList
	// KindTimestamp is an ISO 8601 instant.
	KindTimestamp
	// KindCitations is the list of source turn ids a record cites.
	KindCitations
)

// LimitDirection says which way a limit widens what a record grants.
type LimitDirection int

const (
	// UpperLimit grants more as it grows (a maximum amount or quantity).
	UpperLimit LimitDirection = iota
	// LowerLimit grants more as it shrinks (a minimum price).
	LowerLimit
)

// FieldRole marks the fields every envelope has and that generic code acts on by role rather
// than by name (a missed revocation keeps Status active; a wrong window moves ValidUntil).
type FieldRole int

const (
	// RoleNone is a field with no generic role.
	RoleNone FieldRole = iota
	// RoleID is the authorization id.
	RoleID
	// RoleIssuer is the principal who granted the record.
	RoleIssuer
	// RoleStatus is the record's lifecycle status.
	RoleStatus
	// RoleValidFrom and RoleValidUntil bound the half-open validity window.
	RoleValidFrom
	RoleValidUntil
	// RoleSupersedes names the record this one replaces.
	RoleSupersedes
	// RoleSources lists the cited source turns.
	RoleSources
)

// SchemaField is one field of a domain's typed record, as EAL-Bench's pydantic model declares it.
type SchemaField struct {
	// Path is the field's dotted path in a typed-payload record ("scope.max_amount").
	Path string
	// Label is how people read the field ("maximum amount").
	Label string
	Kind  FieldKind
	Role  FieldRole
	// Options are an enum's values in the order a form offers them; "" stands for null.
	Options []string
	// Direction is a limit's widening direction.
	Direction LimitDirection
	// Scope marks the fields that bound what a record grants (compared against a request).
	Scope bool
	// Nullable says the typed schema accepts null for the field.
	Nullable bool
	// Joined is set when the typed payload writes a list as one string joined by it (finance's
	// flat schema " | "); empty for JSON lists.
	Joined string
	// NullText is set when the typed payload writes "no value" as this text rather than null
	// (finance's flat schema writes supersedes "none").
	NullText string
	// Scale is set for a limit stored in minor units: Scale of them make one major unit
	// (finance's prices in micros: 1,000,000). ScaleUnit names the minor unit ("micros").
	Scale     int64
	ScaleUnit string
}

// Readable renders a stored value for people: a scaled limit as its major-unit decimal with
// the stored figure beside it ("125.5 (125500000 micros)"); anything else as given ("" for
// not a scaled integer).
func (f SchemaField) Readable(n int64) string {
	if f.Scale <= 1 {
		return ""
	}
	whole, frac := n/f.Scale, n%f.Scale
	if frac < 0 {
		frac = -frac
	}
	text := strconv.FormatInt(whole, 10)
	if frac != 0 {
		digits := len(strconv.FormatInt(f.Scale, 10)) - 1
		fs := strconv.FormatInt(frac, 10)
		fs = strings.Repeat("0", digits-len(fs)) + fs
		text += "." + strings.TrimRight(fs, "0")
	}
	return text + " (" + strconv.FormatInt(n, 10) + " " + f.ScaleUnit + ")"
}

// Name is the field's last path element ("max_amount").
func (f SchemaField) Name() string {
	if i := strings.LastIndexByte(f.Path, '.'); i >= 0 {
		return f.Path[i+1:]
	}
	return f.Path
}

// RecordSchema is a domain's typed record, declared once: its fields in the pydantic order
// EAL-Bench prompts with. Everything hand-written per domain elsewhere derives from it.
type RecordSchema struct {
	Fields []SchemaField
}

// Field finds a field by path.
func (s RecordSchema) Field(path string) (SchemaField, bool) {
	for _, f := range s.Fields {
		if f.Path == path {
			return f, true
		}
	}
	return SchemaField{}, false
}

// ByRole finds the field with a generic role.
func (s RecordSchema) ByRole(r FieldRole) (SchemaField, bool) {
	for _, f := range s.Fields {
		if f.Role == r {
			return f, true
		}
	}
	return SchemaField{}, false
}

// PathOf is the path of the field with a role ("" when the schema has none).
func (s RecordSchema) PathOf(r FieldRole) string {
	f, _ := s.ByRole(r)
	return f.Path
}

// OfKind lists the fields of one kind, in schema order; scopeOnly keeps scope fields only.
func (s RecordSchema) OfKind(k FieldKind, scopeOnly bool) []SchemaField {
	var out []SchemaField
	for _, f := range s.Fields {
		if f.Kind == k && (!scopeOnly || f.Scope) {
			out = append(out, f)
		}
	}
	return out
}

// KeyOrder is the order of object keys when a typed profile is printed the way pydantic dumps
// it: the profile's own keys (content, schema_version, authorizations), then each record key,
// a nested object's key first and its members right after it.
func (s RecordSchema) KeyOrder() []string {
	out := []string{"content", "schema_version", "authorizations"}
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, f := range s.Fields {
		parts := strings.Split(f.Path, ".")
		for _, p := range parts {
			add(p)
		}
	}
	return out
}

// ComparedFields are the fields two readings of a record are compared on when annotators'
// labels are checked for agreement: status, then the scope fields, then the validity window
// (ids, issuers and citations identify a record rather than say what it grants).
func (s RecordSchema) ComparedFields() []string {
	var out []string
	if p := s.PathOf(RoleStatus); p != "" {
		out = append(out, p)
	}
	for _, f := range s.Fields {
		if f.Scope {
			out = append(out, f.Path)
		}
	}
	for _, r := range []FieldRole{RoleValidFrom, RoleValidUntil} {
		if p := s.PathOf(r); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// GetPath reads a dotted field path ("scope.max_amount") of a record tree (nil when absent).
func GetPath(rec map[string]any, path string) any {
	var cur any = rec
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// SetPath writes a dotted field path of a record tree, making the nested objects it needs.
func SetPath(rec map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := rec
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// ReadablePayload is a typed payload tree with every scaled limit of its records written for
// people (SchemaField.Readable); the tree given is not changed. For display only.
func (s RecordSchema) ReadablePayload(payload any) any {
	m, ok := payload.(map[string]any)
	if !ok {
		return payload
	}
	var scaled []SchemaField
	for _, f := range s.Fields {
		if f.Scale > 1 {
			scaled = append(scaled, f)
		}
	}
	auths, ok := m["authorizations"].([]any)
	if !ok || len(scaled) == 0 {
		return payload
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	recs := make([]any, len(auths))
	for i, a := range auths {
		rec, ok := a.(map[string]any)
		if !ok {
			recs[i] = a
			continue
		}
		cp := copyMaps(rec).(map[string]any)
		for _, f := range scaled {
			if n, ok := intLeaf(GetPath(cp, f.Path)); ok {
				SetPath(cp, f.Path, f.Readable(n))
			}
		}
		recs[i] = cp
	}
	out["authorizations"] = recs
	return out
}

func intLeaf(v any) (int64, bool) {
	switch t := v.(type) {
	case interface{ Int64() (int64, error) }:
		n, err := t.Int64()
		return n, err == nil
	case int64:
		return t, true
	case int:
		return int64(t), true
	}
	return 0, false
}

// copyMaps copies the objects of a tree (lists and leaves are shared: they are not written).
func copyMaps(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = copyMaps(x)
	}
	return out
}
