package ealtest

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// OracleCase is one case of an EAL-Bench oracle output file (*.oracle.json): the active
// ledger after every block, the faithful memories and every probe's verdict at the final block.
type OracleCase struct {
	CaseID        string                     `json:"case_id"`
	FinalBlock    int                        `json:"final_block_index"`
	Records       json.RawMessage            `json:"records"`
	FaithfulTyped json.RawMessage            `json:"faithful_typed_payload"`
	FaithfulText  string                     `json:"faithful_free_text"`
	ActiveByBlock map[string]json.RawMessage `json:"active_records_by_block"`
	Probes        []OracleProbe              `json:"probes"`
}

// OracleProbe is one probe's request and verdict; Corpus is the corpus's own evaluate_request
// verdict where the file has it.
type OracleProbe struct {
	ProbeID    string          `json:"probe_id"`
	Request    json.RawMessage `json:"request"`
	Authorized bool            `json:"authorized"`
	Reason     string          `json:"reason"`
	Corpus     struct {
		Authorized bool   `json:"authorized"`
		Reason     string `json:"reason"`
	} `json:"corpus_evaluate_request"`
}

// CheckOracle compares the domain with EAL-Bench's own outputs on the shared case of an oracle
// file: ledger(block) (the active records after a block, as the file writes them) at every
// block and at the end, the faithful typed payload and free text (each read back to the same
// state), and every probe's verdict and reason at the final block. It returns the file's case
// and the verdicts, paired by index, for the domain's own further checks.
func CheckOracle(t *testing.T, d engine.Domain, c *engine.Case, name string, ledger func(block int) any) (OracleCase, []engine.ProbeVerdict) {
	t.Helper()
	var doc struct {
		Cases []OracleCase `json:"cases"`
	}
	Decode(t, name, &doc)
	want := doc.Cases[0]
	if want.CaseID != c.ID || want.FinalBlock != c.LastBlock() {
		t.Fatalf("case %s/%d, oracle file has %s/%d", c.ID, c.LastBlock(), want.CaseID, want.FinalBlock)
	}
	if len(want.ActiveByBlock) != len(c.Blocks) {
		t.Fatalf("%d blocks in the oracle file, %d in the case", len(want.ActiveByBlock), len(c.Blocks))
	}
	for i := range c.Blocks {
		if got, w := Canon(t, ledger(i)), Canon(t, Tree(t, want.ActiveByBlock[strconv.Itoa(i)])); got != w {
			t.Errorf("active records after block %d\n got %s\nwant %s", i, got, w)
		}
	}
	if got, w := Canon(t, ledger(c.LastBlock())), Canon(t, Tree(t, want.Records)); got != w {
		t.Errorf("final records\n got %s\nwant %s", got, w)
	}
	final, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	faithful := Canon(t, Tree(t, want.FaithfulTyped))
	if got := Canon(t, d.TypedPayload(final)); got != faithful {
		t.Errorf("faithful typed payload\n got %s\nwant %s", got, faithful)
	}
	if got := d.FaithfulText(final); got != want.FaithfulText {
		t.Errorf("faithful free text\n got %q\nwant %q", got, want.FaithfulText)
	}
	if _, err := d.ParseTyped(Tree(t, want.FaithfulTyped)); err != nil {
		t.Errorf("faithful typed payload does not parse: %v", err)
	}
	back, err := d.ReadFreeText(want.FaithfulText)
	if err != nil {
		t.Fatalf("faithful free text does not read back: %v", err)
	}
	if got := Canon(t, d.TypedPayload(back)); got != faithful {
		t.Errorf("free text reads back as %s", got)
	}
	verdicts, err := engine.OracleProbes(d, c, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != len(want.Probes) {
		t.Fatalf("%d probes, oracle file has %d", len(verdicts), len(want.Probes))
	}
	for i, v := range verdicts {
		w := want.Probes[i]
		if v.Probe.ID != w.ProbeID || v.Verdict.Authorized != w.Authorized || v.Verdict.Reason != w.Reason {
			t.Errorf("probe %s: %+v, want %s %v %s", v.Probe.ID, v.Verdict, w.ProbeID, w.Authorized, w.Reason)
		}
	}
	return want, verdicts
}
