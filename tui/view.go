package tui

import "github.com/ealscope/ealscope/runs"

// Display rows: what screens render, built from runs values by present.go. They hold only
// what is drawn, already flattened to strings and flags.

// RunSummary is one row of the runs screen.
type RunSummary struct {
	RunID, DomainID, Study, Status, StartedAt, Source string
	Chains, Forming, Trials                           int
	// TrialsNotEstimable counts trials whose provider call failed (no decision was made).
	TrialsNotEstimable   int
	Verified, Incomplete bool
	// WriterAttempts and WriterErrors: a run whose writer failed on every call says so.
	WriterAttempts, WriterErrors int
	// Writers and Executors name the run's writer and executor targets.
	Writers, Executors string
	// WriterTokens and ExecutorTokens: what the run's model calls cost (0: none recorded).
	WriterTokens, ExecutorTokens int64
}

// ChainSummary is one row of the chains screen.
type ChainSummary struct {
	Key          ChainKey
	Writer       string
	Architecture string
	Memories     int
	// FirstFalseAuthority is the first block whose memory grants a probe the ledger denies,
	// or -1.
	FirstFalseAuthority int
	UnauthorizedActions int
	MemoryInduced       int
	NeedsAnnotation     bool
}

// Flagged reports whether the row carries any flag the "next flagged" key stops at.
func (c ChainSummary) Flagged() bool {
	return c.FirstFalseAuthority >= 0 || c.UnauthorizedActions > 0 || c.MemoryInduced > 0 || c.NeedsAnnotation
}

// ChainDetail is the chain view's header and timeline.
type ChainDetail struct {
	Summary  ChainSummary
	DomainID string
	CaseKey  runs.CaseKey
	Blocks   []BlockSummary
	// CitedTurns are the turns of the first false-authority block that its memory cites.
	CitedTurns []string
	// MissingCorpus names the corpus the ledger views need when the workspace lacks it.
	MissingCorpus string
	// Faults are what the scripted writer injected in this chain (none for other writers).
	Faults []ScriptedFault
	// EALChainIDs are EAL-Bench's ids of this chain (what a diagnosis row names).
	EALChainIDs []string
}

// ScriptedFault is one fault the scripted writer injected, with the turns it came from.
type ScriptedFault struct {
	Family, AuthorizationID, Field, Description string
	// Block is the update that wrote the fault, EventBlock the block of the ledger transition
	// (or of the claim) it came from.
	Block, EventBlock int
	SourceTurnIDs     []string
}

// BlockSummary is one timeline row.
type BlockSummary struct {
	Index   int
	Title   string
	EndedAt string
	Events  []EventSummary
	// MemoryID is the memory in force after this block ("" before the first).
	MemoryID string
	// UpdateStatus is accepted, no_change or retained_after_failed_update ("" when none).
	UpdateStatus string
	// Fidelity is one of runs' badges: exact, overgrant, undergrant, overgrant+undergrant,
	// inexact, unscored, no_memory.
	Fidelity string
	// Forms is true when this block's memory version forms false authority for some probe.
	Forms bool
	// Faults are the fault families the scripted writer injected at this block.
	Faults []string
}

// EventSummary is one ledger event.
type EventSummary struct {
	ID, Type, Issuer, AuthorizationID string
	SourceTurnIDs                     []string
}

// MemoryVersion is one memory version with the payload ready to diff.
type MemoryVersion struct {
	MemoryID   string
	BlockIndex int
	// Architecture is "typed" (Payload is a JSON tree) or free text (Text is set).
	Architecture string
	Text         string
	Payload      any
	ContentHash  string
}

// BlockDetail is everything the chain view shows for one block, fetched by one command.
type BlockDetail struct {
	Index        int
	Title        string
	Turns        []Turn
	Events       []EventSummary
	Memory       *MemoryVersion
	Previous     *MemoryVersion
	UpdateStatus string
	// Exact is nil when the memory was not scored; Unscored then says why.
	Exact    *bool
	Unscored string
	Fidelity []FieldRow
	Ledger   string
	Probes   []ProbeRow
	// ProbesErr explains an empty probes pane (for example a missing corpus).
	ProbesErr string
	// Why is the cause attribution of the block's false-authority failures (nil: none forms
	// here, or the store cannot attribute).
	Why *WhyView
	// Judges are the imported judges' diagnoses that say the error entered at this block.
	Judges []JudgesLine
}

// SearchHit is one full-text match.
type SearchHit struct {
	Key     ChainKey
	Block   int
	Kind    string // "turn" or "memory"
	ItemID  string
	Snippet string
}
