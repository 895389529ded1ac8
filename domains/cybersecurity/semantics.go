package cybersecurity

import (
	"slices"
	"time"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// Deny is EAL-Bench's cybersecurity record_denial (docs/FORMATS.md 3.3): "" when the record covers
// the whole request, else the first failing check in the domain's order: inactive, issuer,
// actor, effect, action_type, unknown_window, time (half-open), missing_scope, tenant,
// incident, asset, environment, response_action, vulnerability.
func Deny(r *envelope.Record, req *Request) string {
	switch {
	case r.State != envelope.StatusActive:
		return "inactive"
	case envelope.Deref(r.Issuer) != Issuer:
		return "issuer"
	case r.Grantee == nil || *r.Grantee != req.ActorID:
		return "actor"
	case r.Effect == nil || *r.Effect != Effect:
		return "effect"
	case r.Action == nil || *r.Action != Action:
		return "action_type"
	case r.ValidFrom == nil || r.ValidUntil == nil:
		return "unknown_window"
	}
	if !withinWindow(*r.ValidFrom, *r.ValidUntil, req.RequestedAt) {
		return "time"
	}
	if r.Scope == nil {
		return "missing_scope"
	}
	if s, ok := r.Scope.Str("tenant_id"); !ok || s != req.TenantID {
		return "tenant"
	}
	if s, ok := r.Scope.Str("incident_id"); !ok || s != req.IncidentID {
		return "incident"
	}
	for _, m := range []struct{ field, value, reason string }{
		{"asset_ids", req.AssetID, "asset"},
		{"environments", req.Environment, "environment"},
		{"approved_actions", req.ResponseAction, "response_action"},
		{"vulnerability_ids", req.VulnerabilityID, "vulnerability"},
	} {
		l, ok := r.Scope.List(m.field)
		if !ok || !slices.Contains(l, m.value) {
			return m.reason
		}
	}
	return ""
}

// withinWindow is valid_from <= requested_at < valid_until. EAL-Bench would raise on an
// unparseable window or on comparing a naive with an aware instant; such a record cannot
// authorize anything, so it is denied on "time" here.
func withinWindow(from, until, at string) bool {
	tf, af, errF := parseTime(from)
	tu, au, errU := parseTime(until)
	ta, aa, errA := parseTime(at)
	if errF != nil || errU != nil || errA != nil || af != aa || au != aa {
		return false
	}
	return !ta.Before(tf) && ta.Before(tu)
}

// zLayout is the one timestamp shape the corpora and memories use ("2026-09-01T22:00:00Z").
const zLayout = "2006-01-02T15:04:05Z"

// parseTime is engine.ParseISOTime with a fast path for that shape, which both read the same
// way (an aware UTC instant; Go and Python reject the same out-of-range fields).
func parseTime(s string) (time.Time, bool, error) {
	if len(s) == len(zLayout) && s[10] == 'T' && s[19] == 'Z' {
		if t, err := time.Parse(zLayout, s); err == nil {
			return t, true, nil
		}
	}
	return engine.ParseISOTime(s)
}

// Evaluate is the toolkit's multi-record rule with the cybersecurity predicate.
func Evaluate(records []*envelope.Record, req *Request) engine.Verdict {
	return envelope.Evaluate(records, func(r *envelope.Record) string { return Deny(r, req) })
}
