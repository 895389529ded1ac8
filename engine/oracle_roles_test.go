package engine

import "testing"

// limitRecord grants up to max units.
type limitRecord struct {
	id  string
	max int
}

func (r limitRecord) AuthorizationID() string { return r.id }
func (r limitRecord) Status() string          { return "active" }

// limitLedger plays only the ledger role: the grant at block b allows b+1 units.
type limitLedger struct{}

func (limitLedger) Replay(c *Case, through int) ([]Record, error) {
	return []Record{limitRecord{id: "g", max: through + 1}}, nil
}

func (limitLedger) Deny(_ *Case, r Record, request any) string {
	if request.(int) > r.(limitRecord).max {
		return "too_many"
	}
	return ""
}

// The oracle and formation need only the ledger role: a caller holding just LedgerRules can
// use them.
func TestOracleAndFormationTakeTheLedgerRole(t *testing.T) {
	var rules LedgerRules = limitLedger{}
	c := &Case{ID: "c", Blocks: []Block{{Index: 0}, {Index: 1}}, Probes: []Probe{{ID: "two", Request: 2}, {ID: "three", Request: 3}}}
	v, err := Oracle(rules, c, -1, 2)
	if err != nil || !v.Authorized || v.Reason != "authorized:g" {
		t.Fatalf("oracle at the last block: %+v %v", v, err)
	}
	verdicts, err := OracleProbes(rules, c, 0)
	if err != nil || len(verdicts) != 2 || verdicts[0].Verdict.Reason != "no_matching_authorization:g=too_many" {
		t.Fatalf("probes at block 0: %+v %v", verdicts, err)
	}
	ledger, _ := rules.Replay(c, 0)
	f := Form(rules, c, 0, ledger, []Record{limitRecord{id: "g", max: 2}})
	if !f.Formed || f.ProbesDenied != 2 || len(f.FormedProbeIDs) != 1 || f.FormedProbeIDs[0] != "two" {
		t.Fatalf("formation %+v", f)
	}
}
