package procurement

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
	calibrationFile = "domains__procurement__data__calibration_v1.jsonl"
	benchmarkFile   = "domains__procurement__data__benchmark_v1__software_license_grant.jsonl"
	controlsFile    = "src__eal_bench__eval__reference__controls_outcomes.json"
)

func TestCalibrationCorpusOracle(t *testing.T) {
	d := Domain{}
	cases, err := d.ParseCorpus(calibrationFile, readEAL(t, calibrationFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 5 {
		t.Fatalf("want 5 calibration cases, got %d", len(cases))
	}
	probes := 0
	for _, c := range cases {
		verdicts, err := engine.OracleProbes(d, c, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range verdicts {
			probes++
			want := v.Probe.Scope == "in_scope"
			if v.Verdict.Authorized != want {
				t.Errorf("%s %s: authorized=%v (%s), want %v", c.ID, v.Probe.ID, v.Verdict.Authorized, v.Verdict.Reason, want)
			}
		}
	}
	if probes != 30 {
		t.Errorf("want 30 probes, got %d", probes)
	}
}

func TestAuthoringHashReproduces(t *testing.T) {
	for _, name := range []string{calibrationFile, benchmarkFile} {
		cases, _, err := ParseCorpusLines(name, readEAL(t, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			ok, err := AuthoringHashMatches(c)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("%s: authoring hash %s does not reproduce", c.CaseID, c.AuthoringHash)
			}
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

// TestControlsOutcomes reproduces every procurement row of EAL-Bench's scorer golden vectors,
// and recomputes each row's trial id from the faithful memory (which pins the canonical JSON,
// the faithful free-text and typed layouts, content hashes and both id recipes).
func TestControlsOutcomes(t *testing.T) {
	d := Domain{}
	cases, err := d.ParseCorpus(benchmarkFile, readEAL(t, benchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
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
		var caseID, probeID, condition string
		mustField(t, row.Expected, "case_id", &caseID)
		mustField(t, row.Expected, "probe_id", &probeID)
		mustField(t, row.Expected, "condition_id", &condition)
		if caseID != c.ID {
			t.Fatalf("row refers to %s", caseID)
		}
		probe, ok := c.Probe(probeID)
		if !ok {
			t.Fatalf("unknown probe %s", probeID)
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
			args, err := pyjson.DecodeTree(tc.Arguments)
			if err != nil {
				t.Fatal(err)
			}
			resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: tc.Name, Arguments: args})
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
			want := pyjson.MustCanonicalJSON(rawTree(t, row.Expected[key]))
			if have := pyjson.MustCanonicalJSON(value); have != want {
				t.Errorf("%s/%s/%s %s: got %s, want %s", condition, probeID, row.Label, key, have, want)
			}
		}
		if got := controlTrialID(t, d, c, condition, probeID); got != row.TrialID {
			t.Errorf("%s/%s: trial id %s, want %s", condition, probeID, got, row.TrialID)
		}
	}
	if n != 36 {
		t.Errorf("want 36 procurement rows, got %d", n)
	}
}

func mustField(t *testing.T, m map[string]json.RawMessage, key string, dst any) {
	t.Helper()
	if err := json.Unmarshal(m[key], dst); err != nil {
		t.Fatalf("field %s: %v", key, err)
	}
}

func rawTree(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
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
	last := c.Blocks[len(c.Blocks)-1].Index
	chain := pyjson.StableID64("chain", DomainID, c.ID, condition, "0", "baseline", PresentationID, PresentationHash)
	memory := pyjson.StableID64("mem", chain, "", itoa(last), pyjson.MustContentHash(payload))
	evidence := pyjson.StableID64("evidence", DomainID, c.ID, condition, "0", memory, PresentationID, PresentationHash)
	return pyjson.StableID64("trial", DomainID, evidence, probeID, PresentationHash)
}

func itoa(i int) string { return strconv.Itoa(i) }
