package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// The EAL-Bench data helpers are ealtest's (EALSCOPE_EAL_DATA, skipped when unset).
func readEAL(t testing.TB, name string) []byte { return ealtest.Read(t, name) }

const (
	calibrationFile = "domains__procurement__data__calibration_v1.jsonl"
	benchmarkFile   = "domains__procurement__data__benchmark_v1__software_license_grant.jsonl"
)

// benchmarkCase is the shared benchmark case (EALSCOPE_EAL_DATA).
func benchmarkCase(t *testing.T) *engine.Case {
	t.Helper()
	cases, err := Domain{}.ParseCorpus(benchmarkFile, readEAL(t, benchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	return cases[0]
}

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

// TestControlsOutcomes reproduces every procurement row of EAL-Bench's scorer golden vectors,
// with their trial ids (which pin the canonical JSON, the faithful free-text and typed
// layouts, content hashes and both id recipes).
func TestControlsOutcomes(t *testing.T) {
	d := Domain{}
	cases, err := d.ParseCorpus(benchmarkFile, readEAL(t, benchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	ealtest.CheckControls(t, ealtest.Controls{Domain: d, Case: cases[0], Rows: 36})
}
