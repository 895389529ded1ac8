// Package storecontract is the contract every storage backend of the workspace honours, as a
// test suite run against each: the SQLite store of runs and the in-memory backend of this
// package's tests (a second working implementation over maps, the seam a server-database
// backend plugs into). The suite exercises each concern through runs' interfaces only: it
// imports a real run directory, lists runs and chains, reads blocks, memories, probes and
// turns, saves and reads re-run arms, labels a free-text memory, imports diagnoses and
// searches. Where a backend may legitimately differ (full-text ranking, snippets), it checks
// the contract, not one backend's choice.
package storecontract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/replayrow"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Backend is the part of the workspace the contract covers: every concern a second backend
// must serve for the TUI's reading screens, the re-run arms, labels, diagnoses and search.
type Backend interface {
	runs.RunImporter
	runs.RunCatalog
	runs.BlockReader
	runs.ReplayArms
	runs.LabResults
	runs.AnnotationLabels
	runs.DiagnosisStore
	runs.TextSearch
}

var _ Backend = (*runs.Store)(nil)

// RunDir is the run directory the suite imports: one built-in procurement case with a
// faithful typed chain, an incremental typed chain that misses the case's last ledger event
// (it forms false authority there) and a one-shot free-text chain (unscored until labelled),
// each with a memory-faithful executor's trials (runs' TestWriteTestdata writes it).
func RunDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "eal_run_free_text")
}

// Run runs the contract against fresh backends made by open (each subtest opens its own).
func Run(t *testing.T, open func(t *testing.T) Backend) {
	t.Run("ImportListsRunsAndChains", func(t *testing.T) { importListsRunsAndChains(t, open(t)) })
	t.Run("ChainFilters", func(t *testing.T) { chainFilters(t, open(t)) })
	t.Run("BlocksMemoriesProbes", func(t *testing.T) { blocksMemoriesProbes(t, open(t)) })
	t.Run("ReplayArms", func(t *testing.T) { replayArms(t, open(t)) })
	t.Run("LabResults", func(t *testing.T) { labResults(t, open(t)) })
	t.Run("Annotations", func(t *testing.T) { annotationsRoundTrip(t, open(t)) })
	t.Run("Diagnoses", func(t *testing.T) { diagnoses(t, open(t)) })
	t.Run("Search", func(t *testing.T) { search(t, open(t)) })
}

// expected is what the run directory itself says, read with rundir (no backend involved).
type expected struct {
	manifestSHA string
	domainID    string
	// chains are "case/condition" of every memory's chain; trials counts trials.jsonl rows per
	// condition.
	chains map[string]bool
	trials map[string]int
	// freeText is the free-text memory's id and text.
	freeTextID, freeText string
}

