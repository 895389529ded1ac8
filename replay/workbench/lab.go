package workbench

// The safeguard lab as a use case: evaluate one stored chain, or every writer chain of a run,
// with the given policies on the named executor, and store what finishes. `ealscope
// safeguards` and the TUI's safeguards pane and run screen both call it, so they resolve the
// executor, gate and store alike; each only words the outcome its own way.

import (
	"context"
	"errors"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// ErrNoMemory: the chain (or every writer chain of the run) has no memory at any block, so
// there is nothing to gate. Callers name the chain or run in their own words.
var ErrNoMemory = errors.New("no memory at any block: nothing to gate")

// ErrNoPolicies: the lab was asked to evaluate no policy.
var ErrNoPolicies = errors.New("no safeguard policies are registered")

// Lab runs the safeguard lab over a workspace.
type Lab struct {
	Store  LabStore
	Models replay.Models
}

// LabSettings are the settings of every arm of one evaluation.
type LabSettings struct {
	Policies []engine.Policy
	// Executor is a name for replay.Models ("builtin" or a model entry).
	Executor string
	// Seed is every arm's executor seed (both arms of a pair share it).
	Seed   int64
	Blocks replay.TrialBlocks
	// Workers bounds the calls (chains, for a run) in flight; 0 is replay's default.
	Workers int
}

// arms resolves the executor for domain d and returns the arms' settings.
func (l Lab) arms(d engine.Domain, s LabSettings) (replay.SafeguardArmSettings, error) {
	if len(s.Policies) == 0 {
		return replay.SafeguardArmSettings{}, ErrNoPolicies
	}
	ex, err := l.Models.Executor(d, s.Executor, s.Seed)
	if err != nil {
		return replay.SafeguardArmSettings{}, err
	}
	return replay.SafeguardArmSettings{Policies: s.Policies, Executor: ex, Seed: s.Seed, Blocks: s.Blocks}, nil
}

// EvaluateChain evaluates the stored chain key and stores the evaluation, in one transaction
// that ctx's end does not interrupt. A cancelled evaluation (ev.Cancelled) stores nothing:
// half a chain is not a result. progress, when set, is told of finished trials.
func (l Lab) EvaluateChain(ctx context.Context, key runs.ChainKey, s LabSettings, progress func(done, total int)) (*replay.ChainEvaluation, error) {
	ch, err := LoadSafeguardChain(ctx, l.Store, key)
	if err != nil {
		return nil, err
	}
	if len(ch.Versions) == 0 {
		return nil, ErrNoMemory
	}
	arms, err := l.arms(ch.Domain, s)
	if err != nil {
		return nil, err
	}
	ev, err := replay.EvaluateChain(ctx, replay.SafeguardSpec{Chain: ch, SafeguardArmSettings: arms, Workers: s.Workers, Progress: progress})
	if err != nil || ev.Cancelled {
		return ev, err
	}
	return ev, l.Store.SaveSafeguards(context.WithoutCancel(ctx), SafeguardBatchOf(key, ev, s.Blocks))
}

// RunLab is a run's evaluation: the result, the chains it planned, the writer chains left out
// for having no memory, and the executor's target id.
type RunLab struct {
	*replay.SafeguardRunResult
	Planned  int
	Skipped  int
	Executor string
}

// RunProgress reports a run's evaluation: Reading before each chain is read, Evaluated after
// each chain is stored (done of total chains). Either may be nil.
type RunProgress struct {
	Reading, Evaluated func(done, total int)
}

// EvaluateRun evaluates every writer chain of the run with a memory, storing each chain as it
// finishes (a cancelled run keeps those; res.Cancelled says so). One executor serves every
// chain, so a model's concurrency limit holds across them. ErrNoMemory: no chain has one.
func (l Lab) EvaluateRun(ctx context.Context, runID string, s LabSettings, progress RunProgress) (RunLab, error) {
	chains, keys, skipped, err := LoadSafeguardRunProgress(ctx, l.Store, runID, progress.Reading)
	if err != nil {
		return RunLab{}, err
	}
	if len(chains) == 0 {
		return RunLab{}, ErrNoMemory
	}
	arms, err := l.arms(chains[0].Domain, s)
	if err != nil {
		return RunLab{}, err
	}
	res, err := replay.EvaluateRun(ctx, replay.SafeguardRunSpec{Chains: chains, SafeguardArmSettings: arms, Workers: s.Workers,
		Progress: progress.Evaluated, Save: SaveSafeguards(l.Store, keys, s.Blocks)})
	if err != nil {
		return RunLab{}, err
	}
	return RunLab{SafeguardRunResult: res, Planned: len(chains), Skipped: skipped, Executor: arms.Executor.Provenance(s.Seed).TargetID}, nil
}
