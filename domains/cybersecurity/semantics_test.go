package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// TestParseTimeFastPath: the fast path reads every string it accepts exactly as
// engine.ParseISOTime does, and leaves everything else to it.
func TestParseTimeFastPath(t *testing.T) {
	for _, s := range []string{
		"2026-09-01T22:00:00Z", "2026-02-28T23:59:59Z", "2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-09-01T24:00:00Z", "2026-09-01T23:59:60Z", "2026-09-01 22:00:00Z",
		"2026-09-01T22:00:00+00:00", "2026-09-01T22:00:00", "2026-09-01T22:00:00.5Z", "x026-09-01T22:00:00Z",
	} {
		ft, fa, ferr := parseTime(s)
		et, ea, eerr := engine.ParseISOTime(s)
		if (ferr == nil) != (eerr == nil) || fa != ea || !ft.Equal(et) {
			t.Errorf("%s: fast %v %v %v, engine %v %v %v", s, ft, fa, ferr, et, ea, eerr)
		}
	}
}

// TestDenyOrder: each reason of the domain's denial order, on one otherwise covering record.
func TestDenyOrder(t *testing.T) {
	c, src := builtinFirst(t)
	ledger, _ := src.Ledger(c.LastBlock())
	p := probeOf(t, c, "late_narrowing_inside")
	req := p.Request.(*Request)
	base := grantByLetter(t, ledger, "A")
	if r := Deny(base, req); r != "" {
		t.Fatalf("base record denies: %s", r)
	}
	for _, tc := range []struct {
		want string
		edit func(r *Request, rec map[string]any)
	}{
		{"inactive", func(_ *Request, m map[string]any) { m["status"] = "revoked" }},
		{"issuer", func(_ *Request, m map[string]any) { m["issuer"] = "incident_lead" }},
		{"actor", func(r *Request, _ map[string]any) { r.ActorID = "someone_else" }},
		{"effect", func(_ *Request, m map[string]any) { m["effect"] = "permit_all" }},
		{"action_type", func(_ *Request, m map[string]any) { m["action"] = "other" }},
		{"unknown_window", func(_ *Request, m map[string]any) { m["valid_from"] = nil }},
		{"time", func(r *Request, _ map[string]any) { r.RequestedAt = "2030-01-01T00:00:00Z" }},
		{"time", func(r *Request, m map[string]any) { r.RequestedAt = m["valid_until"].(string) }},
		{"missing_scope", func(_ *Request, m map[string]any) { m["scope"] = nil }},
		{"tenant", func(r *Request, _ map[string]any) { r.TenantID = "t" }},
		{"incident", func(r *Request, _ map[string]any) { r.IncidentID = "i" }},
		{"asset", func(r *Request, _ map[string]any) { r.AssetID = "a" }},
		{"environment", func(r *Request, _ map[string]any) { r.Environment = "lab" }},
		{"response_action", func(r *Request, _ map[string]any) { r.ResponseAction = "deploy_patch" }},
		{"vulnerability", func(r *Request, _ map[string]any) { r.VulnerabilityID = "CVE-0" }},
	} {
		rq := *req
		rec := base.Clone()
		m := map[string]any{"status": rec.State, "issuer": *rec.Issuer, "effect": *rec.Effect, "action": *rec.Action, "valid_from": *rec.ValidFrom, "valid_until": *rec.ValidUntil, "scope": "present"}
		tc.edit(&rq, m)
		rec.State = m["status"].(string)
		rec.Issuer, rec.Effect, rec.Action = strp(m["issuer"]), strp(m["effect"]), strp(m["action"])
		rec.ValidFrom, rec.ValidUntil = strp(m["valid_from"]), strp(m["valid_until"])
		if m["scope"] == nil {
			rec.Scope = nil
		}
		if got := Deny(rec, &rq); got != tc.want {
			t.Errorf("want %s, got %q", tc.want, got)
		}
	}
}

func strp(v any) *string {
	if v == nil {
		return nil
	}
	s := v.(string)
	return &s
}
