package finance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// The typed memory is the writer-facing flat schema "5" (docs/FORMATS.md 4.2): each mandate is one
// flat object whose list fields are strings joined by " | " and whose supersedes is "none"
// for no predecessor. The nested canonical form (records with a scope object) is accepted too
// and converted to flat, as EAL-Bench's parse_typed does.
const (
	// TypedSchemaVersion is the finance typed memory schema_version.
	TypedSchemaVersion = "5"
	// PayloadSchemaID identifies the flat payload schema in memory artifacts.
	PayloadSchemaID = "finance/portfolio-order-state/v5-flat"
	// ListDelimiter joins the values of a flat list field.
	ListDelimiter = " | "
	// NoSupersedes is the flat schema's "no predecessor".
	NoSupersedes = "none"
)

var (
	profileKeys = []string{"schema_version", "authorizations"}
	flatKeys    = []string{
		"authorization_id", "issuer", "grantee", "effect", "action", "status", "valid_from", "valid_until",
		"account_id", "strategy_ids", "instrument_ids", "sides", "order_types", "max_quantity",
		"min_limit_price_micros", "max_limit_price_micros", "settlement_currency", "supersedes", "source_turn_ids",
	}
	memoryStatuses = []string{envelope.StatusActive, envelope.StatusRevoked, envelope.StatusSuperseded, envelope.StatusUnknown}
	literals       = map[string]string{"issuer": MandateIssuer, "grantee": MandateGrantee, "effect": MandateEffect, "action": MandateAction}
	// nestedProfile is the nested canonical MemoryProfile.
	nestedProfile = envelope.ProfileSpec{
		SchemaVersion: TypedSchemaVersion, Scope: ScopeSpec, Literals: literals, Statuses: memoryStatuses,
		RequireWindow: true, ParseScope: parseProfileScope,
	}
)

// ParseTypedPayload validates a typed memory payload (flat, or nested and converted) the way
// EAL-Bench's FinanceMemoryAdapter.parse_typed does, and returns its mandates in payload
// order. List items keep their own spacing (fidelity compares them as written).
func ParseTypedPayload(payload any) ([]*envelope.Record, error) {
	m, ok := payload.(map[string]any)
	if !ok {
		return nil, engine.Errf("", "typed memory must be an object")
	}
	list, ok := m["authorizations"].([]any)
	if !ok {
		return nil, engine.Errf("authorizations", "typed memory authorizations must be a list")
	}
	nested := true
	for _, item := range list {
		rec, isObj := item.(map[string]any)
		if _, hasScope := rec["scope"]; !isObj || !hasScope {
			nested = false
			break
		}
	}
	if nested {
		records, err := envelope.ParseProfile(m, nestedProfile)
		if err != nil {
			return nil, err
		}
		rows := make([]any, len(records))
		for i, r := range records {
			rows[i] = flatRow(r)
		}
		m = map[string]any{"schema_version": TypedSchemaVersion, "authorizations": rows}
		list = rows
	}
	if err := engine.ExactKeys("", m, profileKeys); err != nil {
		return nil, err
	}
	if v, ok := m["schema_version"].(string); !ok || v != TypedSchemaVersion {
		return nil, engine.Errf("schema_version", "must be %q, got %s", TypedSchemaVersion, describe(m["schema_version"]))
	}
	return adapt.TypedRecords(list, parseFlatRecord, true)
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%v", v)
}

// profileStr is pydantic's strict stripped non-empty string.
func profileStr(r *envelope.Reader, path string, v any) string {
	s := strings.TrimSpace(r.Str(path, v))
	if r.Err == nil && s == "" {
		r.Fail(path, "must be a non-empty string")
	}
	return s
}

// splitDelimited splits a flat list field on exactly " | " and checks EAL-Bench's rule: every
// part non-blank, no part repeated. Parts keep their own spacing.
func splitDelimited(r *envelope.Reader, path string, v any) []string {
	value := profileStr(r, path, v)
	if r.Err != nil {
		return nil
	}
	parts := strings.Split(value, ListDelimiter)
	seen := map[string]bool{}
	for _, p := range parts {
		if engine.PyStrip(p) == "" || seen[p] {
			r.Fail(path, "delimiter-separated values must be nonempty and unique, got %q", value)
			return nil
		}
		seen[p] = true
	}
	return parts
}

