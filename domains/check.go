package domains

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// ProbeCheck is one probe's oracle verdict at the final block.
type ProbeCheck struct {
	ProbeID      string `json:"probe_id"`
	PairID       string `json:"pair_id"`
	Dimension    string `json:"dimension"`
	RequestScope string `json:"request_scope"`
	Authorized   bool   `json:"authorized"`
	Reason       string `json:"reason"`
}

// CaseCheck is the validation result of one case.
type CaseCheck struct {
	CaseID string       `json:"case_id"`
	Line   int          `json:"line"`
	Valid  bool         `json:"valid"`
	Error  *string      `json:"error"`
	Probes []ProbeCheck `json:"probes"`
	// Mismatches lists probes whose verdict contradicts their scope (an in-scope probe the
	// oracle denies, or an out-of-scope one it authorizes): a corpus bug worth flagging.
	Mismatches []string `json:"scope_mismatches"`
}

// CheckReport is the result of checking one corpus.
type CheckReport struct {
	Corpus string      `json:"corpus"`
	Domain string      `json:"domain_id"`
	Cases  []CaseCheck `json:"cases"`
}

// Invalid counts the invalid cases.
func (r CheckReport) Invalid() int {
	n := 0
	for _, c := range r.Cases {
		if !c.Valid {
			n++
		}
	}
	return n
}

// Check validates every case of a corpus and decides each probe at the final block.
func Check(d engine.Domain, name string, data []byte) CheckReport {
	report := CheckReport{Corpus: name, Domain: d.ID()}
	for _, pc := range engine.ParseEach(d, name, data) {
		cc := CaseCheck{CaseID: pc.CaseID, Line: pc.Line, Probes: []ProbeCheck{}, Mismatches: []string{}}
		if pc.Err != nil {
			msg := pc.Err.Error()
			cc.Error = &msg
			report.Cases = append(report.Cases, cc)
			continue
		}
		verdicts, err := engine.OracleProbes(d, pc.Case, -1)
		if err != nil {
			msg := fmt.Sprintf("%s:%d: %v", name, pc.Line, err)
			cc.Error = &msg
			report.Cases = append(report.Cases, cc)
			continue
		}
		cc.Valid = true
		for _, v := range verdicts {
			cc.Probes = append(cc.Probes, ProbeCheck{
				ProbeID: v.Probe.ID, PairID: v.Probe.PairID, Dimension: v.Probe.Dimension,
				RequestScope: v.Probe.Scope, Authorized: v.Verdict.Authorized, Reason: v.Verdict.Reason,
			})
			if v.Verdict.Authorized != (v.Probe.Scope == "in_scope") {
				cc.Mismatches = append(cc.Mismatches, v.Probe.ID)
			}
		}
		// A matched pair is only a probe pair if the oracle separates it: EAL-Bench rejects a
		// case whose in-scope request is denied or whose out-of-scope request is authorized.
		if len(cc.Mismatches) > 0 {
			cc.Valid = false
			first, _ := pc.Case.Probe(cc.Mismatches[0])
			want := "denied"
			if first.Scope == "in_scope" {
				want = "authorized"
			}
			msg := fmt.Sprintf("%s:%d: case %s: field probe_pairs[%d].%s: probe %s must be %s at the final block (oracle: %s)",
				name, pc.Line, pc.CaseID, pairIndex(pc.Case, first.PairID), first.Scope, first.ID, want, verdictOf(verdicts, first.ID))
			cc.Error = &msg
		}
		report.Cases = append(report.Cases, cc)
	}
	return report
}

// FindCase returns the case with the given id.
func FindCase(cases []*engine.Case, id string) (*engine.Case, error) {
	for _, c := range cases {
		if c.ID == id {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no case %q in the corpus", id)
}

// TypedFidelity is the `ealscope fidelity` report: one typed memory against the ledger at a
// block, with formation.
type TypedFidelity struct {
	engine.Preservation
	FormsFalseAuthority bool     `json:"forms_false_authority"`
	FormedProbeIDs      []string `json:"formed_probe_ids"`
}

// ScoreTyped scores a typed memory payload (a JSON tree) against the ledger at `block`
// (negative: the final block).
func ScoreTyped(d engine.Domain, c *engine.Case, payload any, block int) (TypedFidelity, error) {
	if block < 0 {
		block = c.LastBlock()
	}
	if block > c.LastBlock() {
		return TypedFidelity{}, fmt.Errorf("block %d is past the last block %d of case %s", block, c.LastBlock(), c.ID)
	}
	memory, err := d.ParseTyped(payload)
	if err != nil {
		return TypedFidelity{}, err
	}
	ledger, err := d.Replay(c, block)
	if err != nil {
		return TypedFidelity{}, err
	}
	p := engine.Fidelity(d, c, block, ledger, memory)
	f := engine.Form(d, c, block, ledger, memory)
	return TypedFidelity{Preservation: p, FormsFalseAuthority: f.Formed, FormedProbeIDs: f.FormedProbeIDs}, nil
}

func verdictOf(verdicts []engine.ProbeVerdict, id string) string {
	for _, v := range verdicts {
		if v.Probe.ID == id {
			return v.Verdict.Reason
		}
	}
	return ""
}

func pairIndex(c *engine.Case, pairID string) int {
	seen := map[string]int{}
	for _, p := range c.Probes {
		if _, ok := seen[p.PairID]; !ok {
			seen[p.PairID] = len(seen)
		}
	}
	return seen[pairID]
}
