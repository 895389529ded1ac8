package safeguards

import (
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// PPMF, the provenance-preserving memory firewall (docs/POLICIES.md; the paper's rules in
// ../shared/design/BACKGROUND.md section 3) as an action gate: at action time the records
// that authorize the request the executor's tool call carries out are bound to their
// platform provenance (ppmf_binding.go), and the call runs only if one of them is trusted at
// least as far as the tool's risk class needs. Its memory transformation keeps every record
// (the executor sees the memory unchanged) and reports each one's trust, bound sources and
// reasons for the lab's pane.

// PPMFID and PPMFVersion identify the policy.
const (
	PPMFID      = "ppmf"
	PPMFVersion = "1"
)

// The gate's reasons (code, then detail).
const (
	ReasonPPMFSupported         = "ppmf_supported"
	ReasonPPMFInsufficientTrust = "ppmf_insufficient_trust"
	ReasonPPMFNoSupport         = "ppmf_no_supporting_record"
	ReasonPPMFUndeclaredTool    = "ppmf_undeclared_tool"
	ReasonPPMFNoToolCall        = "ppmf_no_tool_call"
	ReasonPPMFUnresolved        = "ppmf_request_unresolved"
	ReasonPPMFUnreadable        = "ppmf_memory_unreadable"
)

// PPMF is the policy value.
func PPMF() engine.Policy {
	return engine.Policy{
		ID:      PPMFID,
		Version: PPMFVersion,
		Description: "Provenance firewall: an action runs only if a record that authorizes it is bound, pointer-first " +
			"then by argument matching, to writer-input turns trusted as far as the tool's risk class needs; " +
			"the least trusted candidate governs and nothing bound fails closed.",
		Memory: ppmfFirewall{},
		Gate:   ppmfFirewall{},
	}
}

type ppmfFirewall struct{}

// TransformMemory implements engine.MemoryTransform: the memory as written, with every
// record's provenance.
func (ppmfFirewall) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	prov, err := BindProvenance(in.Domain, in.Case, in.Block, in.Evidence, in.Condition, in.Versions)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	return engine.GatedMemory{Evidence: in.Evidence, Records: prov.Decisions()}, nil
}

// GateAction implements engine.ActionGate.
func (ppmfFirewall) GateAction(in engine.ActionInput) engine.GateDecision {
	return GatePPMF(in).Decision
}

// PPMFVerdict is the gate's decision with what it read: the tool's class, the trust it
// needs, and the records that authorize the candidate request with their trust.
type PPMFVerdict struct {
	Decision    engine.GateDecision
	Tool        string
	Class       engine.RiskClass
	Needed      engine.Trust
	Authorizing []RecordProvenance
}

func blocked(code, detail string) engine.GateDecision {
	return engine.GateDecision{Allowed: false, Reason: code + ": " + detail}
}

// GatePPMF decides one action. Everything it cannot establish fails closed.
func GatePPMF(in engine.ActionInput) PPMFVerdict {
	var v PPMFVerdict
	roles, err := rolesOf(in.Domain)
	if err != nil {
		v.Decision = blocked(ReasonPPMFUnreadable, err.Error())
		return v
	}
	if in.Outcome.RawToolName == nil {
		v.Decision = blocked(ReasonPPMFNoToolCall, "the decision names no tool call")
		return v
	}
	v.Tool = *in.Outcome.RawToolName
	if roles.trust.ToolRisk(v.Tool, nil) == engine.RiskNone {
		v.Decision = blocked(ReasonPPMFUndeclaredTool, fmt.Sprintf("tool %s has no declared risk class", v.Tool))
		return v
	}
	args, _ := in.Outcome.RawToolArguments.(map[string]any)
	cand, err := roles.trust.CandidateRequest(in.Probe, v.Tool, args)
	if err != nil {
		v.Decision = blocked(ReasonPPMFUnresolved, err.Error())
		return v
	}
	// The request may raise the class (a response action that rotates a key).
	v.Class = roles.trust.ToolRisk(v.Tool, cand)
	v.Needed = v.Class.RequiredTrust()
	records, err := gatedProvenance(in)
	if err != nil {
		v.Decision = blocked(ReasonPPMFUnreadable, err.Error())
		return v
	}
	for _, rp := range records {
		if in.Domain.Deny(in.Case, rp.Record, cand) == "" {
			v.Authorizing = append(v.Authorizing, rp)
		}
	}
	if len(v.Authorizing) == 0 {
		v.Decision = blocked(ReasonPPMFNoSupport, fmt.Sprintf("no remembered record authorizes the request %s carries out", v.Tool))
		return v
	}
	best := v.Authorizing[0]
	for _, rp := range v.Authorizing[1:] {
		if rp.Trust > best.Trust {
			best = rp
		}
	}
	if best.Trust.Meets(v.Needed) {
		v.Decision = engine.GateDecision{Allowed: true, Reason: fmt.Sprintf("%s: record %s (%s, bound to %s) meets %s, which needs %s",
			ReasonPPMFSupported, best.AuthorizationID, best.Trust, boundText(best), v.Class, v.Needed)}
		return v
	}
	parts := make([]string, len(v.Authorizing))
	for i, rp := range v.Authorizing {
		parts[i] = fmt.Sprintf("%s %s (bound to %s)", rp.AuthorizationID, rp.Trust, boundText(rp))
	}
	v.Decision = blocked(ReasonPPMFInsufficientTrust, fmt.Sprintf("%s needs %s; the records that authorize the request are %s",
		v.Class, v.Needed, strings.Join(parts, "; ")))
	return v
}

// gatedProvenance is the provenance of the memory shown: read from the policy's own
// transformation of this trial when RunTrial passes it (every record of the memory has its
// decision there), else bound afresh.
func gatedProvenance(in engine.ActionInput) ([]RecordProvenance, error) {
	if in.Gated != nil {
		recs, err := memoryRecords(in.Domain, in.Evidence)
		if err != nil {
			return nil, err
		}
		decided := map[string]engine.RecordDecision{}
		for _, rd := range in.Gated.Records {
			decided[rd.AuthorizationID] = rd
		}
		out := make([]RecordProvenance, 0, len(recs))
		for _, r := range recs {
			rd, ok := decided[r.AuthorizationID()]
			if !ok {
				out = nil
				break
			}
			// An unreadable level is UNKNOWN: it fails closed.
			level, _ := engine.ParseTrust(rd.Trust)
			out = append(out, RecordProvenance{AuthorizationID: rd.AuthorizationID, Record: r, Citations: rd.Sources,
				Trust: level, Bound: rd.BoundSources, Reasons: rd.Reasons})
		}
		if out != nil || len(recs) == 0 {
			return out, nil
		}
	}
	prov, err := BindProvenance(in.Domain, in.Case, in.Block, in.Evidence, in.Condition, in.Versions)
	if err != nil {
		return nil, err
	}
	return prov.Records, nil
}

func boundText(rp RecordProvenance) string {
	if len(rp.Bound) == 0 {
		return "nothing"
	}
	return strings.Join(rp.Bound, ", ")
}
