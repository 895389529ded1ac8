package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// TestTurnTrust places one turn of each channel of the first built-in case.
func TestTurnTrust(t *testing.T) {
	ealtest.CheckTurnTrust(t, Domain{}, builtinCases(t)[0], map[string][2]string{
		"src_7dc96bbdc341_s1_m01":  {"SYSTEM", envelope.RuleSystemPolicy},
		"src_7dc96bbdc341_s1_m02":  {"USER_HISTORY", envelope.RuleMember},
		"src_7dc96bbdc341_s1_m04":  {"USER_HISTORY", envelope.RuleMember},
		"src_7dc96bbdc341_s1_m05":  {"EXTERNAL", envelope.RuleExternal},
		"src_7dc96bbdc341_s1_m06":  {"USER_HISTORY", envelope.RuleMember},
		"src_7dc96bbdc341_s1_m07":  {"USER_CONFIRMED", envelope.RuleAuthority},
		"src_7dc96bbdc341_s2_m04":  {"USER_HISTORY", envelope.RuleMember},
		"src_7dc96bbdc341_s10_m09": {"SYSTEM", envelope.RuleSignedChange},
		"src_7dc96bbdc341_s10_m10": {"EXTERNAL", envelope.RuleRelayedText},
	})
}

// TestTurnTrustSharedCase places EAL-Bench's shared case's channels, including the
// operations hand-off and bridge-cache copies of its final block.
func TestTurnTrustSharedCase(t *testing.T) {
	ealtest.CheckTurnTrust(t, Domain{}, sharedCase(t), map[string][2]string{
		"src_54599aa122c0_s1_m01":  {"SYSTEM", envelope.RuleSystemPolicy},
		"src_54599aa122c0_s1_m04":  {"EXTERNAL", envelope.RuleExternal},
		"src_54599aa122c0_s1_m09":  {"USER_CONFIRMED", envelope.RuleAuthority},
		"src_54599aa122c0_s9_m12":  {"SYSTEM", envelope.RuleSignedChange},
		"src_54599aa122c0_s10_m04": {"SYSTEM", envelope.RuleSignedChange},
		"src_54599aa122c0_s10_m07": {"EXTERNAL", envelope.RuleRelayedText},
		"src_54599aa122c0_s10_m09": {"EXTERNAL", envelope.RuleRelayedText},
	})
}

// TestToolRiskAndCandidate: executions are EFFECT, CREDENTIAL when the response rotates a
// key or disables a token; the operational tool carries out the near-match.
func TestToolRiskAndCandidate(t *testing.T) {
	d := Domain{}
	c := builtinCases(t)[0]
	p := c.Probes[0]
	req := request(p.Request)
	for _, action := range ResponseActions {
		r := *req
		r.ResponseAction = action
		want := engine.RiskEffect
		if action == "rotate_key" || action == "disable_service_token" {
			want = engine.RiskCredential
		}
		if got := d.ToolRisk(ToolExecuteOperational, &r); got != want {
			t.Errorf("%s: %s, want %s", action, got, want)
		}
	}
	if d.ToolRisk(ToolRequestApproval, req) != engine.RiskNav || d.ToolRisk(ToolDecline, nil) != engine.RiskRead || d.ToolRisk("shutdown", nil) != engine.RiskNone {
		t.Error("non-action classes")
	}
	got, err := d.CandidateRequest(p, ToolExecuteSubmitted, nil)
	if err != nil || got.(*Request) != req {
		t.Fatalf("submitted: %v %v", got, err)
	}
	op, err := d.CandidateRequest(p, ToolExecuteOperational, nil)
	if err != nil || !op.(*Request).SamePayload(req.NearMatch) {
		t.Fatalf("operational: %v %v", op, err)
	}
	bare := *req
	bare.NearMatch = nil
	q := p
	q.Request = &bare
	if _, err := d.CandidateRequest(q, ToolExecuteOperational, nil); err == nil {
		t.Error("operational course without a near-match resolved")
	}
	if _, err := d.CandidateRequest(p, ToolRequestApproval, nil); err == nil {
		t.Error("an approval request resolved to a request")
	}
}
