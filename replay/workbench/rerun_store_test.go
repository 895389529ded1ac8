package workbench_test

// The re-run use case end to end: arms re-run through workbench.Rerun are stored as the
// workspace's replay rows, mirror the imported trials they repeat, and meet their other arm
// in the store's attribution rows.

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
)

// rerunWorkspace imports a scripted run of one of the first built-in procurement cases and
// returns a typed writer chain that forms false authority at its final block.
func rerunWorkspace(t *testing.T) (*runs.Store, runs.ChainRow) {
	t.Helper()
	ctx := context.Background()
	_, cases, err := domains.BuiltinCases("procurement")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases[:4] {
		s, runID, _ := scriptedWorkspace(t, replay.ScriptedRun{Domain: "procurement", Corpus: replay.BuiltinCorpus, Cases: []string{c.ID},
			Conditions: "all", Seed: 20260821, Version: "test", Concurrency: 4})
		for _, cond := range []string{"incremental_typed", "one_shot_typed"} {
			rows, err := s.Chains(ctx, runs.ChainFilter{RunID: runID, Condition: cond})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.FormedFinal != nil && *r.FormedFinal {
					return s, r
				}
			}
		}
	}
	t.Skip("no built-in case yields a typed chain forming at its final block")
	return nil, runs.ChainRow{}
}

