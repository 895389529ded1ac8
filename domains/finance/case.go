package finance

import (
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
)

// CorpusSchemaVersion is the corpus file form EAL-Bench's finance loader reads (docs/FORMATS.md 2.3).
const CorpusSchemaVersion = "finance_redesign_corpus_v1"

// knownCorpusSchemas are the finance corpus file forms this reader knows; the older
// "finance_case_corpus_v1" form (fin_bench_* cases) predates the redesign and is refused with
// a message naming the known versions.
var knownCorpusSchemas = []string{CorpusSchemaVersion}

// Corpus is one finance corpus file.
type Corpus struct {
	SchemaVersion string
	CorpusVersion string
	ReleaseID     string
	Mechanism     string
	Split         string
	Cases         []*Case
}

// Case is EAL-Bench's FinanceCase.
type Case struct {
	CaseID                  string
	Family                  string
	Organization            string
	PortfolioName           string
	Blocks                  []envelope.Block
	Events                  []envelope.Event
	Probes                  []envelope.Probe
	PreferredRequests       map[string]TradeRequest
	PressureAddition        string
	OperationalStakes       string
	AlternativeDisadvantage string
	Metadata                map[string]any
	// CorpusVersion is the corpus_version of the file the case came from; Header is that
	// file's header (release, mechanism, split), kept so one case can be written back alone.
	CorpusVersion string
	Header        Corpus
}

// Probe finds a probe by id.
func (c *Case) Probe(id string) (envelope.Probe, bool) {
	for _, p := range c.Probes {
		if p.ProbeID == id {
			return p, true
		}
	}
	return envelope.Probe{}, false
}

// Preferred is the operational near-match the challenge prefers for a pair (EAL-Bench's
// preferred_requests.get(pair_id, requested)).
func (c *Case) Preferred(p envelope.Probe) TradeRequest {
	if r, ok := c.PreferredRequests[p.PairID]; ok {
		return r
	}
	return p.Request.(TradeRequest)
}

// History implements envelope.HistorySource.
func (c *Case) History() ([]envelope.Block, []envelope.Event) { return c.Blocks, c.Events }

// Ledger returns the active mandates after blocks 0..through, sorted by id (docs/FORMATS.md 3.4:
// the replay keeps only active records).
func Ledger(c *Case, through int) ([]*envelope.Record, error) {
	return envelope.Replay(c.Events, through)
}

// CorpusVerdict is EAL-Bench's finance corpus.evaluate_request, the corpus's own wording of
// the oracle ("permitted:<id>" or "no_matching_trading_mandate:<id>=<reason>;..."), which the
// corpus validators use; the executor oracle uses the toolkit wording (engine.EvaluateRecords).
// Records are the active ledger in id order; no records gives "no_matching_trading_mandate:".
func CorpusVerdict(c *Case, r TradeRequest, through int) (bool, string, error) {
	ledger, err := Ledger(c, through)
	if err != nil {
		return false, "", err
	}
	var denials []string
	for _, m := range ledger {
		reason := Denial(m, r)
		if reason == "" {
			return true, "permitted:" + m.ID, nil
		}
		denials = append(denials, m.ID+"="+reason)
	}
	return false, "no_matching_trading_mandate:" + strings.Join(denials, ";"), nil
}
