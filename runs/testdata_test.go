package runs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

var updateTestdata = flag.Bool("update-testdata", false, "rewrite the fixtures under runs/testdata")

// TestWriteTestdata regenerates the small EAL-layout fixtures under testdata/ (go test ./runs
// -run TestWriteTestdata -update-testdata). They are committed; the tests read them.
func TestWriteTestdata(t *testing.T) {
	if !*updateTestdata {
		t.Skip("run with -update-testdata to rewrite the fixtures")
	}
	cases := builtinCases(t)
	c := findCase(t, cases, "ealscope_v1_hvac_contractor")
	dir := filepath.Join("testdata", "eal_run")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	writeFixtureRun(t, dir, fixtureOptions{cases: []*engine.Case{c}})
	// An unlisted file: the importer lists it and skips it.
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte("A hand-made run in EAL-Bench's layout over the built-in case ealscope_v1_hvac_contractor.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same case with a one-shot free-text chain besides (for the store contract in
	// runs/storecontract: a memory to annotate, text to search).
	dir = filepath.Join("testdata", "eal_run_free_text")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	writeFixtureRun(t, dir, fixtureOptions{cases: []*engine.Case{c}, freeText: true})
	// The same run, claiming a corpus version the workspace does not have.
	dir = filepath.Join("testdata", "eal_run_fixture_v1")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	writeFixtureRun(t, dir, fixtureOptions{cases: []*engine.Case{c}, corpusVersion: "fixture_v1"})
	// That corpus: the built-in case under version fixture_v1.
	_, data := dom.BuiltinCorpus()
	var line string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"case_id":"ealscope_v1_hvac_contractor"`) {
			line = strings.Replace(l, `"schema_version":"builtin_v1"`, `"schema_version":"fixture_v1"`, 1)
		}
	}
	if line == "" {
		t.Fatal("case not found in the built-in corpus")
	}
	if err := os.WriteFile(filepath.Join("testdata", "corpus_fixture_v1.jsonl"), []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Packaged writer memories (EAL-Bench's writer_memories.json shape) over built-in cases,
	// plus one entry of a domain ealscope does not support.
	seats := findCase(t, cases, "ealscope_v1_design_software_seats")
	entry := func(c *engine.Case, condition, writer string, run int, through int, version string) map[string]any {
		recs, err := dom.Replay(c, through)
		if err != nil {
			t.Fatal(err)
		}
		payload := mustTree(t, dom.TypedPayload(recs))
		return map[string]any{
			"architecture": "typed", "case_id": c.ID, "condition_id": condition, "content_hash": pyjson.MustContentHash(payload),
			"corpus_version": version, "domain_id": "procurement", "payload": payload, "writer": writer, "writer_run_id": run, "writer_seed": run,
			"variant_id":          "writer_" + c.ID + "_" + condition + "_r" + fmt.Sprint(run),
			"faithful_comparison": map[string]any{"errors": map[string]any{}, "exact": through == c.LastBlock(), "formed_probe_ids": []any{}, "forms_false_authority": false, "unscored_reason": nil},
		}
	}
	cyberPayload := map[string]any{"schema_version": "4", "authorizations": []any{}}
	doc := map[string]any{
		"generated_on": "2026-11-30", "schema_version": 1,
		"writers": map[string]any{
			"glm_5_2_baseten": map[string]any{"provider": "baseten", "requested_model": "zai-org/GLM-5.2", "resolved_model": "zai-org/GLM-5.2", "target_id": "glm_5_2_baseten"},
		},
		"memories": []any{
			map[string]any{"architecture": "typed", "case_id": "cyberv3_claim_endpoint", "condition_id": "incremental_typed", "content_hash": pyjson.MustContentHash(cyberPayload),
				"corpus_version": "benchmark_v1", "domain_id": "cybersecurity", "payload": cyberPayload, "writer": "glm_5_2_baseten", "writer_run_id": 0, "writer_seed": 0,
				"variant_id": "writer_cyberv3_claim_endpoint_incremental_typed_r0", "faithful_comparison": map[string]any{}},
			entry(c, "incremental_typed", "glm_5_2_baseten", 0, c.LastBlock(), "builtin_v1"),
			entry(seats, "one_shot_typed", "glm_5_2_baseten", 1, lastEventBlock(seats)-1, "builtin_v1"),
		},
	}
	b, err := pyjson.DumpPy(doc, pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "writer_memories.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	doc["memories"] = []any{entry(c, "incremental_typed", "glm_5_2_baseten", 0, c.LastBlock(), "benchmark_v1")}
	b, err = pyjson.DumpPy(doc, pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "writer_memories_benchmark_v1.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", ".gitattributes"), []byte("# Fixture bytes are hashed by their manifests: never convert line ends.\n* -text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"eal_run", "eal_run_free_text", "eal_run_fixture_v1"} {
		if err := os.Chmod(filepath.Join("testdata", d, "manifest.json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