// finalSource is the re-run source of a chain at its final block; an error fails the test.
func finalSource(t testing.TB, s *runs.Store, key runs.ChainKey) runs.RerunSource {
	t.Helper()
	src, err := s.RerunSource(context.Background(), key, -1)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// storedRerun re-runs every probe of src with memory mem (n repetitions, seed 20260821) and
// stores every arm, as the headless command and the TUI do.
func storedRerun(s *runs.Store, src runs.RerunSource, mem replay.RerunMemory, ex replay.Executor, n int) ([]replay.RerunResult, error) {
	results, _, err := workbench.Rerun(context.Background(), s, workbench.RerunRequest{Source: src, Memory: mem, Probes: src.Probes, Executor: ex, Runs: n, Seed: 20260821})
	return results, err
}

// failingExecutor answers like the built-in executor except for the listed probes, whose
// calls fail as a provider would after its retries.
type failingExecutor struct {
	*replay.BuiltinExecutor
	fail map[string]bool
}

func (f failingExecutor) Execute(ctx context.Context, req replay.ExecRequest) replay.CallRecord {
	if f.fail[req.Probe.ID] {
		msg := "InternalServerError: Error code: 500 - boom"
		return replay.CallRecord{Error: &msg, Attempts: 4}
	}
	return f.BuiltinExecutor.Execute(ctx, req)
}

func (f failingExecutor) Provenance(seed int64) rundir.ModelProvenance {
	return f.BuiltinExecutor.Provenance(seed)
}

// TestRerunMirrorsImportedTrial: re-running an imported trial's memory sends the very request
// the run sent (request hash = the trial's model-context content_hash), and the replay row
// links the trial.
func TestRerunMirrorsImportedTrial(t *testing.T) {
	ctx := context.Background()
	s, chain := rerunWorkspace(t)
	src := finalSource(t, s, chain.Key)
	if src.MemoryID == "" || src.Block != src.Case.LastBlock() {
		t.Fatalf("source: memory %q block %d", src.MemoryID, src.Block)
	}
	mem, err := replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	if mem.ContentHash != src.ContentHash {
		t.Fatalf("written memory hash %s, stored %s", mem.ContentHash, src.ContentHash)
	}
	got, err := storedRerun(s, src, mem, replay.NewBuiltinExecutor(src.Domain, 20260821), 1)
	if err != nil || len(got) != len(src.Probes) {
		t.Fatalf("%v, %d arms", err, len(got))
	}
	for _, r := range got {
		if r.Mirror == nil || r.Mirror.ContextHash == "" {
			t.Fatalf("probe %s: no mirrored trial with a context", r.ProbeID)
		}
		if r.RequestHash != r.Mirror.ContextHash || r.MirrorMismatch() {
			t.Fatalf("probe %s: request hash %s, imported context hash %s", r.ProbeID, r.RequestHash, r.Mirror.ContextHash)
		}
	}
	rows, err := s.ReplaysForChain(ctx, chain.Key)
	if err != nil || len(rows) != len(got) {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	for _, r := range rows {
		if r.MirroredTrialID == nil || r.MirroredContextHash == nil || *r.MirroredContextHash != r.RequestHash || r.WrittenMemoryID != src.MemoryID {
			t.Fatalf("row %+v", r)
		}
	}
}

// TestReplayAttribution: written and exact arms of the same (memory, probe) yield EAL-Bench's
// attribution rows; a provider error on either arm makes the pair not estimable with its
// named reason; an exact arm alone is attributed against the imported trial.
func TestReplayAttribution(t *testing.T) {
	ctx := context.Background()
	s, chain := rerunWorkspace(t)
	src := finalSource(t, s, chain.Key)
	var formed, authorized string
	for _, p := range src.Probes {
		if p.Formed && formed == "" {
			formed = p.Probe.ID
		}
		if p.RequestAuthorized && authorized == "" {
			authorized = p.Probe.ID
		}
	}
	if formed == "" || authorized == "" {
		t.Fatal("fixture chain lacks a formed or an authorized probe")
	}
	exact, err := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	if err != nil {
		t.Fatal(err)
	}
	// Only the exact arm: the written side is the imported trial.
	builtin := replay.NewBuiltinExecutor(src.Domain, 20260821)
	if _, err := storedRerun(s, src, exact, builtin, 1); err != nil {
		t.Fatal(err)
	}
	rows, err := s.AttributionForChain(ctx, chain.Key)
	if err != nil || len(rows) != len(src.Probes) {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	byProbe := map[string]runs.ReplayAttribution{}
	for _, r := range rows {
		byProbe[r.ProbeID] = r
		if r.WrittenTrialID == nil || r.WrittenReplayID != nil || r.ExactReplayID == nil {
			t.Fatalf("arms of %s: %+v", r.ProbeID, r)
		}
	}
	if r := byProbe[formed]; !r.Attributed || !r.MemoryFormed || !r.Estimable || !r.UnauthorizedSubmission || r.ExactUnauthorizedSubmission || len(r.Reasons) != 0 {
		t.Fatalf("formed probe: %+v", r)
	}
	if r := byProbe[authorized]; r.Attributed || !slices.Contains(r.Reasons, engine.ReasonRequestIsAuthorized) {
		t.Fatalf("authorized probe: %+v", r)
	}
	// A written arm whose call failed, and then an exact arm whose call failed.
	mem, _ := replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
	failWritten := failingExecutor{builtin, map[string]bool{formed: true}}
	if _, err := storedRerun(s, src, mem, failWritten, 1); err != nil {
		t.Fatal(err)
	}
	rows, _ = s.AttributionForChain(ctx, chain.Key)
	for _, r := range rows {
		if r.ProbeID != formed {
			continue
		}
		if r.WrittenReplayID == nil || r.Estimable || r.Attributed || !slices.Contains(r.Reasons, engine.ReasonProviderErrorWritten) {
			t.Fatalf("provider error on the written arm: %+v", r)
		}
	}
	failExact := failingExecutor{builtin, map[string]bool{formed: true}}
	if _, err := storedRerun(s, src, exact, failExact, 1); err != nil {
		t.Fatal(err)
	}
	stored, _ := s.ReplaysForChain(ctx, chain.Key)
	errors := 0
	for _, r := range stored {
		if r.ProviderError != nil {
			errors++
			if r.Decision != engine.ProviderError || r.Attempts != 4 {
				t.Fatalf("provider error row %+v", r)
			}
		}
	}
	if errors != 2 || len(stored) != 3*len(src.Probes) {
		t.Fatalf("%d provider errors in %d rows", errors, len(stored))
	}
	// The latest exact arm (the failed one) now answers for the formed probe: both arms'
	// provider errors are named, and the pair stays out of the estimable rows.
	rows, _ = s.AttributionForChain(ctx, chain.Key)
	for _, r := range rows {
		if r.ProbeID == formed && (r.Estimable || !slices.Contains(r.Reasons, engine.ReasonProviderErrorWritten) || !slices.Contains(r.Reasons, engine.ReasonProviderErrorExact)) {
			t.Fatalf("formed probe: %+v", r)
		}
		if r.ProbeID != formed && (!r.Estimable || r.WrittenReplayID == nil) {
			t.Fatalf("probe %s: %+v", r.ProbeID, r)
		}
	}
}

// TestReplayAttributionRepetitions: with N written and N exact repetitions stored in
// completion order, every written arm is paired with the exact arm of its own repetition,
// and re-running the exact arm again moves every pairing to the newer arm.
func TestReplayAttributionRepetitions(t *testing.T) {
	ctx := context.Background()
	s, chain := rerunWorkspace(t)
	src := finalSource(t, s, chain.Key)
	builtin := replay.NewBuiltinExecutor(src.Domain, 1)
	mem, _ := replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
	exact, _ := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	if _, err := storedRerun(s, src, mem, builtin, 3); err != nil {
		t.Fatal(err)
	}
	check := func(batch string) {
		t.Helper()
		stored, _ := s.ReplaysForChain(ctx, chain.Key)
		rep := map[string]int{}
		batchOf := map[string]string{}
		for _, r := range stored {
			rep[r.ReplayID], batchOf[r.ReplayID] = r.Repetition, r.BatchID
		}
		rows, err := s.AttributionForChain(ctx, chain.Key)
		if err != nil || len(rows) != 3*len(src.Probes) {
			t.Fatalf("%v, %d rows", err, len(rows))
		}
		for _, r := range rows {
			if r.WrittenReplayID == nil || r.ExactReplayID == nil || rep[*r.ExactReplayID] != r.Repetition || rep[*r.WrittenReplayID] != r.Repetition || batchOf[*r.ExactReplayID] != batch {
				t.Fatalf("row %+v", r)
			}
		}
	}
	got, err := storedRerun(s, src, exact, builtin, 3)
	if err != nil {
		t.Fatal(err)
	}
	check(got[0].BatchID)
	got, err = storedRerun(s, src, exact, builtin, 3)
	if err != nil {
		t.Fatal(err)
	}
	check(got[0].BatchID)
}

// TestRerunWhileImporting: a re-run storing its arms (one transaction each) and an import of
// another run through a second connection start together against one workspace. Both finish
// (each waiting for the other's write lock where it must), SQLite's integrity_check is ok,
// and every arm the re-run finished is stored.
func TestRerunWhileImporting(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the concurrent-writers test")
	}
	ctx := context.Background()
	s, chain := rerunWorkspace(t)
	src := finalSource(t, s, chain.Key)
	mem, err := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if _, err := (replay.ScriptedRun{Domain: "procurement", Corpus: replay.BuiltinCorpus, Conditions: "all", Seed: 7, Version: "test", Out: other, Concurrency: 2}).Make(ctx); err != nil {
		t.Fatal(err)
	}
	importer, err := runs.Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer importer.Close()
	start := make(chan struct{})
	var wg sync.WaitGroup
	var rerun []replay.RerunResult
	var rerunErr, importErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		<-start
		rerun, rerunErr = storedRerun(s, src, mem, replay.NewBuiltinExecutor(src.Domain, 20260821), 2)
	}()
	go func() {
		defer wg.Done()
		<-start
		_, importErr = importer.Import(ctx, []string{other}, runs.ImportOptions{})
	}()
	close(start)
	wg.Wait()
	if rerunErr != nil || importErr != nil {
		t.Fatalf("re-run: %v; import: %v", rerunErr, importErr)
	}
	db, err := sql.Open("sqlite", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q %v", integrity, err)
	}
	all, err := s.Runs(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("%d runs stored (%v), want the fixture's and the import", len(all), err)
	}
	stored, err := s.ReplaysForChain(ctx, chain.Key)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, r := range rerun {
		want[r.ReplayID] = true
	}
	for _, r := range stored {
		delete(want, r.ReplayID)
	}
	if len(rerun) != 2*len(src.Probes) || len(want) != 0 {
		t.Fatalf("re-run: %d arms finished, %d of them not stored", len(rerun), len(want))
	}
}
