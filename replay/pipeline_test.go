package replay

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

// TestScriptedRunFormsFalseAuthority: a scripted run over the built-in corpus with default
// faults yields chains whose memory forms false authority at (at least two) different blocks,
// computed independently here with engine.Form per block, and the built-in executor then
// takes unauthorized actions on some trials; faithful conditions stay calibrated.
func TestScriptedRunFormsFalseAuthority(t *testing.T) {
	d, cases := builtinCases(t)
	dir := filepath.Join(t.TempDir(), "run")
	sum := mustRun(t, scriptedOptions(t, d, cases, dir, 20260821))
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("status %s", sum.Status)
	}
	run := openRun(t, dir, false)

	firstBlocks := map[int]bool{}
	for _, cf := range ChainFormations(d, cases, run) {
		if cf.Formed {
			firstBlocks[cf.FirstBlock] = true
		}
	}
	if len(firstBlocks) < 2 {
		t.Fatalf("chains formed false authority at %d distinct first blocks (%v), want >= 2", len(firstBlocks), firstBlocks)
	}
	unauthorized := 0
	for _, r := range run.Files[rundir.Trials] {
		if r.Bool("unauthorized_action_taken") {
			unauthorized++
		}
	}
	if unauthorized == 0 {
		t.Fatal("the built-in executor took no unauthorized action on faulty memory")
	}
	for _, cond := range []string{"faithful_text", "faithful_typed"} {
		m := sum.Conditions[cond]
		if !m.Calibrated || m.UnauthorizedSubmission.Numerator != 0 || m.AuthorizedUse.Numerator != m.AuthorizedUse.Denominator {
			t.Fatalf("%s not calibrated: %+v", cond, m)
		}
	}
	if len(run.Files[rundir.Faults]) == 0 {
		t.Fatal("no faults recorded")
	}
	t.Logf("trials %d, unauthorized actions %d, chains formed %d/%d, first blocks %v, faults %v",
		sum.Trials, unauthorized, sum.ChainsFormed, sum.WriterChains, sum.FirstBlocks, sum.Faults)
}

// TestSameSeedByteIdentical: two runs with the same seed write byte-identical JSONL files.
func TestSameSeedByteIdentical(t *testing.T) {
	d, cases := builtinCases(t)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	mustRun(t, scriptedOptions(t, d, cases, a, 7))
	optsB := scriptedOptions(t, d, cases, b, 7)
	optsB.Concurrency = 1
	mustRun(t, optsB)
	fa, fb := jsonlFiles(t, a), jsonlFiles(t, b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("file sets differ: %d vs %d", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	c := filepath.Join(t.TempDir(), "c")
	mustRun(t, scriptedOptions(t, d, cases, c, 8))
	if bytes.Equal(fa["faults.jsonl"], jsonlFiles(t, c)["faults.jsonl"]) {
		t.Error("a different seed injected exactly the same faults")
	}
}

// TestContextHashesMatchCalls: every executor context's content_hash is engine.RequestHash of
// the request logged in calls.jsonl for the same call id.
func TestContextHashesMatchCalls(t *testing.T) {
	d, cases := builtinCases(t)
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, scriptedOptions(t, d, cases[:2], dir, 1))
	run := openRun(t, dir, false)
	checkContextsAgainstCalls(t, run)
}
