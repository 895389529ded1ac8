package ealtest

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// ControlsRow is one row of EAL-Bench's scorer golden vectors (controls_outcomes.json).
type ControlsRow struct {
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

// EngineResponse is the row's recorded response as the scorer reads it: a provider error is
// "<error_type>: <error>" (RuntimeError when the type is missing).
func (row ControlsRow) EngineResponse(t testing.TB) engine.Response {
	t.Helper()
	resp := engine.Response{Text: row.Response.Text, FinishReason: row.Response.FinishReason, Model: row.Response.Model}
	if row.Response.Error != nil {
		typ := "RuntimeError"
		if row.Response.ErrorType != nil {
			typ = *row.Response.ErrorType
		}
		resp.ProviderError = typ + ": " + *row.Response.Error
	}
	for _, tc := range row.Response.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, engine.ToolCall{Name: tc.Name, Arguments: Tree(t, tc.Arguments)})
	}
	return resp
}

// Controls says how a domain's rows of controls_outcomes.json are checked.
type Controls struct {
	Domain engine.Domain
	Case   *engine.Case
	// Rows is how many rows the domain has in the file.
	Rows int
	// CheckPairs also checks each row's pair_id against the probe's.
	CheckPairs bool
	// Extra are expected fields whose value is fixed for the domain (e.g. surface "native").
	Extra map[string]any
}

// CheckControls reproduces every row of the domain in EAL-Bench's scorer golden vectors field
// for field, and recomputes each row's trial id from the faithful memory (which pins the
// faithful typed payload and free text byte for byte through their content hashes, and the
// id recipes of docs/FORMATS.md 5.3).
func CheckControls(t *testing.T, cc Controls) {
	t.Helper()
	d, c := cc.Domain, cc.Case
	var doc struct {
		Rows []ControlsRow `json:"rows"`
	}
	Decode(t, ControlsFile, &doc)
	n := 0
	for _, row := range doc.Rows {
		if row.DomainID != d.ID() {
			continue
		}
		n++
		var caseID, probeID, condition, pairID string
		Field(t, row.Expected, "case_id", &caseID)
		Field(t, row.Expected, "probe_id", &probeID)
		Field(t, row.Expected, "condition_id", &condition)
		if caseID != c.ID {
			t.Fatalf("row refers to %s", caseID)
		}
		probe, ok := c.Probe(probeID)
		if !ok {
			t.Fatalf("unknown probe %s", probeID)
		}
		if cc.CheckPairs {
			Field(t, row.Expected, "pair_id", &pairID)
			if probe.PairID != pairID {
				t.Fatalf("probe %s: pair %s, want %s", probeID, probe.PairID, pairID)
			}
		}
		out, err := engine.Score(d, c, probe, row.EngineResponse(t), -1)
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
		for k, v := range cc.Extra {
			got[k] = v
		}
		for key, value := range got {
			want := Canon(t, Tree(t, row.Expected[key]))
			if have := Canon(t, value); have != want {
				t.Errorf("%s/%s/%s %s: got %s, want %s", condition, probeID, row.Label, key, have, want)
			}
		}
		if got := ControlTrialID(t, d, c, condition, probeID); got != row.TrialID {
			t.Errorf("%s/%s: trial id %s, want %s", condition, probeID, got, row.TrialID)
		}
	}
	if n != cc.Rows {
		t.Errorf("want %d %s rows, got %d", cc.Rows, d.ID(), n)
	}
}

// ControlTrialID is EAL-Bench's controls-track trial id recipe (docs/FORMATS.md 5.3): the faithful
// memory at the final block, writer run 0, baseline chain.
func ControlTrialID(t testing.TB, d engine.Domain, c *engine.Case, condition, probeID string) string {
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
	id, s := d.ID(), d.Surface()
	last := strconv.Itoa(c.Blocks[len(c.Blocks)-1].Index)
	chain := pyjson.StableID64("chain", id, c.ID, condition, "0", "baseline", s.PresentationID, s.PresentationHash)
	memory := pyjson.StableID64("mem", chain, "", last, pyjson.MustContentHash(payload))
	evidence := pyjson.StableID64("evidence", id, c.ID, condition, "0", memory, s.PresentationID, s.PresentationHash)
	return pyjson.StableID64("trial", id, evidence, probeID, s.PresentationHash)
}

// CheckResourceVersions compares the identities a domain stamps on its rows with EAL-Bench's
// published resource_versions.json.
func CheckResourceVersions(t *testing.T, d engine.Domain) {
	t.Helper()
	var doc struct {
		Domains map[string]map[string]string `json:"domains"`
	}
	Decode(t, ResourcesFile, &doc)
	want := doc.Domains[d.ID()]
	s := d.Surface()
	for key, got := range map[string]string{
		"presentation_id": s.PresentationID, "presentation_hash": s.PresentationHash,
		"memory_implementation_id": s.MemoryImplementationID, "memory_implementation_hash": s.MemoryImplementationHash,
		"domain_adapter_version": d.AdapterVersion(), "domain_id": d.ID(),
	} {
		if want[key] != got {
			t.Errorf("%s = %q, EAL-Bench has %q", key, got, want[key])
		}
	}
}
