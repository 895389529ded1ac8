package workbench

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// RerunSpecFor builds a re-run of the given probes from what the workspace holds: the
// written arm carries the store's formation verdict (which covers annotated free text) and
// the imported trials it mirrors; every arm carries the operational context EAL-Bench sent
// for the probe, so only the memory differs between arms.
func RerunSpecFor(src runs.RerunSource, mem replay.RerunMemory, probes []runs.RerunProbeSource, ex replay.Executor, n int, seed int64) replay.RerunSpec {
	spec := replay.RerunSpec{
		Domain: src.Domain, Case: src.Case, Block: src.Block, Memory: mem, Executor: ex, Runs: n, Seed: seed,
		ChainRef: fmt.Sprintf("%s/%d", src.Chain.RunID, src.Chain.Key),
	}
	for _, p := range probes {
		rp := replay.RerunProbe{Probe: p.Probe}
		if p.ContextUserMessage != "" {
			rp.OperationalContext = replay.OperationalContextFrom(src.Domain, p.Probe, p.ContextUserMessage)
		}
		if mem.Variant == engine.VariantWritten {
			rp.Formation = &replay.Formation{Formed: p.Formed, Estimable: p.FormationEstimable}
			for _, m := range p.Mirrors {
				rp.Mirrors = append(rp.Mirrors, replay.Mirror{TrialID: m.TrialID, ContextHash: m.ContextHash, ExecutorTarget: m.ExecutorTarget, ExecutorRunID: m.ExecutorRunID})
			}
		}
		spec.Probes = append(spec.Probes, rp)
	}
	return spec
}

// SaveRerun stores each finished arm of a chain's re-run (one transaction per arm). Every
// arm records the chain memory it answers for, so that written and exact arms of the same
// (memory, probe) meet in attribution.
func SaveRerun(store ReplaySaver, src runs.RerunSource) replay.SaveFunc {
	return func(ctx context.Context, r replay.RerunResult) error {
		return store.SaveReplay(ctx, ReplayInputOf(src.Chain.Key, src.MemoryID, r))
	}
}

// ReplayInputOf places a finished arm on its chain (the stored row shares the arm's types).
func ReplayInputOf(key runs.ChainKey, writtenMemory string, r replay.RerunResult) runs.ReplayInput {
	in := runs.ReplayInput{Chain: key, WrittenMemoryID: writtenMemory, Arm: r.Arm}
	if r.Mirror != nil {
		in.MirroredTrialID, in.MirroredContextHash = r.Mirror.TrialID, r.Mirror.ContextHash
	}
	return in
}

// RerunRequest is one re-run of a chain's probes at a block with one memory.
type RerunRequest struct {
	Source runs.RerunSource
	Memory replay.RerunMemory
	Probes []runs.RerunProbeSource
	// Executor answers every arm (Models.Executor resolves its name).
	Executor replay.Executor
	// Runs is the repetitions per probe; repetition r uses seed Seed + r.
	Runs int
	Seed int64
	// Workers bounds the calls in flight (0: replay's default).
	Workers int
}

// Rerun re-runs the request's probes and stores every arm as it finishes; it returns the
// finished arms (stored or not), whether ctx stopped it, and the first error.
func Rerun(ctx context.Context, store ReplaySaver, req RerunRequest) ([]replay.RerunResult, bool, error) {
	spec := RerunSpecFor(req.Source, req.Memory, req.Probes, req.Executor, req.Runs, req.Seed)
	spec.Workers = req.Workers
	return replay.Rerun(ctx, spec, SaveRerun(store, req.Source))
}
