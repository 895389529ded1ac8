package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/domains/procurement"
)

func TestCheckBuiltinJSON(t *testing.T) {
	doc, out := checkAllValid(t, 10, "--builtin")
	assertJSONKeys(t, "check --json", out, "case_id", "valid", "error", "scope_mismatches", "probes", "probe_id", "request_scope", "authorized", "reason")
	for _, c := range doc.Cases {
		for _, p := range c.Probes {
			if p.Authorized != (p.RequestScope == "in_scope") || !strings.HasPrefix(p.Reason, map[bool]string{true: "authorized:", false: "no_matching_authorization:"}[p.Authorized]) {
				t.Errorf("%s: %+v", p.ProbeID, p)
			}
		}
	}
}

// A case whose in-scope probe the oracle denies is not a matched pair: check reports it
// invalid, names line, case and probe, and exits non-zero; the other cases still report.
func TestCheckRejectsUnseparatedProbePair(t *testing.T) {
	_, data := procurement.Domain{}.BuiltinCorpus()
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var c map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &c); err != nil {
		t.Fatal(err)
	}
	pair := c["probe_pairs"].([]any)[0].(map[string]any)
	pair["in_scope"].(map[string]any)["transaction"].(map[string]any)["amount"] = 10_000_000
	broken, _ := json.Marshal(c)
	path := writeFile(t, filepath.Join(t.TempDir(), "corpus.jsonl"), []byte(lines[1]+"\n"+string(broken)+"\n"))
	text, errs, code := runCLI(t, "check", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"INVALID", path + ":2:", "case ealscope_v1_field_survey_kit", "field probe_pairs[0].in_scope", "ealscope_v1_field_survey_kit_amount_in", "must be authorized", "amount_out_of_scope", "(line 1, 6 probes)"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(errs, "1 of 2 cases are invalid") {
		t.Errorf("stderr: %s", errs)
	}
}

// TestCheckDetectsDomain: without --domain, check and fidelity read the domain from the file
// (each built-in corpus written out and checked); an unreadable file says it cannot tell.
func TestCheckDetectsDomain(t *testing.T) {
	for _, id := range domains.IDs() {
		if id == tinyID {
			continue // the seam test's domain is told by --domain only
		}
		d, _ := domains.Get(id)
		name, data := d.BuiltinCorpus()
		path := writeFile(t, filepath.Join(t.TempDir(), filepath.Base(name)), data)
		out, errs, code := runCLI(t, "check", path, "--json")
		if code != 0 || !strings.Contains(out, `"valid": true`) {
			t.Fatalf("%s: exit %d\n%s\n%s", id, code, out, errs)
		}
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), "x.json"), []byte(`{"hello": 1}`))
	if _, errs, code := runCLI(t, "check", bad); code == 0 || !strings.Contains(errs, "x.json") {
		t.Fatalf("undetectable corpus: exit %d: %s", code, errs)
	}
}