// parseFlatRecord reads one FlatAuthorizationProfile: the finance literals, a status, a
// stripped window that parses with valid_from < valid_until, the flat scope with its integer
// bounds, supersedes ("none" is null) and " | "-joined source ids.
func parseFlatRecord(path string, v any) (*envelope.Record, error) {
	r := &envelope.Reader{}
	m := r.Obj(path, v, flatKeys)
	p := func(k string) string { return engine.JoinPath(path, k) }
	rec := &envelope.Record{Scope: envelope.Scope{}}
	rec.ID = profileStr(r, p("authorization_id"), m["authorization_id"])
	for _, f := range []struct {
		key string
		dst **string
	}{{"issuer", &rec.Issuer}, {"grantee", &rec.Grantee}, {"effect", &rec.Effect}, {"action", &rec.Action}} {
		s := r.Str(p(f.key), m[f.key])
		if r.Err == nil && s != literals[f.key] {
			r.Fail(p(f.key), "must be %q, got %q", literals[f.key], s)
		}
		*f.dst = envelope.Str(s)
	}
	rec.State = r.Str(p("status"), m["status"])
	if r.Err == nil && !slices.Contains(memoryStatuses, rec.State) {
		r.Fail(p("status"), "must be one of active, revoked, superseded, unknown, got %q", rec.State)
	}
	rec.ValidFrom = envelope.Str(profileStr(r, p("valid_from"), m["valid_from"]))
	rec.ValidUntil = envelope.Str(profileStr(r, p("valid_until"), m["valid_until"]))
	rec.Scope[fieldAccount] = profileStr(r, p(fieldAccount), m[fieldAccount])
	for _, f := range listFields {
		rec.Scope[f] = splitDelimited(r, p(f), m[f])
	}
	for _, f := range []string{fieldMaxQuantity, fieldMinPrice, fieldMaxPrice} {
		if r.Err != nil {
			break
		}
		n, err := engine.Int(p(f), m[f])
		r.Set(err)
		rec.Scope[f] = n
	}
	rec.Scope[fieldCurrency] = profileStr(r, p(fieldCurrency), m[fieldCurrency])
	if s := profileStr(r, p("supersedes"), m["supersedes"]); s != NoSupersedes {
		rec.Supersedes = envelope.Str(s)
	}
	rec.SourceTurnIDs = splitDelimited(r, p("source_turn_ids"), m["source_turn_ids"])
	if r.Err == nil {
		r.Set(checkWindow(path, *rec.ValidFrom, *rec.ValidUntil))
	}
	if r.Err == nil {
		r.Set(checkScopeBounds(path, rec.Scope))
	}
	return rec, r.Err
}

// checkWindow is the schema's "valid_from must precede valid_until": both must parse, and an
// aware and a naive bound cannot be compared (Python raises).
func checkWindow(path, from, until string) error {
	f, fAware, err := engine.ParseISOTime(from)
	if err != nil {
		return engine.Errf(path+".valid_from", "%v", err)
	}
	u, uAware, err := engine.ParseISOTime(until)
	if err != nil {
		return engine.Errf(path+".valid_until", "%v", err)
	}
	if fAware != uAware {
		return engine.Errf(path+".valid_until", "can't compare offset-naive and offset-aware datetimes")
	}
	if !f.Before(u) {
		return engine.Errf(path+".valid_from", "valid_from must precede valid_until")
	}
	return nil
}

func deref(s *string) string { return envelope.Deref(s) }

func scopeList(s envelope.Scope, f string) []string {
	l, _ := s.List(f)
	return l
}

func scopeInt(s envelope.Scope, f string) any {
	if n, ok := s.Int(f); ok {
		return intNumber(n)
	}
	return nil
}

func scopeStr(s envelope.Scope, f string) string {
	v, _ := s.Str(f)
	return v
}

// flatRow is one mandate as a flat schema "5" record (EAL-Bench's _canonical_to_flat_profile:
// lists joined by " | ", a null or empty supersedes written "none").
func flatRow(m *envelope.Record) map[string]any {
	supersedes := NoSupersedes
	if m.Supersedes != nil && *m.Supersedes != "" {
		supersedes = *m.Supersedes
	}
	return map[string]any{
		"authorization_id": m.ID,
		"issuer":           deref(m.Issuer),
		"grantee":          deref(m.Grantee),
		"effect":           deref(m.Effect),
		"action":           deref(m.Action),
		"status":           m.State,
		"valid_from":       deref(m.ValidFrom),
		"valid_until":      deref(m.ValidUntil),
		fieldAccount:       scopeStr(m.Scope, fieldAccount),
		fieldStrategies:    strings.Join(scopeList(m.Scope, fieldStrategies), ListDelimiter),
		fieldInstruments:   strings.Join(scopeList(m.Scope, fieldInstruments), ListDelimiter),
		fieldSides:         strings.Join(scopeList(m.Scope, fieldSides), ListDelimiter),
		fieldOrderTypes:    strings.Join(scopeList(m.Scope, fieldOrderTypes), ListDelimiter),
		fieldMaxQuantity:   scopeInt(m.Scope, fieldMaxQuantity),
		fieldMinPrice:      scopeInt(m.Scope, fieldMinPrice),
		fieldMaxPrice:      scopeInt(m.Scope, fieldMaxPrice),
		fieldCurrency:      scopeStr(m.Scope, fieldCurrency),
		"supersedes":       supersedes,
		"source_turn_ids":  strings.Join(m.SourceTurnIDs, ListDelimiter),
	}
}

// TypedPayloadOf serialises mandates as the flat typed memory payload tree.
func TypedPayloadOf(records []*envelope.Record) map[string]any {
	rows := make([]any, len(records))
	for i, r := range records {
		rows[i] = flatRow(r)
	}
	return map[string]any{"schema_version": TypedSchemaVersion, "authorizations": rows}
}

// EmptyTyped is the empty typed profile.
func EmptyTyped() map[string]any {
	return map[string]any{"schema_version": TypedSchemaVersion, "authorizations": []any{}}
}
