package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

const (
	sharedCasesFile  = "cybersecurity_benchmark_v1__claim_identity.cases.json"
	sharedOracleFile = "cybersecurity_benchmark_v1__claim_identity.oracle.json"
	manifestFile     = "results__cybersecurity__20260821-101143-561665__authorization-memory-writer__phase2-primary-s20260821-cybersecurity-nemotron__manifest.json"
)

func sharedCase(t *testing.T) *engine.Case {
	t.Helper()
	c := ealtest.OneCase(t, Domain{}, sharedCasesFile)
	if c.ID != "cyberv3_claim_identity" {
		t.Fatalf("want the shared case cyberv3_claim_identity, got %s", c.ID)
	}
	return c
}

// TestSharedCaseOracle checks the shared case against EAL-Bench's own outputs (the active
// ledger after every block, the faithful memories, every probe's verdict at the final block)
// and each probe's request fields.
func TestSharedCaseOracle(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	ledger := func(block int) any {
		records, err := d.Replay(c, block)
		if err != nil {
			t.Fatal(err)
		}
		return d.TypedPayload(records)["authorizations"]
	}
	want, verdicts := ealtest.CheckOracle(t, d, c, sharedOracleFile, ledger)
	for i, v := range verdicts {
		w := want.Probes[i]
		if got, exp := ealtest.Canon(t, v.Probe.Request.(*Request).Fields()), ealtest.Canon(t, ealtest.Tree(t, w.Request)); got != exp {
			t.Errorf("probe %s request %s, want %s", w.ProbeID, got, exp)
		}
	}
}

// TestControlsOutcomes reproduces the 36 cybersecurity rows of EAL-Bench's scorer golden
// vectors field for field, with their trial ids.
func TestControlsOutcomes(t *testing.T) {
	ealtest.CheckControls(t, ealtest.Controls{Domain: Domain{}, Case: sharedCase(t), Rows: 36, CheckPairs: true,
		Extra: map[string]any{"domain_id": DomainID, "surface": "native"}})
}

// TestSurfaceIdentities checks the release identities against resource_versions.json and the
// presentation profile against its hash.
func TestSurfaceIdentities(t *testing.T) {
	ealtest.CheckResourceVersions(t, Domain{})
	s := Domain{}.Surface()
	if h := pyjson.MustContentHash(s.Presentation); h != PresentationHash {
		t.Errorf("presentation profile hashes to %s, want %s", h, PresentationHash)
	}
	var manifest struct {
		Presentation map[string]any `json:"presentation"`
		Capacity     struct {
			Primary int `json:"primary_tokens"`
			Tight   int `json:"tight_tokens"`
		} `json:"capacity"`
	}
	ealtest.Decode(t, manifestFile, &manifest)
	if ealtest.Canon(t, manifest.Presentation) != ealtest.Canon(t, s.Presentation) {
		t.Errorf("presentation differs from the run manifest's")
	}
	if manifest.Capacity.Primary != PrimaryCapacityTokens || manifest.Capacity.Tight != TightCapacityTokens {
		t.Errorf("capacity %d/%d, manifest %d/%d", PrimaryCapacityTokens, TightCapacityTokens, manifest.Capacity.Primary, manifest.Capacity.Tight)
	}
}

// TestTypedParserAgreesWithEALBench runs the typed memories of the shared cybersecurity case
// recorded in source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, a real writer memory and hand-built edge memories): the parser must
// refuse exactly the memories EAL-Bench's parse_typed refused, and normalise the accepted ones
// to the state EAL-Bench re-serialised (whitespace stripped), and the domain's preservation
// payloads get the fidelity classes their recipes imply.
func TestTypedParserAgreesWithEALBench(t *testing.T) {
	ealtest.CheckTypedParser(t, Domain{}, sharedCase(t), 44, map[string]string{
		"preservation:widened_approved_actions": "broadening",
		"preservation:contradicted_incident_id": "contradiction",
	})
}
