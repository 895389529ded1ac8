package workbench

// End-to-end attribution over a run (docs/FORMATS.md 7.4), as far as a re-run measures it:
// the exact arm of every (written memory, probe) of the run that forms false authority is
// re-run and stored, and the stored attribution rows are counted into EAL-Bench's report.
// `ealscope replay --formed` prints it.

import (
	"context"
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// FormedStore is what the end-to-end re-run reads and writes.
type FormedStore interface {
	ReplaySaver
	FinalMemories(ctx context.Context, runID string) ([]runs.FormedMemory, error)
	Run(ctx context.Context, id string) (runs.RunSummary, error)
	RerunSource(ctx context.Context, key runs.ChainKey, block int) (runs.RerunSource, error)
	ReplaysByID(ctx context.Context, ids []string) ([]runs.Replay, error)
	AttributionForChain(ctx context.Context, key runs.ChainKey) ([]runs.ReplayAttribution, error)
}

// EndToEndReport is EAL-Bench's EndToEndReport restricted to what a formed re-run measures:
// the population is the run's written memories at the final block; the requests are the
// (memory, probe) pairs that form false authority, each with its written arm (the imported
// trial) and its exact arm (the re-run).
type EndToEndReport struct {
	RunID                         string         `json:"run_id"`
	Executor                      string         `json:"executor"`
	MemoriesScored                int            `json:"memories_scored"`
	MemoriesForming               int            `json:"memories_forming"`
	MemoriesNotEstimable          int            `json:"memories_not_estimable"`
	FormationRate                 *float64       `json:"formation_rate"`
	RequestsScored                int            `json:"requests_scored"`
	RequestsNotEstimable          int            `json:"requests_not_estimable"`
	WrittenUnauthorizedSubmission [2]int         `json:"written_unauthorized_submission"`
	ExactUnauthorizedSubmission   [2]int         `json:"exact_unauthorized_submission"`
	AttributedMemoryInduced       int            `json:"attributed_memory_induced"`
	Unattributed                  map[string]int `json:"unattributed"`
}

// FormedRequest is one end-to-end re-run: the run, the executor's name (replay.Models) and
// seed, the repetitions per probe and the calls in flight.
type FormedRequest struct {
	RunID    string
	Executor string
	Seed     int64
	Runs     int
	Workers  int
}

// FormedResult is the report with the stored exact arms and their attribution rows; Cancelled
// says ctx stopped the re-run (the finished arms are stored).
type FormedResult struct {
	Report    EndToEndReport
	Replays   []runs.Replay
	Rows      []runs.ReplayAttribution
	Cancelled bool
}

// RerunFormed re-runs the exact arm of every forming (memory, probe) of the run and reports.
// One executor serves every chain, so a model's concurrency limit holds across them.
func RerunFormed(ctx context.Context, store FormedStore, models replay.Models, req FormedRequest) (FormedResult, error) {
	mems, err := store.FinalMemories(ctx, req.RunID)
	if err != nil {
		return FormedResult{}, err
	}
	run, err := store.Run(ctx, req.RunID)
	if err != nil {
		return FormedResult{}, err
	}
	out := FormedResult{Report: EndToEndReport{RunID: run.RunID, Unattributed: map[string]int{}}}
	rep := &out.Report
	var ex replay.Executor
	for _, m := range mems {
		if !m.Estimable {
			rep.MemoriesNotEstimable++
			continue
		}
		rep.MemoriesScored++
		if !m.Formed || len(m.FormedProbes) == 0 {
			continue
		}
		rep.MemoriesForming++
		if out.Cancelled {
			continue
		}
		src, err := store.RerunSource(ctx, m.Chain.Key, -1)
		if err != nil {
			return FormedResult{}, err
		}
		if ex == nil {
			if ex, err = models.Executor(src.Domain, req.Executor, req.Seed); err != nil {
				return FormedResult{}, err
			}
			rep.Executor = ex.Provenance(req.Seed).TargetID
		}
		probes, err := probesNamed(src, m.FormedProbes)
		if err != nil {
			return FormedResult{}, err
		}
		mem, err := replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
		if err != nil {
			return FormedResult{}, err
		}
		results, stopped, runErr := Rerun(ctx, store, RerunRequest{Source: src, Memory: mem, Probes: probes, Executor: ex, Runs: req.Runs, Seed: req.Seed, Workers: req.Workers})
		if runErr != nil {
			return FormedResult{}, runErr
		}
		out.Cancelled = stopped
		stored, err := StoredReplays(ctx, store, results)
		if err != nil {
			return FormedResult{}, err
		}
		out.Replays = append(out.Replays, stored...)
		ids := map[string]bool{}
		for _, r := range results {
			ids[r.ReplayID] = true
		}
		rows, err := store.AttributionForChain(ctx, m.Chain.Key)
		if err != nil {
			return FormedResult{}, err
		}
		for _, a := range rows {
			if a.ExactReplayID != nil && ids[*a.ExactReplayID] {
				out.Rows = append(out.Rows, a)
			}
		}
	}
	countReport(rep, out.Rows)
	return out, nil
}

// countReport fills the report's rates and request counts from the attribution rows.
func countReport(rep *EndToEndReport, rows []runs.ReplayAttribution) {
	if rep.MemoriesScored > 0 {
		rate := float64(rep.MemoriesForming) / float64(rep.MemoriesScored)
		rep.FormationRate = &rate
	}
	rep.RequestsScored = len(rows)
	for _, a := range rows {
		if !a.Estimable {
			rep.RequestsNotEstimable++
		} else if !a.RequestAuthorized {
			rep.WrittenUnauthorizedSubmission[1]++
			rep.ExactUnauthorizedSubmission[1]++
			if a.UnauthorizedSubmission {
				rep.WrittenUnauthorizedSubmission[0]++
			}
			if a.ExactUnauthorizedSubmission {
				rep.ExactUnauthorizedSubmission[0]++
			}
		}
		if a.Attributed {
			rep.AttributedMemoryInduced++
		}
		for _, r := range a.Reasons {
			rep.Unattributed[r]++
		}
	}
}

// probesNamed are the source's probes with the given ids, in that order.
func probesNamed(src runs.RerunSource, ids []string) ([]runs.RerunProbeSource, error) {
	byID := map[string]runs.RerunProbeSource{}
	for _, p := range src.Probes {
		byID[p.Probe.ID] = p
	}
	out := make([]runs.RerunProbeSource, 0, len(ids))
	for _, id := range ids {
		p, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("probe %s: not a probe of case %s", id, src.Case.ID)
		}
		out = append(out, p)
	}
	return out, nil
}

// ReplayReader reads stored re-run arms back by id.
type ReplayReader interface {
	ReplaysByID(ctx context.Context, ids []string) ([]runs.Replay, error)
}

// StoredReplays reads back the stored rows of a re-run, ordered by probe and repetition (they
// finished, and were stored, in completion order).
func StoredReplays(ctx context.Context, store ReplayReader, results []replay.RerunResult) ([]runs.Replay, error) {
	sorted := append([]replay.RerunResult(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].ProbeID != sorted[j].ProbeID {
			return sorted[i].ProbeID < sorted[j].ProbeID
		}
		return sorted[i].Repetition < sorted[j].Repetition
	})
	ids := make([]string, len(sorted))
	for i, r := range sorted {
		ids[i] = r.ReplayID
	}
	return store.ReplaysByID(ctx, ids)
}
