package procurement

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/domains/internal/freetext"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

const (
	// TypedSchemaVersion is the procurement typed memory schema_version.
	TypedSchemaVersion = "3"
	// PayloadSchemaID identifies the typed payload schema in memory artifacts.
	PayloadSchemaID = "procurement/authorization-state/v3"
	// MaxAuthorizations is the typed schema's record cap.
	MaxAuthorizations = 32
	// PrimaryCapacityTokens is EAL-Bench's calibrated primary writer budget for procurement.
	PrimaryCapacityTokens = 572
	// TightCapacityTokens is the tight budget.
	TightCapacityTokens = 358
)

var (
	profileKeys  = []string{"schema_version", "authorizations"}
	envelopeKeys = []string{"authorization_id", "issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until", "scope", "supersedes", "source_turn_ids"}
	scopeKeys    = []string{"vendor", "allowed_categories", "max_amount", "currency"}
	memStatuses  = map[string]bool{"active": true, "revoked": true, "superseded": true, "unknown": true}
)

// ParseTypedPayload validates a typed memory payload the way EAL-Bench's pydantic profile
// does (strict types, no extra keys, every key present, at most 32 records, unique ids) and
// returns its records. Like pydantic's stripped non-empty strings, ids, source ids and
// categories are whitespace-trimmed.
func ParseTypedPayload(payload any) ([]*Envelope, error) {
	m, ok := payload.(map[string]any)
	if !ok {
		return nil, engine.Errf("", "typed memory must be an object")
	}
	if v, ok := m["schema_version"].(string); !ok || v != TypedSchemaVersion {
		if _, isString := m["schema_version"].(string); !isString && m["schema_version"] != nil {
			// 3 and "3" print alike: say which type is wanted.
			return nil, engine.Errf("schema_version", "must be the string %q, got %s %s", TypedSchemaVersion, typeName(m["schema_version"]), pyRepr(m["schema_version"]))
		}
		return nil, engine.Errf("schema_version", "unsupported procurement memory schema: %s (want the string %q)", pyRepr(m["schema_version"]), TypedSchemaVersion)
	}
	if err := engine.ExactKeys("", m, profileKeys); err != nil {
		return nil, err
	}
	list, err := engine.List("authorizations", m["authorizations"])
	if err != nil {
		return nil, err
	}
	if len(list) > MaxAuthorizations {
		return nil, engine.Errf("authorizations", "at most %d authorizations, got %d", MaxAuthorizations, len(list))
	}
	return adapt.TypedRecords(list, parseEnvelope, false)
}

func pyRepr(v any) string {
	switch t := v.(type) {
	case nil:
		return "missing"
	case string:
		return "'" + t + "'"
	default:
		return fmt.Sprint(t)
	}
}

