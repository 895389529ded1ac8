package rundir_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/runs/rundir"
)

// TestCybersecurityManifest: EAL-Bench's real cybersecurity run manifest parses as a run of
// the registered cybersecurity domain with the same release identities.
func TestCybersecurityManifest(t *testing.T) {
	const name = "results__cybersecurity__20260821-101143-561665__authorization-memory-writer__phase2-primary-s20260821-cybersecurity-nemotron__manifest.json"
	raw, err := os.ReadFile(filepath.Join(ealref.Dir(t, "the test against EAL-Bench's real run manifest"), name))
	if err != nil {
		t.Fatal(err)
	}
	manifest, entries, err := rundir.ParseManifest(name, raw)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := manifest["domain_id"].(string)
	d, err := domains.Get(id)
	if err != nil || d.ID() != "cybersecurity" {
		t.Fatalf("manifest domain %q: %v", id, err)
	}
	s := d.Surface()
	for key, want := range map[string]string{
		"domain_adapter_version":     d.AdapterVersion(),
		"presentation_hash":          s.PresentationHash,
		"memory_implementation_id":   s.MemoryImplementationID,
		"memory_implementation_hash": s.MemoryImplementationHash,
	} {
		if manifest[key] != want {
			t.Errorf("%s: manifest %v, domain %s", key, manifest[key], want)
		}
	}
	if e := entries["trials"]; e.Rows != 1064 {
		t.Errorf("trials entry %+v", e)
	}
}
