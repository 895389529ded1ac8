// Package cybersecurity is EAL-Bench's incident-response domain (docs/FORMATS.md 2.2, 3.3, 3.5,
// 4.2-4.5, 6.1-6.3, 7.1): cases in the form EAL-Bench's persistence.jsonable writes them, the
// active-only ledger, the response-grant predicate, typed memory schema "4", the canonical
// free-text layout, the executor surface with the operational alternative, and a built-in
// corpus with a seeded generator. The envelope machinery it shares with finance lives in
// domains/envelope; everything named here (scope fields, literals, denial reasons, tools) is
// this domain's own.
package cybersecurity

import (
	"github.com/ealscope/ealscope/domains/envelope"
)

// DomainID is EAL-Bench's cybersecurity domain id.
const DomainID = "cybersecurity"

// Literals of the response-grant envelope (adapter.py AuthorizationProfile, semantics.py).
const (
	Issuer  = "security_duty_officer"
	Grantee = "incident_response_team"
	Effect  = "permit_incident_response"
	Action  = "execute_response_action"
)

// ResponseActions are the response_action values a request may carry (adapter.ACTION_VALUES).
var ResponseActions = []string{
	"isolate_host", "block_indicator", "deploy_patch", "rotate_key",
	"disable_service_token", "capture_memory", "restrict_network", "restart_service",
}

// Scope is the response-grant scope (docs/FORMATS.md 2.2), in the model's field order.
var Scope = envelope.ScopeSpec{Fields: []envelope.ScopeField{
	{Name: "tenant_id", Kind: envelope.ScopeString},
	{Name: "incident_id", Kind: envelope.ScopeString},
	{Name: "asset_ids", Kind: envelope.ScopeList},
	{Name: "environments", Kind: envelope.ScopeList},
	{Name: "approved_actions", Kind: envelope.ScopeList},
	{Name: "vulnerability_ids", Kind: envelope.ScopeList},
}}

// Execution courses of a request (models.resolve_execution_course).
const (
	CourseSubmitted   = "submitted_payload"
	CourseOperational = "operational_payload"
)

// Request is EAL-Bench's ResponseRequest: the eight compared fields, plus the hidden
// execution course and the operational near-match payload the operational tool executes.
type Request struct {
	ActorID         string
	TenantID        string
	IncidentID      string
	AssetID         string
	Environment     string
	ResponseAction  string
	VulnerabilityID string
	RequestedAt     string
	// ExecutionCourse is "submitted_payload" (or "submitted_response") for a submitted request,
	// "operational_payload" (or "operational_near_match", "option_1") for an operational one.
	ExecutionCourse string
	// NearMatch is the operational near-match payload (nil for none).
	NearMatch *Request

	// challenge is the probe's operational-alternative context, attached when the case is
	// converted for the engine (RenderRequest needs the case, the engine passes the probe).
	challenge *Challenge
}

// requestFields are the compared fields in to_dict order.
var requestFields = []string{"actor_id", "tenant_id", "incident_id", "asset_id", "environment", "response_action", "vulnerability_id", "requested_at"}

// Fields is to_dict(): the eight compared fields, without the course and the near-match.
func (r *Request) Fields() map[string]any {
	return map[string]any{
		"actor_id": r.ActorID, "tenant_id": r.TenantID, "incident_id": r.IncidentID,
		"asset_id": r.AssetID, "environment": r.Environment, "response_action": r.ResponseAction,
		"vulnerability_id": r.VulnerabilityID, "requested_at": r.RequestedAt,
	}
}

// Field returns one compared field by its JSON name.
func (r *Request) Field(name string) string {
	s, _ := r.Fields()[name].(string)
	return s
}

// SamePayload is ResponseRequest equality: the eight fields (course and near-match excluded).
func (r *Request) SamePayload(o *Request) bool {
	return o != nil && r.ActorID == o.ActorID && r.TenantID == o.TenantID && r.IncidentID == o.IncidentID &&
		r.AssetID == o.AssetID && r.Environment == o.Environment && r.ResponseAction == o.ResponseAction &&
		r.VulnerabilityID == o.VulnerabilityID && r.RequestedAt == o.RequestedAt
}

// Operational says whether the request's course is the operational payload.
func (r *Request) Operational() bool {
	switch r.ExecutionCourse {
	case "operational_near_match", "option_1", CourseOperational:
		return true
	}
	return false
}

// Tree is the jsonable form of the request (the fields, the course and the near-match).
func (r *Request) Tree() map[string]any {
	m := r.Fields()
	m["execution_course"] = r.ExecutionCourse
	if r.NearMatch != nil {
		m["operational_near_match"] = r.NearMatch.Fields()
	} else {
		m["operational_near_match"] = nil
	}
	return m
}

// resolve is resolve_execution_course: the submitted course is the request itself, the
// operational course is the near-match payload (nil when there is none or the course is
// not recognised).
func (r *Request) resolve(course string) *Request {
	switch course {
	case "submitted_response", CourseSubmitted:
		return r
	case "operational_near_match", "option_1", CourseOperational:
		if r.NearMatch == nil {
			return nil
		}
		out := *r.NearMatch
		out.ExecutionCourse = CourseOperational
		out.NearMatch = r.NearMatch
		out.challenge = nil
		return &out
	}
	return nil
}

// Case is EAL-Bench's CybersecurityCase as persistence.jsonable writes it.
type Case struct {
	CorpusVersion           string
	CaseID                  string
	Family                  string
	Organization            string
	SystemName              string
	Blocks                  []envelope.Block
	Events                  []envelope.Event
	Probes                  []envelope.Probe
	PreferredRequest        *Request
	PreferredRequests       map[string]*Request
	PressureAddition        string
	OperationalStakes       string
	AlternativeDisadvantage string
	Metadata                map[string]any
}

// History implements envelope.HistorySource.
func (c *Case) History() ([]envelope.Block, []envelope.Event) { return c.Blocks, c.Events }

// Ledger is the active ledger through block `through` (docs/FORMATS.md 3.3).
func (c *Case) Ledger(through int) ([]*envelope.Record, error) {
	return envelope.Replay(c.Events, through)
}
