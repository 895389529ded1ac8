package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

const (
	caseFile   = "domains__finance__data__benchmark_v1__airport_bond_reserve.json"
	oracleFile = "finance_benchmark_v1__airport_bond_reserve.oracle.json"
)

func sharedCase(t *testing.T) *engine.Case { return ealtest.OneCase(t, Domain{}, caseFile) }

// TestOracleOutputs compares ealscope with EAL-Bench's own outputs on the shared case (the
// active ledger after every block, the faithful memories, every probe's verdict at the final
// block), the faithful memory's fidelity, and the corpus's own verdict on every probe.
func TestOracleOutputs(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	ledgerTree := func(block int) any {
		records, err := Ledger(source(c), block)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]any, len(records))
		for i, r := range records {
			out[i] = r.Tree(ScopeSpec)
		}
		return out
	}
	want, verdicts := ealtest.CheckOracle(t, d, c, oracleFile, ledgerTree)
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	typed, err := d.ParseTyped(ealtest.Tree(t, want.FaithfulTyped))
	if err != nil {
		t.Fatal(err)
	}
	if p := engine.Fidelity(d, c, c.LastBlock(), ledger, typed); !p.Exact || p.ScoredFields != 18 {
		t.Errorf("faithful typed memory is not exact: %+v", p)
	}
	for i, v := range verdicts {
		w := want.Probes[i]
		ok, reason, err := CorpusVerdict(source(c), request(v.Probe.Request), c.LastBlock())
		if err != nil || ok != w.Corpus.Authorized || reason != w.Corpus.Reason {
			t.Errorf("probe %s: corpus verdict %v %s, want %v %s", v.Probe.ID, ok, reason, w.Corpus.Authorized, w.Corpus.Reason)
		}
	}
}

// TestControlsOutcomes reproduces every finance row of EAL-Bench's scorer golden vectors, with
// their trial ids (which pin the flat typed payload, the free-text layout, content hashes and
// the id recipes).
func TestControlsOutcomes(t *testing.T) {
	ealtest.CheckControls(t, ealtest.Controls{Domain: Domain{}, Case: sharedCase(t), Rows: 36, CheckPairs: true})
}

// TestResourceVersions: the identities stamped on finance rows are EAL-Bench's published ones.
func TestResourceVersions(t *testing.T) { ealtest.CheckResourceVersions(t, Domain{}) }

// TestTypedParserAgreesWithEALBench runs every typed memory of the shared finance case in
// source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, the real writer memories and the hand-built edge memories): the
// parser refuses exactly what EAL-Bench's parse_typed refused, normalises the rest to the
// state EAL-Bench re-serialised, and the preservation payloads get the fidelity classes their
// recipes imply (EAL-Bench's expected_fidelity rows are not in the shared data).
func TestTypedParserAgreesWithEALBench(t *testing.T) {
	ealtest.CheckTypedParser(t, Domain{}, sharedCase(t), 66, map[string]string{
		"preservation:widened_max_limit_price_micros": "broadening",
		"preservation:contradicted_account_id":        "contradiction",
		"preservation:stale_state_block_1":            "broadening,contradiction",
	})
}