func parseEnvelope(path string, v any) (*Envelope, error) {
	m, err := engine.Obj(path, v)
	if err != nil {
		return nil, err
	}
	if err := engine.ExactKeys(path, m, envelopeKeys); err != nil {
		return nil, err
	}
	r := reader{}
	e := &Envelope{}
	e.ID = strings.TrimSpace(r.NonEmpty(path+".authorization_id", m["authorization_id"]))
	e.Issuer = r.OptStr(path+".issuer", m["issuer"])
	e.Grantee = r.OptStr(path+".grantee", m["grantee"])
	e.Effect = r.OptStr(path+".effect", m["effect"])
	if r.Err == nil && e.Effect != nil && *e.Effect != "permit_exception" {
		r.Set(engine.Errf(path+".effect", "must be \"permit_exception\" or null, got %q", *e.Effect))
	}
	e.Action = r.OptStr(path+".action", m["action"])
	if r.Err == nil && e.Action != nil && *e.Action != "submit_order" {
		r.Set(engine.Errf(path+".action", "must be \"submit_order\" or null, got %q", *e.Action))
	}
	e.State = r.Str(path+".status", m["status"])
	if r.Err == nil && !memStatuses[e.State] {
		r.Set(engine.Errf(path+".status", "must be one of active, revoked, superseded, unknown, got %q", e.State))
	}
	e.ValidFrom = r.OptStr(path+".valid_from", m["valid_from"])
	e.ValidUntil = r.OptStr(path+".valid_until", m["valid_until"])
	e.Supersedes = r.OptStr(path+".supersedes", m["supersedes"])
	if r.Err == nil {
		sm, err := engine.Obj(path+".scope", m["scope"])
		r.Set(err)
		if err == nil {
			r.Set(engine.ExactKeys(path+".scope", sm, scopeKeys))
			e.Scope.Vendor = r.OptStr(path+".scope.vendor", sm["vendor"])
			if sm["allowed_categories"] != nil && r.Err == nil {
				cats := trimAll(r.StrList(path+".scope.allowed_categories", sm["allowed_categories"]))
				if r.Err == nil {
					r.Set(engine.UniqueNonEmpty(path+".scope.allowed_categories", cats))
				}
				e.Scope.AllowedCategories = cats
			}
			if sm["max_amount"] != nil && r.Err == nil {
				n, err := engine.Int(path+".scope.max_amount", sm["max_amount"])
				r.Set(err)
				if err == nil && n < 0 {
					r.Set(engine.Errf(path+".scope.max_amount", "must be >= 0, got %d", n))
				}
				e.Scope.MaxAmount = &n
			}
			e.Scope.Currency = r.OptStr(path+".scope.currency", sm["currency"])
		}
	}
	if r.Err == nil {
		ids := trimAll(r.StrList(path+".source_turn_ids", m["source_turn_ids"]))
		if r.Err == nil && len(ids) == 0 {
			r.Set(engine.Errf(path+".source_turn_ids", "must list at least one source turn"))
		}
		if r.Err == nil {
			r.Set(engine.UniqueNonEmpty(path+".source_turn_ids", ids))
		}
		e.SourceTurnIDs = ids
	}
	return e, r.Err
}

func trimAll(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

// TypedPayloadOf serialises envelopes as the typed memory payload tree.
func TypedPayloadOf(records []*Envelope) map[string]any {
	auths := make([]any, len(records))
	for i, r := range records {
		auths[i] = r.Tree()
	}
	return map[string]any{"schema_version": TypedSchemaVersion, "authorizations": auths}
}

// EmptyTyped is the empty typed profile.
func EmptyTyped() map[string]any {
	return map[string]any{"schema_version": TypedSchemaVersion, "authorizations": []any{}}
}

// textLayout is the canonical free-text layout: "## Authorization <id>" headings.
var textLayout = freetext.Layout{
	Header:  "# Current authorization state",
	Empty:   "# Current authorization state\n\nNo authorization records are retained.",
	Heading: "Authorization ",
}

type textField struct {
	label string
	get   func(e *Envelope) *string
	set   func(e *Envelope, v string) error
}

func joinOpt(l []string) *string {
	if l == nil {
		return nil
	}
	s := strings.Join(l, ", ")
	return &s
}

// textFields is the canonical free-text layout, in order.
var textFields = []textField{
	{"Status", func(e *Envelope) *string { s := e.State; return &s }, func(e *Envelope, v string) error { e.State = v; return nil }},
	{"Issuer", func(e *Envelope) *string { return e.Issuer }, func(e *Envelope, v string) error { e.Issuer = &v; return nil }},
	{"Grantee", func(e *Envelope) *string { return e.Grantee }, func(e *Envelope, v string) error { e.Grantee = &v; return nil }},
	{"Effect", func(e *Envelope) *string { return e.Effect }, func(e *Envelope, v string) error { e.Effect = &v; return nil }},
	{"Action", func(e *Envelope) *string { return e.Action }, func(e *Envelope, v string) error { e.Action = &v; return nil }},
	{"Vendor", func(e *Envelope) *string { return e.Scope.Vendor }, func(e *Envelope, v string) error { e.Scope.Vendor = &v; return nil }},
	{"Allowed categories", func(e *Envelope) *string { return joinOpt(e.Scope.AllowedCategories) }, func(e *Envelope, v string) error {
		if v == "" { // an empty list renders as an empty value
			e.Scope.AllowedCategories = []string{}
			return nil
		}
		e.Scope.AllowedCategories = strings.Split(v, ", ")
		return nil
	}},
	{"Maximum amount", func(e *Envelope) *string {
		if e.Scope.MaxAmount == nil {
			return nil
		}
		s := strconv.FormatInt(*e.Scope.MaxAmount, 10)
		return &s
	}, func(e *Envelope, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("maximum amount %q is not an integer", v)
		}
		e.Scope.MaxAmount = &n
		return nil
	}},
	{"Currency", func(e *Envelope) *string { return e.Scope.Currency }, func(e *Envelope, v string) error { e.Scope.Currency = &v; return nil }},
	{"Valid from (inclusive)", func(e *Envelope) *string { return e.ValidFrom }, func(e *Envelope, v string) error { e.ValidFrom = &v; return nil }},
	{"Valid until (exclusive)", func(e *Envelope) *string { return e.ValidUntil }, func(e *Envelope, v string) error { e.ValidUntil = &v; return nil }},
	{"Supersedes", func(e *Envelope) *string { return e.Supersedes }, func(e *Envelope, v string) error { e.Supersedes = &v; return nil }},
	{"Source turns", func(e *Envelope) *string {
		if len(e.SourceTurnIDs) == 0 {
			return nil
		}
		return joinOpt(e.SourceTurnIDs)
	}, func(e *Envelope, v string) error { e.SourceTurnIDs = strings.Split(v, ", "); return nil }},
}

