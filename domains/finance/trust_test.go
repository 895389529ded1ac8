package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// TestTurnTrust places one turn of each channel of the first built-in case, and its OMS
// hand-offs quoting the row a change replaced.
func TestTurnTrust(t *testing.T) {
	ealtest.CheckTurnTrust(t, Domain{}, ealtest.Builtin(t, Domain{})[0], map[string][2]string{
		"src_fin_b001_001": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_b001_002": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_b001_003": {"EXTERNAL", envelope.RuleExternal},
		"src_fin_b001_004": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_b001_006": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_b001_015": {"SYSTEM", envelope.RuleSignedRegister},
		"src_fin_b001_018": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_b001_088": {"SYSTEM", envelope.RuleSignedRegister},
		"src_fin_b001_091": {"EXTERNAL", envelope.RuleRelayedText},
		"src_fin_b001_114": {"EXTERNAL", envelope.RuleRelayedText},
	})
}

// TestTurnTrustSharedCase places EAL-Bench's shared case: the signed mandate register, the
// market notes, the governance notice and the OMS release hand-off.
func TestTurnTrustSharedCase(t *testing.T) {
	c := sharedCase(t)
	want := map[string][2]string{
		"src_fin_r14_8a760bc0e6352411248e": {"USER_HISTORY", envelope.RuleMember},
		"src_fin_r14_ba6e192a02ec9324fafd": {"EXTERNAL", envelope.RuleExternal},
		"src_fin_r14_2170024c2be20801fcd5": {"EXTERNAL", envelope.RuleExternal},
		"src_fin_r14_2c442bb20b75c40ae704": {"SYSTEM", envelope.RuleSignedRegister},
		"src_fin_r14_0c304b3b19310ba75454": {"SYSTEM", envelope.RuleSignedRegister},
	}
	fc := c.Source.(*Case)
	for _, b := range fc.Blocks {
		for _, tu := range b.Turns {
			if tu.Channel == "OMS release handoff" {
				want[tu.TurnID] = [2]string{"EXTERNAL", envelope.RuleRelayedText}
			}
		}
	}
	if len(want) != 6 {
		t.Fatalf("the shared case's OMS release hand-off is missing (%d turns)", len(want))
	}
	ealtest.CheckTurnTrust(t, Domain{}, c, want)
}

// TestToolRiskAndCandidate: both order tools are PURCHASE; the operational tool places the
// near-match, and nothing when there is none.
func TestToolRiskAndCandidate(t *testing.T) {
	d := Domain{}
	c := ealtest.Builtin(t, Domain{})[0]
	p := c.Probes[0]
	if d.ToolRisk(ToolPlaceSubmitted, nil) != engine.RiskPurchase || d.ToolRisk(ToolPlaceOperational, nil) != engine.RiskPurchase ||
		d.ToolRisk(ToolMandateReview, nil) != engine.RiskNav || d.ToolRisk(ToolDeclineOrder, nil) != engine.RiskRead ||
		d.ToolRisk("wire_cash", nil) != engine.RiskNone {
		t.Fatal("risk classes")
	}
	req := request(p.Request)
	got, err := d.CandidateRequest(p, ToolPlaceSubmitted, nil)
	if err != nil || !sameCourse(got.(TradeRequest), req) {
		t.Fatalf("submitted: %v %v", got, err)
	}
	op, err := d.CandidateRequest(p, ToolPlaceOperational, nil)
	if err != nil || op.(TradeRequest).ExecutionCourse != CourseOperational || req.NearMatch == nil || op.(TradeRequest).InstrumentID != req.NearMatch.InstrumentID {
		t.Fatalf("operational: %v %v", op, err)
	}
	bare := req
	bare.NearMatch = nil
	q := p
	q.Request = bare
	if _, err := d.CandidateRequest(q, ToolPlaceOperational, nil); err == nil {
		t.Error("operational order without a near-match resolved")
	}
	if _, err := d.CandidateRequest(p, ToolMandateReview, nil); err == nil {
		t.Error("a mandate review resolved to an order")
	}
}
