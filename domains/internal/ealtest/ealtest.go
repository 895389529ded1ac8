// Package ealtest holds what the domains' tests against real EAL-Bench data share: reading
// the data folder named by EALSCOPE_EAL_DATA (skipping when it is unset), decoding JSON the
// way EAL-Bench's files need it, and the checks every domain runs against EAL-Bench's
// reference outputs (the controls-track scorer vectors, the published resource versions, the
// typed parser's verdicts on the source-authority gate's shared cases). It is imported only
// by tests; the data files are never copied into the repository.
package ealtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Data file names shared by the domains (docs/FORMATS.md 9: file name = repo path with "/" → "__").
const (
	ControlsFile  = "src__eal_bench__eval__reference__controls_outcomes.json"
	ResourcesFile = "src__eal_bench__eval__reference__resource_versions.json"
	GateCasesFile = ealref.GateCasesFile
)

// Dir returns the folder of real EAL-Bench data files, or skips the test.
func Dir(t testing.TB) string {
	t.Helper()
	return ealref.Dir(t, "the checks against real EAL-Bench data")
}

// Read returns the bytes of one EAL-Bench data file (skipping when EALSCOPE_EAL_DATA is unset).
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatalf("reading EAL data: %v", err)
	}
	return b
}

// Decode reads an EAL-Bench data file as JSON into dst.
func Decode(t testing.TB, name string, dst any) {
	t.Helper()
	if err := json.Unmarshal(Read(t, name), dst); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// Tree decodes raw JSON as a Python-compatible tree (integers kept exact).
func Tree(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	v, err := pyjson.DecodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Canon is the canonical JSON of v (EAL-Bench's canonical_json).
func Canon(t testing.TB, v any) string {
	t.Helper()
	s, err := pyjson.CanonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Field unmarshals one field of a row into dst.
func Field(t testing.TB, m map[string]json.RawMessage, key string, dst any) {
	t.Helper()
	if err := json.Unmarshal(m[key], dst); err != nil {
		t.Fatalf("field %s: %v", key, err)
	}
}

// OneCase parses a corpus data file that holds the one shared case of a domain.
func OneCase(t testing.TB, d engine.CorpusReader, name string) *engine.Case {
	t.Helper()
	cases, err := d.ParseCorpus(name, Read(t, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 {
		t.Fatalf("%s: want 1 case, got %d", name, len(cases))
	}
	return cases[0]
}
