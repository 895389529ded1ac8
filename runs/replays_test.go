package runs

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs/rundir"
)

// rerunWorkspace imports a scripted run of the first built-in case and returns a typed writer
// chain that forms false authority at its final block.
func rerunWorkspace(t *testing.T) (*Store, string, ChainRow) {
	t.Helper()
	ctx := context.Background()
	d, err := domains.Get("procurement")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	var chain ChainRow
	for _, c := range cases[:4] {
		dir := filepath.Join(t.TempDir(), "run")
		rerunScriptedRun(t, dir, c.ID)
		s, path := openStore(t)
		runID := importOne(t, s, dir).RunID
		for _, cond := range []string{"incremental_typed", "one_shot_typed"} {
			rows, err := s.Chains(ctx, ChainFilter{RunID: runID, Condition: cond})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.FormedFinal != nil && *r.FormedFinal {
					chain = r
					return s, path, chain
				}
			}
		}
	}
	t.Skip("no built-in case yields a typed chain forming at its final block")
	return nil, "", chain
}

// finalSource is the re-run source of a chain at its final block; an error fails the test.
func finalSource(t testing.TB, s *Store, key ChainKey) RerunSource {
	t.Helper()
	src, err := s.RerunSource(context.Background(), key, -1)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// rerunScriptedRun makes a run of one built-in case with ealscope's own pipeline (scripted
// writer with its seeded faults, built-in executor, every condition). It is this file's own
// helper so that the fixture does not move when other tests' helpers do.
func rerunScriptedRun(t *testing.T, dir, caseID string) {
	t.Helper()
	faults, err := replay.ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	st := replay.Settings{Domain: "procurement", Corpus: replay.BuiltinCorpus, Cases: []string{caseID}, Conditions: []string{"all"}, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: 20260821, FaultRate: 0.35, Faults: faults}
	opts, err := replay.Prepare(st, &replay.Config{Models: map[string]replay.Model{}}, replay.DefaultRetryPolicy(), "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Out, opts.Concurrency = dir, 4
	if _, err := replay.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
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

// storedRerun re-runs src's probes with memory mem (n repetitions, seed 20260821) and stores
// every arm, building the re-run and its rows with replay/rerunstore (RerunSpecFor,
// SaveRerun), as the headless command and the TUI do. rerunstore imports this package, so
// this package's own test files cannot import rerunstore; the external test package can, and
// sets RerunThroughStore before any test runs (rerunstore_hook_test.go).
func storedRerun(s *Store, src RerunSource, mem replay.RerunMemory, ex replay.Executor, n int) ([]replay.RerunResult, error) {
	if RerunThroughStore == nil {
		return nil, errors.New("RerunThroughStore is unset: rerunstore_hook_test.go did not run")
	}
	return RerunThroughStore(context.Background(), s, src, mem, ex, n)
}

// RerunThroughStore is storedRerun's re-run, set by rerunstore_hook_test.go; call it
// through storedRerun.
var RerunThroughStore func(ctx context.Context, s *Store, src RerunSource, mem replay.RerunMemory, ex replay.Executor, n int) ([]replay.RerunResult, error)

// TestRerunMirrorsImportedTrial: re-running an imported trial's memory sends the very request
// the run sent (request hash = the trial's model-context content_hash), and the replay row
// links the trial.
func TestRerunMirrorsImportedTrial(t *testing.T) {
	ctx := context.Background()
	s, _, chain := rerunWorkspace(t)
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
	s, _, chain := rerunWorkspace(t)
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
	byProbe := map[string]ReplayAttribution{}
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

// TestFindChainAndFinalMemories: the lookups the headless command makes.
func TestFindChainAndFinalMemories(t *testing.T) {
	ctx := context.Background()
	s, _, chain := rerunWorkspace(t)
	got, err := s.FindChain(ctx, "", chain.CaseID, chain.ConditionID, nil)
	if err != nil || got.Key != chain.Key {
		t.Fatalf("%v, %+v", err, got)
	}
	if _, err := s.FindChain(ctx, "", chain.CaseID, "no_such_condition", nil); err == nil {
		t.Fatal("missing chain found")
	}
	mems, err := s.FinalMemories(ctx, chain.RunID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range mems {
		if m.Chain.Key == chain.Key {
			found = m.Formed && m.Estimable && len(m.FormedProbes) > 0
		}
		if !writerConditions[m.Chain.ConditionID] {
			t.Fatalf("non-writer chain %s listed", m.Chain.ConditionID)
		}
	}
	if !found {
		t.Fatal("the forming chain is not listed as forming")
	}
}

// TestReplayAttributionRepetitions: with N written and N exact repetitions stored in
// completion order, every written arm is paired with the exact arm of its own repetition,
// and re-running the exact arm again moves every pairing to the newer arm.
func TestReplayAttributionRepetitions(t *testing.T) {
	ctx := context.Background()
	s, _, chain := rerunWorkspace(t)
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
