// Package workbench is ealscope's application layer: the use cases that join live model
// calls (replay) to the workspace (runs) — re-running a chain's probes, the safeguard lab,
// hand-editing a re-run memory — written once, as functions over the narrow store
// interfaces below, so that the headless commands (cmd/ealscope) and the TUI record and
// read back the same rows. Writer and executor names resolve through replay.Models, the one
// place that builds model clients; neither cmd nor tui builds one.
package workbench

import (
	"context"

	"github.com/ealscope/ealscope/runs"
)

// AnalysisSeed is the executor seed of the TUI's re-runs and of every safeguard-lab arm
// (EAL-Bench's analysis seed, as engine.BootstrapSeed): both arms of a pair share it, so they
// differ only in memory. The headless commands take --seed, whose default is the same.
const AnalysisSeed = 20260821

// ReplaySaver stores one finished re-run arm (part of runs.ReplayStore).
type ReplaySaver interface {
	SaveReplay(ctx context.Context, in runs.ReplayInput) error
}

// SafeguardReader reads what the safeguard lab evaluates: a stored chain's memory at every
// block, and the writer chains of a run.
type SafeguardReader interface {
	SafeguardSource(ctx context.Context, key runs.ChainKey) (runs.SafeguardSource, error)
	SafeguardChains(ctx context.Context, runID string) ([]runs.ChainRow, error)
}

// SafeguardSaver stores one chain's evaluation (one transaction per chain).
type SafeguardSaver interface {
	SaveSafeguards(ctx context.Context, b runs.SafeguardBatch) error
}

// SafeguardResults reads stored lab results back: a run's table, and one chain's policies,
// blocks and pairs of arms.
type SafeguardResults interface {
	SafeguardRun(ctx context.Context, runID string) ([]runs.StoredSafeguardChain, error)
	SafeguardsForChain(ctx context.Context, key runs.ChainKey) ([]runs.StoredSafeguard, error)
	SafeguardBlocks(ctx context.Context, key runs.ChainKey, policyID string) ([]runs.StoredSafeguardBlock, error)
	SafeguardPairs(ctx context.Context, key runs.ChainKey, policyID string) ([]runs.StoredSafeguardPair, error)
}

// LabStore is everything the safeguard lab reads and writes: what it evaluates, and the
// workspace's lab results concern (saved and read back).
type LabStore interface {
	SafeguardReader
	runs.LabResults
}

// Every concern interface of runs satisfies the narrower interface its use case takes here
// (the SQLite store, or any other backend, is checked once against runs' concerns).
var (
	_ ReplaySaver      = runs.ReplayStore(nil)
	_ ReplayReader     = runs.ReplayStore(nil)
	_ SafeguardReader  = runs.LabSource(nil)
	_ SafeguardSaver   = runs.LabResults(nil)
	_ SafeguardResults = runs.LabResults(nil)
)
