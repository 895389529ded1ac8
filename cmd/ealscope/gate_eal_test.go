package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestGateCommandPrintsEALBenchBytes: `ealscope gate --json` on every edge row of EAL-Bench's
// own gate outputs (source_authority_gate__shared_cases.json, through EALSCOPE_EAL_DATA) prints
// exactly EAL-Bench's result as its persistence writes it (sorted keys, default separators)
// plus a newline, at the row's block (None: --all-turns), and exits 1 where EAL-Bench's parser
// refused the memory.
func TestGateCommandPrintsEALBenchBytes(t *testing.T) {
	const skipping = "the gate command against EAL-Bench's own outputs"
	doc, err := ealref.ReadGateCases(ealDataPath(t, skipping, ealref.GateCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for i, row := range doc.EdgeRows {
		name := row.DomainID + " " + row.MemoryRef
		memory := writeFile(t, filepath.Join(tmp, strconv.Itoa(i)+".json"), row.Memory)
		args := []string{"gate", "--corpus", ealDataPath(t, skipping, ealBenchCorpora[row.DomainID]), "--case", row.CaseID,
			"--memory", memory, "--json"}
		if row.Through == nil {
			args = append(args, "--all-turns")
		} else {
			args = append(args, "--block="+strconv.Itoa(*row.Through))
		}
		out, errs, code := runCLI(t, args...)
		if len(row.Result) == 0 {
			if code != 1 || !strings.Contains(errs, memory) {
				t.Errorf("%s: EAL-Bench refused the memory; exit %d, stderr %q", name, code, errs)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errs)
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
		if out != string(line) {
			t.Errorf("%s:\n got %s\nwant %s", name, out, line)
		}
	}
}
