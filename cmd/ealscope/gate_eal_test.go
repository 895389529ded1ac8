package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestGateCommandPrintsEALBenchBytes: `ealscope gate --json` on every edge row of EAL-Bench's
// own gate outputs (source_authority_gate__shared_cases.json, through EALSCOPE_EAL_DATA) prints
// exactly EAL-Bench's result as its persistence writes it (sorted keys, default separators)
// plus a newline, at the row's block (None: --all-turns), and exits 1 where EAL-Bench's parser
// refused the memory.
func TestGateCommandPrintsEALBenchBytes(t *testing.T) {
	dir := os.Getenv("EALSCOPE_EAL_DATA")
	if dir == "" {
		t.Skip("EALSCOPE_EAL_DATA is unset: skipping the gate command against EAL-Bench's own outputs (set it to ../shared/eal/data)")
	}
	corpora := map[string]string{
		"procurement":   "domains__procurement__data__benchmark_v1__software_license_grant.jsonl",
		"cybersecurity": "cybersecurity_benchmark_v1__claim_identity.cases.json",
		"finance":       "domains__finance__data__benchmark_v1__airport_bond_reserve.json",
	}
	raw, err := os.ReadFile(filepath.Join(dir, "source_authority_gate__shared_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		EdgeRows []struct {
			DomainID  string          `json:"domain_id"`
			CaseID    string          `json:"case_id"`
			MemoryRef string          `json:"memory_ref"`
			Through   *int            `json:"through_block_index"`
			Memory    json.RawMessage `json:"memory"`
			Result    json.RawMessage `json:"result"`
		} `json:"edge_rows"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for i, row := range doc.EdgeRows {
		name := row.DomainID + " " + row.MemoryRef
		memory := filepath.Join(tmp, strconv.Itoa(i)+".json")
		if err := os.WriteFile(memory, row.Memory, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"gate", "--corpus", filepath.Join(dir, corpora[row.DomainID]), "--case", row.CaseID,
			"--memory", memory, "--json"}
		if row.Through == nil {
			args = append(args, "--all-turns")
		} else {
			args = append(args, "--block="+strconv.Itoa(*row.Through))
		}
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		if len(row.Result) == 0 {
			if code != 1 || !bytes.Contains(errOut.Bytes(), []byte(memory)) {
				t.Errorf("%s: EAL-Bench refused the memory; exit %d, stderr %q", name, code, errOut.String())
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errOut.String())
			continue
		}
		want, err := pyjson.DecodeTree(row.Result)
		if err != nil {
			t.Fatal(err)
		}
		line, err := pyjson.RowLine(want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), line) {
			t.Errorf("%s:\n got %s\nwant %s", name, out.Bytes(), line)
		}
	}
}
