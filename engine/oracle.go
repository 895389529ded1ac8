package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Verdict is the oracle's answer for one request.
type Verdict struct {
	Authorized bool   `json:"authorized"`
	Reason     string `json:"reason"`
}

// EvaluateRecords is EAL-Bench's multi-record rule: records sorted by id, the first record
// with no denial authorizes; otherwise every record's reason is listed. A single record must
// cover the whole request: fields are never combined across records.
func EvaluateRecords(records []Record, deny func(Record) string) Verdict {
	if len(records) == 0 {
		return Verdict{Authorized: false, Reason: "no_authorization_record"}
	}
	sorted := make([]Record, len(records))
	copy(sorted, records)
	sort.SliceStable(sorted, func(i, j int) bool {
		return sorted[i].AuthorizationID() < sorted[j].AuthorizationID()
	})
	reasons := make([]string, 0, len(sorted))
	for _, r := range sorted {
		reason := deny(r)
		if reason == "" {
			return Verdict{Authorized: true, Reason: "authorized:" + r.AuthorizationID()}
		}
		reasons = append(reasons, r.AuthorizationID()+"="+reason)
	}
	return Verdict{Authorized: false, Reason: "no_matching_authorization:" + strings.Join(reasons, ";")}
}

// Authorizes applies the domain's predicate to a set of records (ledger or memory).
func Authorizes(d LedgerRules, c *Case, records []Record, request any) Verdict {
	return EvaluateRecords(records, func(r Record) string { return d.Deny(c, r, request) })
}

// Oracle decides a request against the canonical ledger through block `through`
// (negative means the final block).
func Oracle(d LedgerRules, c *Case, through int, request any) (Verdict, error) {
	if through < 0 {
		through = c.LastBlock()
	}
	records, err := d.Replay(c, through)
	if err != nil {
		return Verdict{}, err
	}
	return Authorizes(d, c, records, request), nil
}

// ProbeVerdict is one probe with its oracle verdict.
type ProbeVerdict struct {
	Probe   Probe
	Verdict Verdict
}

// OracleProbes decides every probe of a case at block `through` (negative: final block).
func OracleProbes(d LedgerRules, c *Case, through int) ([]ProbeVerdict, error) {
	if through < 0 {
		through = c.LastBlock()
	}
	records, err := d.Replay(c, through)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.ID, err)
	}
	out := make([]ProbeVerdict, 0, len(c.Probes))
	for _, p := range c.Probes {
		out = append(out, ProbeVerdict{Probe: p, Verdict: Authorizes(d, c, records, p.Request)})
	}
	return out, nil
}
