package cybersecurity

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
	sharedCasesFile  = "cybersecurity_benchmark_v1__claim_identity.cases.json"
	sharedOracleFile = "cybersecurity_benchmark_v1__claim_identity.oracle.json"
	controlsFile     = "src__eal_bench__eval__reference__controls_outcomes.json"
	resourcesFile    = "src__eal_bench__eval__reference__resource_versions.json"
	manifestFile     = "results__cybersecurity__20260821-101143-561665__authorization-memory-writer__phase2-primary-s20260821-cybersecurity-nemotron__manifest.json"
)

func sharedCase(t *testing.T) *engine.Case {
	t.Helper()
	cases, err := Domain{}.ParseCorpus(sharedCasesFile, readEAL(t, sharedCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].ID != "cyberv3_claim_identity" {
		t.Fatalf("want the one shared case, got %d", len(cases))
	}
	return cases[0]
}

func canon(t *testing.T, v any) string {
	t.Helper()
	s, err := pyjson.CanonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rawTree(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSharedCaseOracle checks the shared case against EAL-Bench's own outputs: the active
// ledger after every block, the faithful typed payload and free text, and every probe's
// verdict and reason at the final block.
func TestSharedCaseOracle(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	var doc struct {
		Cases []struct {
			CaseID               string                     `json:"case_id"`
			FinalBlockIndex      int                        `json:"final_block_index"`
			Records              json.RawMessage            `json:"records"`
			FaithfulTypedPayload json.RawMessage            `json:"faithful_typed_payload"`
			FaithfulFreeText     string                     `json:"faithful_free_text"`
			ActiveRecordsByBlock map[string]json.RawMessage `json:"active_records_by_block"`
			Probes               []struct {
				ProbeID    string          `json:"probe_id"`
				Request    json.RawMessage `json:"request"`
				Authorized bool            `json:"authorized"`
				Reason     string          `json:"reason"`
			} `json:"probes"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(readEAL(t, sharedOracleFile), &doc); err != nil {
		t.Fatal(err)
	}
	want := doc.Cases[0]
	if want.FinalBlockIndex != c.LastBlock() {
		t.Fatalf("final block %d, want %d", c.LastBlock(), want.FinalBlockIndex)
	}
	if len(want.ActiveRecordsByBlock) != len(c.Blocks) {
		t.Fatalf("oracle has %d blocks, case %d", len(want.ActiveRecordsByBlock), len(c.Blocks))
	}
	for block := range c.Blocks {
		ledger, err := d.Replay(c, block)
		if err != nil {
			t.Fatal(err)
		}
		got := canon(t, d.TypedPayload(ledger)["authorizations"])
		if exp := canon(t, rawTree(t, want.ActiveRecordsByBlock[strconv.Itoa(block)])); got != exp {
			t.Errorf("block %d ledger:\n got %s\nwant %s", block, got, exp)
		}
	}
	final, err := d.Replay(c, -1+len(c.Blocks))
	if err != nil {
		t.Fatal(err)
	}
	if got, exp := canon(t, d.TypedPayload(final)["authorizations"]), canon(t, rawTree(t, want.Records)); got != exp {
		t.Errorf("final records differ:\n got %s\nwant %s", got, exp)
	}
	if got, exp := canon(t, d.TypedPayload(final)), canon(t, rawTree(t, want.FaithfulTypedPayload)); got != exp {
		t.Errorf("faithful typed payload differs:\n got %s\nwant %s", got, exp)
	}
	if got := d.FaithfulText(final); got != want.FaithfulFreeText {
		t.Errorf("faithful free text differs:\n got %q\nwant %q", got, want.FaithfulFreeText)
	}
	// The payload validates as schema "4" and the free text reads back to the same records.
	if _, err := d.ParseTyped(rawTree(t, want.FaithfulTypedPayload)); err != nil {
		t.Errorf("faithful typed payload does not parse: %v", err)
	}
	back, err := d.ReadFreeText(want.FaithfulFreeText)
	if err != nil {
		t.Fatalf("faithful free text does not read back: %v", err)
	}
	if got, exp := canon(t, d.TypedPayload(back)), canon(t, d.TypedPayload(final)); got != exp {
		t.Errorf("free text reads back as %s", got)
	}
	verdicts, err := engine.OracleProbes(d, c, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != len(want.Probes) {
		t.Fatalf("%d probes, want %d", len(verdicts), len(want.Probes))
	}
	for i, v := range verdicts {
		w := want.Probes[i]
		if v.Probe.ID != w.ProbeID || v.Verdict.Authorized != w.Authorized || v.Verdict.Reason != w.Reason {
			t.Errorf("probe %s: %v %s, want %s %v %s", v.Probe.ID, v.Verdict.Authorized, v.Verdict.Reason, w.ProbeID, w.Authorized, w.Reason)
		}
		if got, exp := canon(t, v.Probe.Request.(*Request).Fields()), canon(t, rawTree(t, w.Request)); got != exp {
			t.Errorf("probe %s request %s, want %s", w.ProbeID, got, exp)
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

// TestControlsOutcomes reproduces the 36 cybersecurity rows of EAL-Bench's scorer golden
// vectors field for field, and recomputes each row's trial id from the faithful memory (which
// pins the faithful typed payload and free text byte for byte through their content hashes).
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
			resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: tc.Name, Arguments: rawTree(t, tc.Arguments)})
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
			"domain_id": DomainID, "surface": "native",
		}
		for key, value := range got {
			want := canon(t, rawTree(t, row.Expected[key]))
			if have := canon(t, value); have != want {
				t.Errorf("%s/%s/%s %s: got %s, want %s", condition, probeID, row.Label, key, have, want)
			}
		}
		if got := controlTrialID(t, d, c, condition, probeID); got != row.TrialID {
			t.Errorf("%s/%s: trial id %s, want %s", condition, probeID, got, row.TrialID)
		}
	}
	if n != 36 {
		t.Errorf("want 36 cybersecurity rows, got %d", n)
	}
}

func mustField(t *testing.T, m map[string]json.RawMessage, key string, dst any) {
	t.Helper()
	if err := json.Unmarshal(m[key], dst); err != nil {
		t.Fatalf("field %s: %v", key, err)
	}
}

// controlTrialID is EAL-Bench's controls-track recipe.
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

// TestSurfaceIdentities checks the release identities against resource_versions.json and the
// presentation profile against its hash.
func TestSurfaceIdentities(t *testing.T) {
	var doc struct {
		Domains map[string]map[string]string `json:"domains"`
	}
	if err := json.Unmarshal(readEAL(t, resourcesFile), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Domains[DomainID]
	s := Domain{}.Surface()
	for key, got := range map[string]string{
		"presentation_id": s.PresentationID, "presentation_hash": s.PresentationHash,
		"memory_implementation_id": s.MemoryImplementationID, "memory_implementation_hash": s.MemoryImplementationHash,
		"domain_adapter_version": Domain{}.AdapterVersion(), "domain_id": Domain{}.ID(),
	} {
		if r[key] != got {
			t.Errorf("%s: %s, want %s", key, got, r[key])
		}
	}
	if h := pyjson.MustContentHash(s.Presentation); h != PresentationHash {
		t.Errorf("presentation profile hashes to %s, want %s", h, PresentationHash)
	}
	var manifest struct {
		Presentation map[string]any `json:"presentation"`
		Capacity     struct {
			Primary int `json:"primary_tokens"`
			Tight   int `json:"tight_tokens"`
		} `json:"capacity"`
	}
	if err := json.Unmarshal(readEAL(t, manifestFile), &manifest); err != nil {
		t.Fatal(err)
	}
	if canon(t, manifest.Presentation) != canon(t, s.Presentation) {
		t.Errorf("presentation differs from the run manifest's")
	}
	if manifest.Capacity.Primary != PrimaryCapacityTokens || manifest.Capacity.Tight != TightCapacityTokens {
		t.Errorf("capacity %d/%d, manifest %d/%d", PrimaryCapacityTokens, TightCapacityTokens, manifest.Capacity.Primary, manifest.Capacity.Tight)
	}
}
