package safeguardtests_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// The shared cases' corpus files, by domain (EALSCOPE_EAL_DATA, README.md there).
var sharedCaseFiles = map[string]string{
	"procurement":   "domains__procurement__data__benchmark_v1__software_license_grant.jsonl",
	"cybersecurity": "cybersecurity_benchmark_v1__claim_identity.cases.json",
	"finance":       "domains__finance__data__benchmark_v1__airport_bond_reserve.json",
}

// TestGateReproducesEALBench runs the gate on every row and edge row of EAL-Bench's own gate
// outputs for the three shared cases: where EAL-Bench produced a result ours is byte for byte
// the same (in EAL-Bench's row encoding, and with exactly to_dict's keys in to_dict's order
// for the gate's own objects); where its parser refused the memory ours refuses it too.
func TestGateReproducesEALBench(t *testing.T) {
	dir := ealref.Dir(t, "the gate checks against EAL-Bench's own outputs")
	doc, err := ealref.ReadGateCases(filepath.Join(dir, ealref.GateCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*engine.Case{}
	perDomain := map[string]int{}
	reasons := map[string]int{}
	for _, row := range doc.All() {
		name := row.DomainID + " " + row.MemoryRef + " " + row.Writer
		d, err := domains.Get(row.DomainID)
		if err != nil {
			t.Fatal(err)
		}
		c := cases[row.DomainID]
		if c == nil {
			c = sharedCase(t, d, filepath.Join(dir, sharedCaseFiles[row.DomainID]))
			cases[row.DomainID] = c
		}
		if c.ID != row.CaseID {
			t.Fatalf("%s: row case %s, shared case %s", name, row.CaseID, c.ID)
		}
		memory, err := pyjson.DecodeTree(row.Memory)
		if err != nil {
			t.Fatal(err)
		}
		perDomain[row.DomainID]++
		res, err := safeguards.GateTypedPayload(d, c, memory, row.Through)
		if row.Refused() {
			if err == nil {
				t.Errorf("%s: EAL-Bench's parser refused the memory, ours gated it", name)
			}
			reasons["(refused)"]++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := pyjson.DecodeTree(row.Result)
		if err != nil {
			t.Fatal(err)
		}
		wantBytes, err := pyjson.DumpPy(want, pyjson.Row)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantBytes) {
			t.Errorf("%s: result differs\n got %s\nwant %s", name, got, wantBytes)
		}
		checkKeyOrder(t, name, row.Result)
		for _, dec := range res.Decisions {
			reasons[dec.Reason]++
		}
	}
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		if perDomain[id] == 0 {
			t.Errorf("no rows for %s", id)
		}
	}
	// Every reason EAL-Bench's data exercises must have been reproduced at least once.
	for _, r := range []string{safeguards.ReasonRecordPassed, safeguards.ReasonFutureProvenance,
		safeguards.ReasonUnknownProvenance, safeguards.ReasonNotAuthorityCapable, "(refused)"} {
		if reasons[r] == 0 {
			t.Errorf("no record decided %s", r)
		}
	}
	t.Logf("rows per domain %v; record reasons %v", perDomain, reasons)
}

// checkKeyOrder: the gate's own objects carry exactly to_dict's keys, in to_dict's order.
func checkKeyOrder(t *testing.T, name string, raw json.RawMessage) {
	t.Helper()
	expectKeys(t, name, raw, "schema_version", "through_block_index", "input_record_count",
		"retained_record_count", "removed_record_count", "gated_state", "decisions")
	var res struct {
		Decisions []json.RawMessage `json:"decisions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Decisions {
		expectKeys(t, name, d, "record_index", "authorization_id", "passed", "reason", "citations")
		var dec struct {
			Citations []json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(d, &dec); err != nil {
			t.Fatal(err)
		}
		for _, c := range dec.Citations {
			expectKeys(t, name, c, "source_turn_id", "passed", "reason", "source")
			var cite struct {
				Source json.RawMessage `json:"source"`
			}
			if err := json.Unmarshal(c, &cite); err != nil {
				t.Fatal(err)
			}
			if string(cite.Source) != "null" {
				expectKeys(t, name, cite.Source, "source_turn_id", "principal_id", "authority_class",
					"authorization_capable", "source_type")
			}
		}
	}
}

func expectKeys(t *testing.T, name string, raw json.RawMessage, want ...string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object: %s", name, raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(keys, want) {
		t.Errorf("%s: keys %v, want %v", name, keys, want)
	}
}

func sharedCase(t *testing.T, d engine.Domain, path string) *engine.Case {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := d.ParseCorpus(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 {
		t.Fatalf("%s: want one case, got %d", path, len(cases))
	}
	return cases[0]
}
