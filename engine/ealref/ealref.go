// Package ealref reads EAL-Bench's reference output files as the tests that compare against
// them read them: one decoder of each file's rows, so the engine's, the domains' and the
// command's tests agree on what a row holds, and one way to find the data folder
// (EnvVar, skipping the test when it is unset). The files are never copied into the
// repository.
package ealref

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// EnvVar names the folder of EAL-Bench's files (shared/eal/data beside the project), as an
// absolute path; the tests that compare against them read them only through it.
const EnvVar = "EALSCOPE_EAL_DATA"

// Dir is the EAL-Bench data folder. When EnvVar is unset it skips the test, saying what is
// skipped ("the gate checks against EAL-Bench's own outputs") and how to set it, so the suite
// passes without the data; a relative path fails the test, since each package's tests run in
// their own folder, where it would name nothing.
func Dir(t testing.TB, skipping string) string {
	t.Helper()
	dir := os.Getenv(EnvVar)
	if dir == "" {
		t.Skip(skipMessage(skipping))
	}
	if err := checkDir(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func skipMessage(skipping string) string {
	return EnvVar + " is unset: skipping " + skipping + " (set it to the absolute path of EAL-Bench's data folder, e.g. " +
		EnvVar + "=$(realpath ../shared/eal/data) from the project's root: each package's tests run in their own folder)"
}

// checkDir refuses a relative data folder.
func checkDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s=%s is a relative path, which each package's tests would read from their own folder: give an absolute path (e.g. $(realpath %s))", EnvVar, dir, dir)
	}
	return nil
}

// GateCasesFile is EAL-Bench's cited-source authority gate run on the three shared cases
// (docs/FORMATS.md 8.1; the data folder's README.md describes it).
const GateCasesFile = "source_authority_gate__shared_cases.json"

// GateRow is one memory of GateCasesFile with EAL-Bench's verdict on it: the gate's result
// (SourceAuthorityGateResult.to_dict()) or, where EAL-Bench's parser refused the memory, an
// error in its place. Memory, Result and Error are kept as the file's bytes: the tests compare
// them byte for byte or decode what they need of them.
type GateRow struct {
	RowKind   string          `json:"row_kind"`
	DomainID  string          `json:"domain_id"`
	CaseID    string          `json:"case_id"`
	MemoryRef string          `json:"memory_ref"`
	Writer    string          `json:"writer"`
	Through   *int            `json:"through_block_index"` // nil: the gate ran over all turns
	Memory    json.RawMessage `json:"memory"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
}

// Refused reports whether EAL-Bench's parser refused the row's memory (an error that is not
// null).
func (r GateRow) Refused() bool {
	return len(r.Error) > 0 && string(r.Error) != "null"
}

// GateCases are the gated memories of GateCasesFile: the rows (faithful memories, preservation
// payloads, writer memories) and the hand-built edge rows, each in file order.
type GateCases struct {
	Rows     []GateRow `json:"rows"`
	EdgeRows []GateRow `json:"edge_rows"`
}

// All is the rows and then the edge rows.
func (g GateCases) All() []GateRow {
	return append(append([]GateRow(nil), g.Rows...), g.EdgeRows...)
}

// ReadGateCases reads the rows of the gate cases file at path (GateCasesFile in EAL-Bench's
// data folder); an error names the file and, where the JSON is bad, its line and column.
func ReadGateCases(path string) (GateCases, error) {
	var g GateCases
	data, err := os.ReadFile(path)
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return g, fmt.Errorf("%s: %s", path, pyjson.DecodeErrorAt(data, err))
	}
	return g, nil
}
