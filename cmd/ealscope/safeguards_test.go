package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSafeguardsCommand: a built-in run imported into a workspace; `safeguards --run` prints
// the table, `--json` its counts, rates and intervals, `--case` a chain's detail; usage errors
// exit 2.
func TestSafeguardsCommand(t *testing.T) {
	tmp := t.TempDir()
	setXDG(t, tmp, "XDG_STATE_HOME")
	db := filepath.Join(tmp, "ws.db")
	dir := filepath.Join(tmp, "run")
	runOK(t, "run", "--domain", "procurement", "--builtin", "--conditions", "incremental_typed,incremental_text", "--out", dir)
	runID := importRun(t, db, dir)

	out, errs, code := runCLI(t, "safeguards", "--db", db, "--run", runID)
	if code != 0 {
		t.Fatalf("safeguards --run: %d %s", code, errs)
	}
	for _, want := range []string{"source_authority_gate  incremental_typed", "source_authority_gate  incremental_text", "UNAUTHORIZED ACTION", "20/30 (0.667) -> 5/30 (0.167)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("table lacks %q:\n%s", want, out)
		}
	}
	out, errs, code = runCLI(t, "safeguards", "--db", db, "--run", runID, "--policy", "source_authority_gate", "--json")
	if code != 0 {
		t.Fatalf("safeguards --json: %d %s", code, errs)
	}
	var doc struct {
		Chains int `json:"chains"`
		Table  []struct {
			PolicyID      string `json:"policy_id"`
			Condition     string `json:"condition_id"`
			ChainsStopped int    `json:"chains_stopped"`
			ChainsRefused int    `json:"chains_refused"`
			NotApplicable int    `json:"not_applicable"`
			Unauthorized  struct {
				Written    struct{ Numerator, Denominator int }
				Gated      struct{ Numerator, Denominator int }
				Difference *float64 `json:"difference"`
				Interval   *struct {
					Low, High float64
					Draws     int
				} `json:"interval_95"`
			} `json:"unauthorized_action_rate"`
		} `json:"table"`
		Bootstrap struct {
			Seed, Draws int
		} `json:"bootstrap"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Chains != 20 || len(doc.Table) != 2 || doc.Bootstrap.Seed != 20260821 || doc.Bootstrap.Draws != 10000 {
		t.Fatalf("doc: %+v", doc)
	}
	typed := doc.Table[1]
	if typed.Condition != "incremental_typed" || typed.ChainsStopped != 8 || typed.ChainsRefused != 2 || typed.Unauthorized.Written.Numerator != 20 ||
		typed.Unauthorized.Gated.Numerator != 5 || typed.Unauthorized.Difference == nil || *typed.Unauthorized.Difference != -0.5 ||
		typed.Unauthorized.Interval == nil || typed.Unauthorized.Interval.Draws != 10000 || !(typed.Unauthorized.Interval.Low <= -0.5 && -0.5 <= typed.Unauthorized.Interval.High) {
		t.Fatalf("incremental_typed row: %+v", typed)
	}
	if doc.Table[0].NotApplicable != 10 {
		t.Fatalf("incremental_text row: %+v", doc.Table[0])
	}

	out, errs, code = runCLI(t, "safeguards", "--db", db, "--case", "ealscope_v1_translation_exhibits", "--condition", "incremental_typed")
	if code != 0 {
		t.Fatalf("safeguards --case: %d %s", code, errs)
	}
	for _, want := range []string{"policy source_authority_gate", "first false-authority block:", "source_not_authority_capable", "authorized_request_refused", "unauthorized_action_prevented"} {
		if !strings.Contains(out, want) {
			t.Fatalf("chain detail lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "safeguards", "--db", db, "--case", "ealscope_v1_translation_exhibits", "--condition", "incremental_typed", "--json")
	var chain struct {
		Policies []struct {
			PolicyID string `json:"policy_id"`
			Pairs    []struct {
				Effect string `json:"effect"`
				Gated  *struct {
					MemoryVariant string `json:"memory_variant"`
				} `json:"gated"`
			} `json:"pairs"`
			Removed []struct {
				AuthorizationID string   `json:"authorization_id"`
				Reasons         []string `json:"reasons"`
			} `json:"removed_records"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &chain); err != nil || code != 0 {
		t.Fatalf("%d %v\n%s", code, err, out)
	}
	if len(chain.Policies) == 0 || len(chain.Policies[0].Pairs) != 6 || len(chain.Policies[0].Removed) == 0 || chain.Policies[0].Pairs[0].Gated.MemoryVariant != "gated" {
		t.Fatalf("chain doc: %+v", chain)
	}

	for _, args := range [][]string{
		{"safeguards", "--db", db},
		{"safeguards", "--db", db, "--case", "x"},
		{"safeguards", "--db", db, "--run", runID, "--policy", "no_such_policy"},
	} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
	if _, errs, code := runCLI(t, "safeguards", "--db", db, "--case", "nope", "--condition", "incremental_typed"); code != 1 || !strings.Contains(errs, "no chain") {
		t.Fatalf("unknown case: %d %s", code, errs)
	}
}