// FaithfulTextOf renders envelopes in EAL-Bench's canonical free-text layout (no trailing
// newline; null values omitted).
func FaithfulTextOf(records []*Envelope) string {
	return freetext.Write(textLayout, records, (*Envelope).AuthorizationID, func(e *Envelope, line func(label, value string)) {
		for _, f := range textFields {
			if v := f.get(e); v != nil {
				line(f.label, *v)
			}
		}
	})
}

// ReadFreeTextLayout reads the canonical free-text layout back into envelopes. Anything that
// is not exactly that layout is an error that says which line, so the built-in executor never
// guesses at prose.
func ReadFreeTextLayout(text string) ([]*Envelope, error) {
	lines, err := textLayout.Lines(text)
	if lines == nil || err != nil {
		return nil, err
	}
	labels := map[string]int{}
	for i, f := range textFields {
		labels[f.label] = i
	}
	var out []*Envelope
	var cur *Envelope
	lastField := -1
	heading := func(n int, rest string) error {
		id := strings.TrimSpace(rest)
		if id == "" {
			return fmt.Errorf("line %d: authorization heading without an id", n)
		}
		cur = &Envelope{ID: id}
		out = append(out, cur)
		lastField = -1
		return nil
	}
	field := func(n int, line string) error {
		if cur == nil {
			return fmt.Errorf("line %d: field before any \"## Authorization\" heading", n)
		}
		label, value, ok := strings.Cut(line[2:], ": ")
		if !ok && strings.HasSuffix(line, ":") {
			// "- Label: " with its trailing space trimmed by an editor: an empty value.
			label, value, ok = strings.TrimSuffix(line[2:], ":"), "", true
		}
		idx, known := labels[label]
		if !ok || !known {
			return fmt.Errorf("line %d: %q is not a field of the canonical layout", n, line)
		}
		if idx <= lastField {
			return fmt.Errorf("line %d: field %q is out of order or repeated", n, label)
		}
		lastField = idx
		if err := textFields[idx].set(cur, value); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		return nil
	}
	if err := textLayout.Scan(lines, heading, field); err != nil {
		return nil, err
	}
	for _, e := range out {
		if e.State == "" {
			return nil, fmt.Errorf("authorization %s has no Status line", e.ID)
		}
	}
	// The result must also be a valid typed state (duplicate ids, statuses, ...).
	if _, err := ParseTypedPayload(mustTree(TypedPayloadOf(out))); err != nil {
		return nil, err
	}
	return out, nil
}

func mustTree(v map[string]any) any {
	t, err := pyjson.Retree(v)
	if err != nil {
		panic(err)
	}
	return t
}

// typeName names a JSON value's type as a person reads it ("the number").
func typeName(v any) string {
	switch v.(type) {
	case bool:
		return "the boolean"
	case float64, int, int64, json.Number:
		return "the number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "the value"
}