func readExpected(t *testing.T) expected {
	t.Helper()
	run, err := rundir.Open(RunDir(), rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := expected{manifestSHA: run.ManifestSHA256, chains: map[string]bool{}, trials: map[string]int{}}
	e.domainID, _ = run.Manifest["domain_id"].(string)
	for _, r := range run.Files[rundir.Memories] {
		e.chains[r.Str("case_id")+"/"+r.Str("condition_id")] = true
		if r.Str("architecture") == engine.ArchFreeText {
			e.freeTextID, e.freeText = r.Str("memory_id"), r.Str("payload")
		}
	}
	for _, r := range run.Files[rundir.Trials] {
		e.trials[r.Str("condition_id")]++
	}
	if len(e.chains) < 3 || e.freeTextID == "" {
		t.Fatalf("fixture %s: %d chains, free-text memory %q: regenerate it", RunDir(), len(e.chains), e.freeTextID)
	}
	return e
}

// imported imports the fixture run into b and returns its id.
func imported(t *testing.T, b Backend) string {
	t.Helper()
	rep, err := b.Import(context.Background(), []string{RunDir()}, runs.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Status != runs.StatusImported || rep.Results[0].Kind != runs.KindRun || rep.Results[0].RunID == "" {
		t.Fatalf("import: %+v", rep.Results)
	}
	return rep.Results[0].RunID
}

func chainsOf(t *testing.T, b Backend, f runs.ChainFilter) []runs.ChainRow {
	t.Helper()
	rows, err := b.Chains(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.ChainCount(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Limit == 0 && n != len(rows) {
		t.Fatalf("ChainCount(%+v) = %d, Chains gave %d", f, n, len(rows))
	}
	return rows
}

// chainOf is the run's chain of one condition.
func chainOf(t *testing.T, b Backend, runID, condition string) runs.ChainRow {
	t.Helper()
	rows := chainsOf(t, b, runs.ChainFilter{RunID: runID, Condition: condition})
	if len(rows) != 1 {
		t.Fatalf("condition %s: %d chains", condition, len(rows))
	}
	return rows[0]
}

func importListsRunsAndChains(t *testing.T, b Backend) {
	ctx := context.Background()
	want := readExpected(t)
	runID := imported(t, b)
	list, err := b.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != runID || list[0].ManifestSHA256 != want.manifestSHA || list[0].DomainID != want.domainID || list[0].Kind != runs.KindRun {
		t.Fatalf("runs: %+v", list)
	}
	one, err := b.Run(ctx, runID)
	if err != nil || one.RunID != runID {
		t.Fatalf("Run(%s) = %+v, %v", runID, one, err)
	}
	if _, err := b.Run(ctx, "nosuchrun"); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("Run(unknown): %v, want ErrNotFound", err)
	}
	// Importing the same directory again changes nothing.
	rep, err := b.Import(ctx, []string{RunDir()}, runs.ImportOptions{})
	if err != nil || rep.Results[0].Status != runs.StatusAlreadyImported || rep.Results[0].RunID != runID {
		t.Fatalf("second import: %+v, %v", rep.Results, err)
	}
	chains := chainsOf(t, b, runs.ChainFilter{RunID: runID})
	got := map[string]bool{}
	trials, forming := 0, 0
	for _, c := range chains {
		got[c.CaseID+"/"+c.ConditionID] = true
		if c.RunID != runID || c.Memories == 0 {
			t.Errorf("chain %+v", c)
		}
		if c.Trials != want.trials[c.ConditionID] {
			t.Errorf("chain %s: %d trials, the run directory has %d", c.ConditionID, c.Trials, want.trials[c.ConditionID])
		}
		trials += c.Trials
		if c.FirstFalseAuthorityBlock != nil {
			forming++
		}
	}
	if !mapsEqual(got, want.chains) {
		t.Fatalf("chains %v, the run directory's memories name %v", got, want.chains)
	}
	if one.Chains != len(chains) || one.ChainsForming != forming || one.Trials != trials {
		t.Fatalf("run counts chains %d forming %d trials %d; chains say %d, %d, %d", one.Chains, one.ChainsForming, one.Trials, len(chains), forming, trials)
	}
	for _, c := range chains {
		h, err := b.Chain(ctx, c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if !sameRow(h.ChainRow, c) || h.DomainID != want.domainID || h.Blocks == 0 || h.CaseKey == 0 {
			t.Fatalf("header %+v for row %+v", h, c)
		}
		wr := c.WriterRunID
		found, err := b.FindChain(ctx, runID, c.CaseID, c.ConditionID, &wr)
		if err != nil || found.Key != c.Key {
			t.Fatalf("FindChain(%s, %s): %+v, %v; want chain %d", c.CaseID, c.ConditionID, found, err, c.Key)
		}
	}
	if _, err := b.Chain(ctx, runs.ChainKey(1<<40)); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("Chain(unknown): %v, want ErrNotFound", err)
	}
	if _, err := b.FindChain(ctx, runID, "no_such_case", "incremental_typed", nil); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("FindChain(unknown case): %v, want ErrNotFound", err)
	}
}

func chainFilters(t *testing.T, b Backend) {
	runID := imported(t, b)
	all := chainsOf(t, b, runs.ChainFilter{RunID: runID})
	if !slices.IsSortedFunc(all, func(x, y runs.ChainRow) int {
		return strings.Compare(x.CaseID+"/"+x.ConditionID, y.CaseID+"/"+y.ConditionID)
	}) {
		t.Fatalf("chains not in case, condition order: %+v", all)
	}
	forming := chainsOf(t, b, runs.ChainFilter{RunID: runID, Forming: true})
	var want []runs.ChainKey
	for _, c := range all {
		if c.FirstFalseAuthorityBlock != nil {
			want = append(want, c.Key)
			at := *c.FirstFalseAuthorityBlock
			for _, f := range chainsOf(t, b, runs.ChainFilter{RunID: runID, FormedAt: &at}) {
				if f.FirstFalseAuthorityBlock == nil || *f.FirstFalseAuthorityBlock != at {
					t.Fatalf("FormedAt %d: %+v", at, f)
				}
			}
		}
	}
	var got []runs.ChainKey
	for _, c := range forming {
		got = append(got, c.Key)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("forming chains %v, chains with a first false-authority block %v", got, want)
	}
	conditions := chainsOf(t, b, runs.ChainFilter{RunID: runID, Condition: "incremental_typed", CaseID: all[0].CaseID})
	if len(conditions) != 1 || conditions[0].ConditionID != "incremental_typed" {
		t.Fatalf("one condition of one case: %+v", conditions)
	}
	if got := chainsOf(t, b, runs.ChainFilter{RunID: runID, NeedsAnnotation: true}); len(got) != 1 || got[0].ConditionID != "one_shot_text" {
		t.Fatalf("needs annotation: %+v", got)
	}
	page := chainsOf(t, b, runs.ChainFilter{RunID: runID, Limit: 1, Offset: 1})
	if len(page) != 1 || page[0].Key != all[1].Key {
		t.Fatalf("page 2 of 1: %+v, want %+v", page, all[1])
	}
	desc := chainsOf(t, b, runs.ChainFilter{RunID: runID, Desc: true})
	if len(desc) != len(all) || desc[0].Key != all[len(all)-1].Key {
		t.Fatalf("descending: %+v", desc)
	}
	if _, err := b.Chains(context.Background(), runs.ChainFilter{RunID: "nosuchrun"}); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("chains of an unknown run: %v, want ErrNotFound", err)
	}
}

func blocksMemoriesProbes(t *testing.T, b Backend) {
	ctx := context.Background()
	runID := imported(t, b)
	for _, c := range chainsOf(t, b, runs.ChainFilter{RunID: runID}) {
		h, err := b.Chain(ctx, c.Key)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := b.ChainBlocks(ctx, c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != h.Blocks {
			t.Fatalf("chain %s: %d steps, header says %d blocks", c.ConditionID, len(steps), h.Blocks)
		}
		firsts := 0
		for k, s := range steps {
			if s.BlockIndex != k {
				t.Fatalf("chain %s: step %d has block %d", c.ConditionID, k, s.BlockIndex)
			}
			if s.FirstFalseAuthority {
				firsts++
				if c.FirstFalseAuthorityBlock == nil || *c.FirstFalseAuthorityBlock != k || s.FormsFalseAuthority == nil || !*s.FormsFalseAuthority || len(s.FormedProbeIDs) == 0 {
					t.Fatalf("chain %s: block %d marked first false authority: %+v, chain %+v", c.ConditionID, k, s, c)
				}
			}
			mem, err := b.MemoryAt(ctx, c.Key, k)
			if s.MemoryID == "" {
				if !errors.Is(err, runs.ErrNotFound) || s.Badge != runs.BadgeNoMemory {
					t.Fatalf("chain %s block %d: no memory, MemoryAt: %v, badge %q", c.ConditionID, k, err, s.Badge)
				}
				continue
			}
			if err != nil || mem.MemoryID != s.MemoryID || mem.Payload == "" || mem.Architecture != c.Architecture || mem.BlockIndex != k || mem.OwnBlock > k {
				t.Fatalf("chain %s block %d: MemoryAt %+v, %v; step %+v", c.ConditionID, k, mem, err, s)
			}
			if (mem.FormsFalseAuthority == nil) != (s.FormsFalseAuthority == nil) || (s.Exact == nil) != (mem.Exact == nil) {
				t.Fatalf("chain %s block %d: memory and step disagree on scoring: %+v / %+v", c.ConditionID, k, mem, s)
			}
		}
		if (firsts == 1) != (c.FirstFalseAuthorityBlock != nil) || firsts > 1 {
			t.Fatalf("chain %s: %d blocks marked first false authority; chain says %v", c.ConditionID, firsts, c.FirstFalseAuthorityBlock)
		}
		if last := steps[len(steps)-1]; last.MemoryID != h.FinalMemoryID {
			t.Fatalf("chain %s: final memory %q, last step's %q", c.ConditionID, h.FinalMemoryID, last.MemoryID)
		}
		probesAndTrials(t, b, c, h, steps)
		turns, err := b.BlockTurns(ctx, h.CaseKey, len(steps)-1, &runs.MemoryRef{RunID: runID, MemoryID: h.FinalMemoryID})
		if err != nil || len(turns) == 0 {
			t.Fatalf("chain %s: turns of the final block: %d, %v", c.ConditionID, len(turns), err)
		}
		for i, tu := range turns {
			if tu.TurnID == "" || tu.Content == "" || (i > 0 && tu.Seq <= turns[i-1].Seq) {
				t.Fatalf("chain %s: turn %d: %+v", c.ConditionID, i, tu)
			}
		}
	}
}

// probesAndTrials: every probe of the case at every block, its formation as the step says,
// and every trial of the chain under some probe.
func probesAndTrials(t *testing.T, b Backend, c runs.ChainRow, h runs.ChainHeader, steps []runs.BlockStep) {
	t.Helper()
	ctx := context.Background()
	var probes []string
	for k, s := range steps {
		views, err := b.ProbesAt(ctx, c.Key, k)
		if err != nil {
			t.Fatal(err)
		}
		ids, trials := []string{}, 0
		for _, v := range views {
			ids = append(ids, v.ProbeID)
			trials += len(v.Trials)
			if v.Formed != nil && *v.Formed != slices.Contains(s.FormedProbeIDs, v.ProbeID) {
				t.Fatalf("chain %s block %d probe %s: formed %v, step formed %v", c.ConditionID, k, v.ProbeID, *v.Formed, s.FormedProbeIDs)
			}
			if v.Formed != nil && *v.Formed && v.AuthorizedNow {
				t.Fatalf("chain %s block %d probe %s: formed on a request the ledger authorizes", c.ConditionID, k, v.ProbeID)
			}
		}
		if len(ids) == 0 || (probes != nil && !slices.Equal(ids, probes)) {
			t.Fatalf("chain %s block %d: probes %v (block 0 had %v)", c.ConditionID, k, ids, probes)
		}
		probes = ids
		if trials != c.Trials {
			t.Fatalf("chain %s block %d: %d trials under the probes, the chain has %d", c.ConditionID, k, trials, c.Trials)
		}
	}
}

// finalProbe is a chain's timeline, its final block and the first probe there: where the
// suite's re-run and lab arms are placed.
func finalProbe(t *testing.T, b Backend, c runs.ChainRow) ([]runs.BlockStep, int, string) {
	t.Helper()
	ctx := context.Background()
	steps, err := b.ChainBlocks(ctx, c.Key)
	if err != nil || len(steps) == 0 {
		t.Fatalf("timeline of chain %d: %d steps, %v", c.Key, len(steps), err)
	}
	block := len(steps) - 1
	views, err := b.ProbesAt(ctx, c.Key, block)
	if err != nil || len(views) == 0 {
		t.Fatalf("probes at the final block: %d, %v", len(views), err)
	}
	return steps, block, views[0].ProbeID
}

func replayArms(t *testing.T, b Backend) {
	ctx := context.Background()
	runID := imported(t, b)
	c := chainOf(t, b, runID, "incremental_typed")
	steps, block, probe := finalProbe(t, b, c)
	arm := func(id, variant string, rep int) runs.ReplayInput {
		return runs.ReplayInput{Chain: c.Key, WrittenMemoryID: steps[block].MemoryID, Arm: replayrow.Arm{ReplayID: id, BatchID: "batch_contract", BlockIndex: block,
			ProbeID: probe, Repetition: rep, Seed: 7,
			Memory: replayrow.Memory{Variant: variant, Architecture: c.Architecture, Source: "contract", Payload: map[string]any{"authorizations": []any{}}, ContentHash: "hash_" + id},
			Record: replayrow.Record{Executor: rundir.ModelProvenance{TargetID: "builtin_faithful", Provider: "ealscope"}, Messages: []engine.ChatMessage{{Role: "user", Content: "may I?"}},
				Tools: []any{}, RequestHash: "req", Response: engine.Response{Text: "no"}, Attempts: 1, LatencyMS: 3, MemoryFormed: variant == engine.VariantWritten,
				FormationEstimable: true, Outcome: engine.Outcome{Decision: "escalate", Compliant: true, Parseable: true, OracleReason: "denied"}},
			CreatedAt: time.Date(2026, 12, 1, 10, 0, rep, 0, time.UTC)}}
	}
	for _, in := range []runs.ReplayInput{arm("rep_w0", engine.VariantWritten, 0), arm("rep_x0", engine.VariantExact, 0), arm("rep_w1", engine.VariantWritten, 1)} {
		if err := b.SaveReplay(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	bad := arm("rep_bad", engine.VariantWritten, 2)
	bad.Chain = runs.ChainKey(1 << 40)
	if err := b.SaveReplay(ctx, bad); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("an arm of an unknown chain: %v, want ErrNotFound", err)
	}
	if err := b.SaveReplay(ctx, runs.ReplayInput{Chain: c.Key, Arm: replayrow.Arm{ReplayID: "rep_noprobe", Memory: replayrow.Memory{Variant: engine.VariantWritten}}}); err == nil {
		t.Fatal("an arm without a probe was stored")
	}
	list, err := b.ReplaysForChain(ctx, c.Key)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ReplayID != "rep_w0" || list[1].ReplayID != "rep_x0" || list[2].ReplayID != "rep_w1" {
		t.Fatalf("arms of the chain, oldest first: %+v", list)
	}
	r := list[1]
	if r.ChainKey != c.Key || r.CaseID != c.CaseID || r.ConditionID != c.ConditionID || r.WriterTarget != c.Writer || r.WriterRunID != c.WriterRunID ||
		r.BlockIndex != block || r.ProbeID != probe || r.MemoryVariant != engine.VariantExact || r.Executor != "builtin_faithful" || r.Seed != 7 ||
		r.Decision != "escalate" || !r.Compliant || r.MemoryFormed || !r.FormationEstimable || r.WrittenMemoryID != steps[block].MemoryID || r.MirroredTrialID != nil {
		t.Fatalf("stored arm: %+v", r)
	}
	byID, err := b.ReplaysByID(ctx, []string{"rep_w1", "rep_w0"})
	if err != nil || len(byID) != 2 || byID[0].ReplayID != "rep_w1" || byID[1].ReplayID != "rep_w0" || byID[0].Repetition != 1 {
		t.Fatalf("ReplaysByID in the order asked: %+v, %v", byID, err)
	}
	if _, err := b.ReplaysByID(ctx, []string{"rep_none"}); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("ReplaysByID(unknown): %v, want ErrNotFound", err)
	}
}

func annotationsRoundTrip(t *testing.T, b Backend) {
	ctx := context.Background()
	want := readExpected(t)
	runID := imported(t, b)
	if c := chainOf(t, b, runID, "one_shot_text"); !c.NeedsAnnotation {
		t.Fatalf("an unlabelled free-text chain: %+v", c)
	}
	if _, err := b.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: "mem_none", Annotator: "ann", Status: annotations.AnnotationSubmitted, State: emptyState()}); !errors.Is(err, runs.ErrNotFound) {
		t.Fatalf("label of an unknown memory: %v, want ErrNotFound", err)
	}
	if _, err := b.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: want.freeTextID, Annotator: "ann", Status: "bogus", State: emptyState()}); err == nil {
		t.Fatal("a label with an unknown status was stored")
	}
	if _, err := b.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: want.freeTextID, Annotator: "ann", Status: annotations.AnnotationSubmitted, State: "not a state"}); err == nil {
		t.Fatal("a label whose state does not parse was stored")
	}
	list, err := b.Annotations(ctx, want.freeTextID)
	if err != nil || len(list) != 0 {
		t.Fatalf("rejected labels left %d rows (%v)", len(list), err)
	}
	for _, who := range []string{"bea", "al"} {
		a, err := b.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: want.freeTextID, Annotator: who, Status: annotations.AnnotationAccepted, State: emptyState()})
		if err != nil {
			t.Fatal(err)
		}
		if a.MemoryID != want.freeTextID || a.Annotator != who || a.Status != annotations.AnnotationAccepted || a.Stale || a.SourceContentHash == "" || a.State == nil {
			t.Fatalf("saved label: %+v", a)
		}
	}
	adj, err := b.Adjudicate(ctx, want.freeTextID, "judge", emptyState(), "")
	if err != nil || adj.Status != annotations.AnnotationAccepted || adj.Origin != annotations.OriginAdjudication {
		t.Fatalf("adjudication: %+v, %v", adj, err)
	}
	list, err = b.Annotations(ctx, want.freeTextID)
	if err != nil {
		t.Fatal(err)
	}
	var names, statuses []string
	for _, a := range list {
		names, statuses = append(names, a.Annotator), append(statuses, a.Status)
	}
	if !slices.Equal(names, []string{"al", "bea", "judge"}) || !slices.Equal(statuses, []string{annotations.AnnotationSubmitted, annotations.AnnotationSubmitted, annotations.AnnotationAccepted}) {
		t.Fatalf("labels by annotator after adjudication: %v %v", names, statuses)
	}
	// The accepted label makes the free-text chain scorable: its facts are derived again.
	text := chainOf(t, b, runID, "one_shot_text")
	steps, err := b.ChainBlocks(ctx, text.Key)
	if err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	if text.NeedsAnnotation || last.ScoredFrom != annotations.ScoredFreeTextAnnotation || last.Exact == nil || last.UnscoredReason != "" {
		t.Fatalf("after adjudication: chain %+v, final step %+v", text, last)
	}
}

