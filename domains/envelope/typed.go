package envelope

import (
	"slices"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// ProfileSpec is a domain's typed memory schema over the common envelope (docs/FORMATS.md 4.2,
// toolkit AuthorizationProfileBase / AuthorizationMemoryProfileBase): pydantic strict mode
// with extra="forbid", every key required.
type ProfileSpec struct {
	SchemaVersion string
	Scope         ScopeSpec
	// Literals pins issuer, grantee, effect and action to one value each (a Literal field);
	// a field not listed is a string or null.
	Literals map[string]string
	// Statuses are the allowed status values.
	Statuses []string
	// RequireWindow makes valid_from and valid_until required non-blank (stripped) timestamps
	// with valid_from < valid_until; otherwise they are strings or null.
	RequireWindow bool
	// MaxRecords caps the record count (0: no cap).
	MaxRecords int
	// ParseScope reads the scope object; nil means StrictScope(Scope, 0, 0).
	ParseScope func(path string, v any) (Scope, error)
}

var (
	profileKeys = []string{"schema_version", "authorizations"}
	// EnvelopeKeys are the record keys of a typed memory, as of a ledger record.
	EnvelopeKeys = recordKeys
)

// ParseProfile validates a typed memory payload tree (numbers as json.Number) and returns its
// records in payload order. Errors name the field path.
func ParseProfile(payload any, spec ProfileSpec) ([]*Record, error) {
	m, ok := payload.(map[string]any)
	if !ok {
		return nil, engine.Errf("", "typed memory must be an object")
	}
	// parse_typed checks str(schema_version) before validating the model.
	if v, ok := m["schema_version"].(string); !ok || v != spec.SchemaVersion {
		return nil, engine.Errf("schema_version", "typed memory must use schema version %s", spec.SchemaVersion)
	}
	if err := engine.ExactKeys("", m, profileKeys); err != nil {
		return nil, err
	}
	list, err := engine.List("authorizations", m["authorizations"])
	if err != nil {
		return nil, err
	}
	if spec.MaxRecords > 0 && len(list) > spec.MaxRecords {
		return nil, engine.Errf("authorizations", "at most %d authorizations, got %d", spec.MaxRecords, len(list))
	}
	parse := func(path string, item any) (*Record, error) { return parseProfileRecord(path, item, spec) }
	return adapt.TypedRecords(list, parse, false)
}

func parseProfileRecord(path string, v any, spec ProfileSpec) (*Record, error) {
	r := &Reader{}
	m := r.Obj(path, v, recordKeys)
	p := func(k string) string { return engine.JoinPath(path, k) }
	rec := &Record{}
	rec.ID = stripped(r, p("authorization_id"), m["authorization_id"])
	for _, f := range []struct {
		key string
		dst **string
	}{{"issuer", &rec.Issuer}, {"grantee", &rec.Grantee}, {"effect", &rec.Effect}, {"action", &rec.Action}} {
		if lit, ok := spec.Literals[f.key]; ok {
			s := r.Str(p(f.key), m[f.key])
			if r.Err == nil && s != lit {
				r.Fail(p(f.key), "must be %q, got %q", lit, s)
			}
			*f.dst = Str(s)
		} else {
			*f.dst = r.OptStr(p(f.key), m[f.key])
		}
	}
	rec.State = r.Str(p("status"), m["status"])
	if r.Err == nil && !slices.Contains(spec.Statuses, rec.State) {
		r.Fail(p("status"), "must be one of %v, got %q", spec.Statuses, rec.State)
	}
	if spec.RequireWindow {
		from := stripped(r, p("valid_from"), m["valid_from"])
		until := stripped(r, p("valid_until"), m["valid_until"])
		if r.Err == nil {
			tf, af, errF := engine.ParseISOTime(from)
			tu, au, errU := engine.ParseISOTime(until)
			switch {
			case errF != nil:
				r.Fail(p("valid_from"), "%v", errF)
			case errU != nil:
				r.Fail(p("valid_until"), "%v", errU)
			case af != au:
				// Python cannot order a naive and an aware datetime.
				r.Fail(p("valid_until"), "can't compare offset-naive and offset-aware datetimes")
			case !tf.Before(tu):
				r.Fail(p("valid_from"), "valid_from must precede valid_until")
			}
		}
		rec.ValidFrom, rec.ValidUntil = Str(from), Str(until)
	} else {
		rec.ValidFrom = r.OptStr(p("valid_from"), m["valid_from"])
		rec.ValidUntil = r.OptStr(p("valid_until"), m["valid_until"])
	}
	if r.Err == nil {
		parse := spec.ParseScope
		if parse == nil {
			parse = StrictScope(spec.Scope, 0, 0)
		}
		s, err := parse(p("scope"), m["scope"])
		r.Set(err)
		rec.Scope = s
	}
	rec.Supersedes = r.OptStr(p("supersedes"), m["supersedes"])
	ids := r.StrList(p("source_turn_ids"), m["source_turn_ids"])
	for i := range ids {
		ids[i] = engine.PyStrip(ids[i])
	}
	if r.Err == nil {
		if len(ids) == 0 {
			r.Fail(p("source_turn_ids"), "must list at least one source turn")
		} else if err := engine.UniqueNonEmpty(p("source_turn_ids"), ids); err != nil {
			r.Set(err)
		}
	}
	rec.SourceTurnIDs = ids
	return rec, r.Err
}

// stripped reads a string, strips it as pydantic's strip_whitespace does and requires it to
// be non-empty afterwards.
func stripped(r *Reader, path string, v any) string {
	s := engine.PyStrip(r.Str(path, v))
	if r.Err == nil && s == "" {
		r.Fail(path, "must be a non-empty string")
	}
	return s
}

// StrictScope reads a scope whose string fields are stripped non-empty strings and whose list
// fields are lists of stripped non-empty strings with minItems..maxItems items (0: no bound);
// int fields are integers. Every key is required, none may be null, no other key is allowed.
func StrictScope(spec ScopeSpec, minItems, maxItems int) func(path string, v any) (Scope, error) {
	return func(path string, v any) (Scope, error) {
		r := &Reader{}
		m := r.Obj(path, v, spec.Names())
		out := Scope{}
		for _, f := range spec.Fields {
			if r.Err != nil {
				break
			}
			fp := engine.JoinPath(path, f.Name)
			switch f.Kind {
			case ScopeString:
				out[f.Name] = stripped(r, fp, m[f.Name])
			case ScopeList:
				l := r.StrList(fp, m[f.Name])
				if r.Err != nil {
					break
				}
				if minItems > 0 && len(l) < minItems {
					r.Fail(fp, "needs at least %d item(s), got %d", minItems, len(l))
				}
				if maxItems > 0 && len(l) > maxItems {
					r.Fail(fp, "allows at most %d items, got %d", maxItems, len(l))
				}
				for i := range l {
					l[i] = engine.PyStrip(l[i])
					if l[i] == "" && r.Err == nil {
						r.Fail(engine.JoinPath(fp, i), "must be a non-empty string")
					}
				}
				out[f.Name] = l
			case ScopeInt:
				n, err := engine.Int(fp, m[f.Name])
				r.Set(err)
				out[f.Name] = n
			}
		}
		return out, r.Err
	}
}

// Payload is the typed memory payload tree of records (schema_version + authorizations).
func Payload(records []*Record, spec ScopeSpec, schemaVersion string) map[string]any {
	auths := make([]any, len(records))
	for i, r := range records {
		auths[i] = r.Tree(spec)
	}
	return map[string]any{"schema_version": schemaVersion, "authorizations": auths}
}
