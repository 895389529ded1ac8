package tui

import (
	"context"

	"github.com/ealscope/ealscope/runs"
)

// The TUI reads the workspace only through these interfaces (CONVENTIONS §12). Each names
// only the queries a screen makes, with runs' own signatures, so any backend of runs'
// concerns satisfies them as is and tests can swap in a fake. Screens never render runs
// values directly: present.go turns them into the display rows of view.go (pure functions,
// CONVENTIONS §11).

// RunLister feeds the runs screen.
type RunLister interface {
	Runs(ctx context.Context) ([]runs.RunSummary, error)
}

// ChainLister feeds the chains screen (one query for the whole run; filtering and sorting
// by any column then happen in memory on the cached rows).
type ChainLister interface {
	Chains(ctx context.Context, f runs.ChainFilter) ([]runs.ChainRow, error)
}

// ChainReader feeds the chain view: the header and timeline once, then one block at a time
// as the user steps (each step's queries run in one command; the screen caches the result).
type ChainReader interface {
	Chain(ctx context.Context, key runs.ChainKey) (runs.ChainHeader, error)
	ChainBlocks(ctx context.Context, key runs.ChainKey) ([]runs.BlockStep, error)
	BlockTurns(ctx context.Context, ck runs.CaseKey, block int, cite *runs.MemoryRef) ([]runs.Turn, error)
	MemoryAt(ctx context.Context, key runs.ChainKey, block int) (runs.MemoryVersion, error)
	ProbesAt(ctx context.Context, key runs.ChainKey, block int) ([]runs.ProbeView, error)
	// Diagnoses are the imported judges' diagnoses of a writer chain at a block.
	Diagnoses(ctx context.Context, caseID, conditionID string, writerRunID int64, block int) ([]runs.Diagnosis, error)
}

// Searcher is the workspace full-text search behind `/` in the chain view.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]runs.SearchHit, error)
}

// Store is everything the program needs; each screen keeps only the part it uses.
type Store interface {
	RunLister
	ChainLister
	ChainReader
	Searcher
}

// The workspace's concerns (runs) cover what the program needs: the store cmd/ealscope
// passes in implements them.
var _ Store = struct {
	runs.RunCatalog
	runs.BlockReader
	runs.DiagnosisStore
	runs.TextSearch
}{}