// emptyState is an annotation state remembering no authorization (the fixture domain's typed
// schema, empty).
func emptyState() map[string]any {
	return map[string]any{"schema_version": "3", "authorizations": []any{}}
}

// diagnosisRow is one judge-diagnosis row; the domain is the fixture run's own (read from its
// manifest), so the suite names no domain.
const diagnosisRow = `{"run": "r1", "domain": %q, "case_id": "%s", "condition_id": "incremental_typed", "writer": "w", "writer_run_id": 0, "chain_id": "chain_1", "arm": null, "probe_id": "p1", "request_kind": "submitted", "request": {"amount": 1}, "error_block": %d, "failure": "false_authorization", "loop_block": false, "attempt_statuses": ["accepted"], "judges": {"a": {"cause": "restatement_applied", "misleading_message_ids": ["t1"], "ignored_message_ids": [], "error_entered_here": true, "explanation": "x"}, "b": {"cause": "restatement_applied", "misleading_message_ids": [], "ignored_message_ids": [], "error_entered_here": true, "explanation": "y"}}}`

func diagnoses(t *testing.T, b Backend) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "diagnosis.jsonl")
	domainID := readExpected(t).domainID
	rows := fmt.Sprintf(diagnosisRow, domainID, "case_a", 2) + "\n" + fmt.Sprintf(diagnosisRow, domainID, "case_a", 3) + "\n" + fmt.Sprintf(diagnosisRow, domainID, "case_b", 2) + "\n"
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := b.ImportDiagnosis(ctx, path)
	if err != nil || res.Status != runs.StatusImported || res.Kind != runs.KindDiagnosis {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if res, err := b.ImportDiagnosis(ctx, path); err != nil || res.Status != runs.StatusAlreadyImported {
		t.Fatalf("second import: %+v, %v", res, err)
	}
	got, err := b.Diagnoses(ctx, "case_a", "incremental_typed", 0, 2)
	if err != nil || len(got) != 1 || got[0].Line != 1 || got[0].CaseID != "case_a" || got[0].ErrorBlock != 2 || len(got[0].Judges) != 2 ||
		got[0].Judges[0].Judge != "a" || got[0].Judges[1].Cause != "restatement_applied" {
		t.Fatalf("diagnoses of case_a at block 2: %+v, %v", got, err)
	}
	if got, err := b.Diagnoses(ctx, "case_a", "one_shot_text", 0, 2); err != nil || len(got) != 0 {
		t.Fatalf("another condition: %+v, %v", got, err)
	}
	broken := filepath.Join(dir, "broken.jsonl")
	if err := os.WriteFile(broken, []byte(fmt.Sprintf(diagnosisRow, domainID, "case_c", 1)+"\n{\"run\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ImportDiagnosis(ctx, broken); err == nil || !strings.Contains(err.Error(), broken+":2") {
		t.Fatalf("a broken row: %v, want an error naming %s:2", err, broken)
	}
	if got, _ := b.Diagnoses(ctx, "case_c", "incremental_typed", 0, 1); len(got) != 0 {
		t.Fatalf("a file with a broken row stored %d rows", len(got))
	}
}

func search(t *testing.T, b Backend) {
	ctx := context.Background()
	want := readExpected(t)
	runID := imported(t, b)
	// "espresso" is only in the free-text memory's text.
	hits, err := b.Search(ctx, "espresso", 10)
	if err != nil {
		t.Fatal(err)
	}
	text := chainOf(t, b, runID, "one_shot_text")
	found := false
	for _, h := range hits {
		if h.Kind == "memory" && h.MemoryID == want.freeTextID {
			found = true
			if h.RunID != runID || h.Chain != text.Key || h.CaseID != text.CaseID {
				t.Fatalf("memory hit located at %+v, want chain %d of run %s", h, text.Key, runID)
			}
		}
		if h.Kind != "memory" {
			t.Fatalf("hit %+v: no turn says espresso", h)
		}
		if !strings.Contains(strings.ToLower(h.Snippet), "espresso") {
			t.Fatalf("hit %+v: its snippet lacks the term", h)
		}
	}
	if !found {
		t.Fatalf("search espresso: %+v, want the free-text memory %s", hits, want.freeTextID)
	}
	// A word of the case's turns finds turns of that case, each containing it.
	h, err := b.Chain(ctx, text.Key)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := b.BlockTurns(ctx, h.CaseKey, 0, nil)
	if err != nil || len(turns) == 0 {
		t.Fatalf("turns: %v", err)
	}
	word := longestWord(turns[0].Content)
	hits, err = b.Search(ctx, word, 5)
	if err != nil {
		t.Fatal(err)
	}
	turnHits := 0
	for _, h := range hits {
		if h.Kind == "turn" {
			turnHits++
			if h.CaseID != text.CaseID || h.TurnID == "" || h.RunID != runID || h.Chain == 0 || !strings.Contains(strings.ToLower(h.Snippet), word) {
				t.Fatalf("turn hit %+v", h)
			}
		}
	}
	if turnHits == 0 || turnHits > 5 {
		t.Fatalf("search %q: %d turn hits (limit 5): %+v", word, turnHits, hits)
	}
	if hits, err := b.Search(ctx, "   ", 5); err != nil || len(hits) != 0 {
		t.Fatalf("blank query: %+v, %v", hits, err)
	}
}
