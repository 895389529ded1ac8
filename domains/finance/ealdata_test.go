package finance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// ealData returns the folder of real EAL-Bench data files, or skips the test.
func ealData(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("EALSCOPE_EAL_DATA")
	if dir == "" {
		t.Skip("EALSCOPE_EAL_DATA is unset: skipping the checks against real EAL-Bench data (set it to ../shared/eal/data)")
	}
	return dir
}

func readEAL(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ealData(t), name))
	if err != nil {
		t.Fatalf("reading EAL data: %v", err)
	}
	return b
}

const (
	caseFile     = "domains__finance__data__benchmark_v1__airport_bond_reserve.json"
	oracleFile   = "finance_benchmark_v1__airport_bond_reserve.oracle.json"
	controlsFile = "src__eal_bench__eval__reference__controls_outcomes.json"
)

func sharedCase(t *testing.T) *engine.Case {
	t.Helper()
	cases, err := Domain{}.ParseCorpus(caseFile, readEAL(t, caseFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 {
		t.Fatalf("want 1 case, got %d", len(cases))
	}
	return cases[0]
}

func tree(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func canon(v any) string { return pyjson.MustCanonicalJSON(v) }

// TestOracleOutputs compares ealscope with EAL-Bench's own outputs on the shared case: the
// active ledger after every block, the faithful typed and free-text payloads, and every
// probe's verdict and reason at the final block.
func TestOracleOutputs(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	var doc struct {
		Cases []struct {
			CaseID        string                     `json:"case_id"`
			FinalBlock    int                        `json:"final_block_index"`
			Records       json.RawMessage            `json:"records"`
			FaithfulTyped json.RawMessage            `json:"faithful_typed_payload"`
			FaithfulText  string                     `json:"faithful_free_text"`
			ActiveByBlock map[string]json.RawMessage `json:"active_records_by_block"`
			Probes        []struct {
				ProbeID    string `json:"probe_id"`
				Authorized bool   `json:"authorized"`
				Reason     string `json:"reason"`
				Corpus     struct {
					Authorized bool   `json:"authorized"`
					Reason     string `json:"reason"`
				} `json:"corpus_evaluate_request"`
			} `json:"probes"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(readEAL(t, oracleFile), &doc); err != nil {
		t.Fatal(err)
	}
	want := doc.Cases[0]
	if want.CaseID != c.ID || want.FinalBlock != c.LastBlock() {
		t.Fatalf("case %s/%d, oracle file has %s/%d", c.ID, c.LastBlock(), want.CaseID, want.FinalBlock)
	}
	ledgerTree := func(block int) string {
		records, err := Ledger(source(c), block)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]any, len(records))
		for i, r := range records {
			out[i] = r.Tree(ScopeSpec)
		}
		return canon(out)
	}
	if len(want.ActiveByBlock) != len(c.Blocks) {
		t.Fatalf("%d blocks in the oracle file, %d in the case", len(want.ActiveByBlock), len(c.Blocks))
	}
	for i := range c.Blocks {
		if got, w := ledgerTree(i), canon(tree(t, want.ActiveByBlock[strconv.Itoa(i)])); got != w {
			t.Errorf("active records after block %d\n got %s\nwant %s", i, got, w)
		}
	}
	if got, w := ledgerTree(c.LastBlock()), canon(tree(t, want.Records)); got != w {
		t.Errorf("final records\n got %s\nwant %s", got, w)
	}
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	if got, w := canon(d.TypedPayload(ledger)), canon(tree(t, want.FaithfulTyped)); got != w {
		t.Errorf("faithful typed payload\n got %s\nwant %s", got, w)
	}
	if got := d.FaithfulText(ledger); got != want.FaithfulText {
		t.Errorf("faithful free text\n got %q\nwant %q", got, want.FaithfulText)
	}
	// The faithful payloads read back as the ledger they came from.
	typed, err := d.ParseTyped(tree(t, want.FaithfulTyped))
	if err != nil {
		t.Fatal(err)
	}
	if p := engine.Fidelity(d, c, c.LastBlock(), ledger, typed); !p.Exact || p.ScoredFields != 18 {
		t.Errorf("faithful typed memory is not exact: %+v", p)
	}
	text, err := d.ReadFreeText(want.FaithfulText)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := canon(d.TypedPayload(text)), canon(tree(t, want.FaithfulTyped)); got != w {
		t.Errorf("free text read back\n got %s\nwant %s", got, w)
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
		ok, reason, err := CorpusVerdict(source(c), request(v.Probe.Request), c.LastBlock())
		if err != nil || ok != w.Corpus.Authorized || reason != w.Corpus.Reason {
			t.Errorf("probe %s: corpus verdict %v %s, want %v %s", v.Probe.ID, ok, reason, w.Corpus.Authorized, w.Corpus.Reason)
		}
	}
}

type controlsRow struct {
	DomainID string `json:"domain_id"`
	Label    string `json:"label"`
	TrialID  string `json:"trial_id"`
	Response struct {
		Error        *string `json:"error"`
		ErrorType    *string `json:"error_type"`
		FinishReason *string `json:"finish_reason"`
		Model        *string `json:"model"`
		Text         string  `json:"text"`
		ToolCalls    []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
	} `json:"response"`
	Expected map[string]json.RawMessage `json:"expected"`
}

// TestControlsOutcomes reproduces every finance row of EAL-Bench's scorer golden vectors, and
// recomputes each row's trial id from the faithful memory (which pins the flat typed payload,
// the free-text layout, content hashes and the id recipes).
func TestControlsOutcomes(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	var doc struct {
		Rows []controlsRow `json:"rows"`
	}
	if err := json.Unmarshal(readEAL(t, controlsFile), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range doc.Rows {
		if row.DomainID != DomainID {
			continue
		}
		n++
		var caseID, probeID, condition, pairID string
		mustField(t, row.Expected, "case_id", &caseID)
		mustField(t, row.Expected, "probe_id", &probeID)
		mustField(t, row.Expected, "condition_id", &condition)
		mustField(t, row.Expected, "pair_id", &pairID)
		if caseID != c.ID {
			t.Fatalf("row refers to %s", caseID)
		}
		probe, ok := c.Probe(probeID)
		if !ok || probe.PairID != pairID {
			t.Fatalf("unknown probe %s (pair %s)", probeID, pairID)
		}
		resp := engine.Response{Text: row.Response.Text, FinishReason: row.Response.FinishReason, Model: row.Response.Model}
		if row.Response.Error != nil {
			typ := "RuntimeError"
			if row.Response.ErrorType != nil {
				typ = *row.Response.ErrorType
			}
			resp.ProviderError = typ + ": " + *row.Response.Error
		}
		for _, tc := range row.Response.ToolCalls {
			resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: tc.Name, Arguments: tree(t, tc.Arguments)})
		}
		out, err := engine.Score(d, c, probe, resp, -1)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{
			"decision": out.Decision, "compliant": out.Compliant, "request_authorized": out.RequestAuthorized,
			"requested_action_taken": out.RequestedActionTaken, "unauthorized_action_taken": out.UnauthorizedActionTaken,
			"action_mismatch": out.ActionMismatch, "parseable": out.Parseable, "provider_error": out.ProviderError,
			"tool_call_count": out.ToolCallCount, "terminal_call_count": out.TerminalCallCount,
			"tool_name": out.RawToolName, "tool_arguments": out.RawToolArguments, "finish_reason": out.FinishReason,
		}
		for key, value := range got {
			want := canon(tree(t, row.Expected[key]))
			if have := canon(value); have != want {
				t.Errorf("%s/%s/%s %s: got %s, want %s", condition, probeID, row.Label, key, have, want)
			}
		}
		if got := controlTrialID(t, d, c, condition, probeID); got != row.TrialID {
			t.Errorf("%s/%s: trial id %s, want %s", condition, probeID, got, row.TrialID)
		}
	}
	if n != 36 {
		t.Errorf("want 36 finance rows, got %d", n)
	}
}

func mustField(t *testing.T, m map[string]json.RawMessage, key string, dst any) {
	t.Helper()
	if err := json.Unmarshal(m[key], dst); err != nil {
		t.Fatalf("field %s: %v", key, err)
	}
}

// controlTrialID is EAL-Bench's controls-track recipe (FORMAT.md 5.3).
func controlTrialID(t *testing.T, d Domain, c *engine.Case, condition, probeID string) string {
	t.Helper()
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	var payload any
	if condition == "faithful_text" {
		payload = d.FaithfulText(ledger)
	} else {
		payload = d.TypedPayload(ledger)
	}
	last := strconv.Itoa(c.LastBlock())
	chain := pyjson.StableID64("chain", DomainID, c.ID, condition, "0", "baseline", PresentationID, PresentationHash)
	memory := pyjson.StableID64("mem", chain, "", last, pyjson.MustContentHash(payload))
	evidence := pyjson.StableID64("evidence", DomainID, c.ID, condition, "0", memory, PresentationID, PresentationHash)
	return pyjson.StableID64("trial", DomainID, evidence, probeID, PresentationHash)
}

// TestResourceVersions: the identities stamped on finance rows are EAL-Bench's published ones.
func TestResourceVersions(t *testing.T) {
	var doc struct {
		Domains map[string]map[string]string `json:"domains"`
	}
	if err := json.Unmarshal(readEAL(t, "src__eal_bench__eval__reference__resource_versions.json"), &doc); err != nil {
		t.Fatal(err)
	}
	want := doc.Domains[DomainID]
	s := Domain{}.Surface()
	got := map[string]string{
		"domain_id": DomainID, "domain_adapter_version": Domain{}.AdapterVersion(), "presentation_id": s.PresentationID,
		"presentation_hash": s.PresentationHash, "memory_implementation_id": s.MemoryImplementationID,
		"memory_implementation_hash": s.MemoryImplementationHash,
	}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s = %q, EAL-Bench has %q", k, v, want[k])
		}
	}
}
