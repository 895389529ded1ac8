// Package storymodel holds the rows a chain's story is told in: what the TUI's screens draw
// and what the exports (tui/export) write, so the exports need not import the TUI. They hold
// only what is drawn, already flattened to strings and flags, and sanitised.
package storymodel

import "github.com/ealscope/ealscope/runs"

// ChainKey addresses one chain: the store's key plus the names a person reads and types
// (and that `:link` prints).
type ChainKey struct {
	ID          runs.ChainKey
	RunID       string
	CaseID      string
	ConditionID string
	WriterRunID int
}

// Turn is one message of a history block.
type Turn struct {
	ID, Speaker, OccurredAt, Content string
	CitedByLedger, CitedByMemory     bool
}

// FieldRow is one fidelity row: the memory against the ledger at the block.
type FieldRow struct {
	AuthorizationID, Field, Ledger, Remembered string
	Errors                                     []string
	Overgrant, Undergrant                      bool
}

// ProbeRow is one probe at one block, with the run's trials on the final memory.
type ProbeRow struct {
	ProbeID, Scope, Dimension string
	// AuthorizedNow and AuthorizedFinal are the oracle's verdicts at this block and at the end.
	AuthorizedNow, AuthorizedFinal bool
	// Forms: this memory version grants what the ledger denies (nil: not scored).
	Forms  *bool
	Trials []Trial
	// ReasonNow is the oracle's reason for its verdict at this block; MemoryAuthorized and
	// MemoryReason are what the memory version says (nil / "" when it cannot be scored).
	ReasonNow        string
	MemoryAuthorized *bool
	MemoryReason     string
	// Request is the probe request's fields (path, value), e.g. its action_time.
	Request [][2]string
}

// Trial is one executor trial.
type Trial struct {
	ExecutorRunID                int
	Decision, ToolName, ToolArgs string
	Compliant, Unauthorized      bool
	ProviderError                string
	Attributed                   *bool
	// Executor is the executor target; Reasons are the attribution's reasons.
	Executor string
	Reasons  []string
}

// StepKind names one step of a story.
type StepKind string

const (
	StepTurn           StepKind = "turn"
	StepMemory         StepKind = "memory"
	StepFalseAuthority StepKind = "false_authority"
	StepAction         StepKind = "action"
	StepExact          StepKind = "exact"
	StepAttribution    StepKind = "attribution"
)

// Story is one chain told step by step. Every text in it is already sanitised (no control
// characters); each output format still escapes it for its own syntax.
type Story struct {
	Chain ChainKey
	// Block is the block the story is about (the first false-authority block by default).
	Block      int
	BlockTitle string
	LastBlock  int
	FirstFalse int
	// Unscored: free-text memory awaiting annotation, so false authority is not known.
	Unscored bool
	Steps    []StoryStep
}

// StoryStep is one slide. Only the fields of its Kind are set.
type StoryStep struct {
	Kind    StepKind
	Title   string
	Caption string
	// Note is a second line of explanation (an oracle reason, or why something is missing).
	Note string

	Turns []StoryTurn // StepTurn

	MemoryHead string    // StepMemory: which version, its update state and score
	Diff       []DiffRow // StepMemory: against the previous version
	TextDiff   bool      // StepMemory: free text (rows carry Segs) rather than typed fields

	Ledger []FieldRow // StepFalseAuthority: the ledger rows the memory contradicts
	Probe  *ProbeRow  // StepFalseAuthority: the probe it now grants

	Written *StoryArm // StepAction, StepExact: the executor behind the written memory
	Exact   *StoryArm // StepExact: the executor behind oracle-exact memory

	Checks  []StoryCheck // StepAttribution
	Verdict string       // StepAttribution: memory_induced, not memory-induced, not estimable
}

// StoryTurn is one turn of the story's block; Highlight marks the turn that caused it.
type StoryTurn struct {
	Turn
	Highlight bool
	// Ledger lists the ledger events ("grant:auth_1") that cite this turn.
	Ledger []string
}

// DiffRow is one row of a memory diff. Typed memory gives record headers and field rows;
// free text gives one row per line with word segments.
type DiffRow struct {
	// Op is '=' unchanged, '+' added, '-' removed, '~' changed.
	Op     byte
	Header bool
	// Record is the record a header row introduces; Fields counts its fields.
	Record string
	Fields int
	// Field, Old and New are a field row's name and values.
	Field, Old, New string
	// Segs are a free-text line's word segments.
	Segs []DiffSeg
}

// DiffSeg is a run of words: Op '=' kept, '-' deleted, '+' inserted.
type DiffSeg struct {
	Op   byte
	Text string
}

// StoryArm is one executor decision on the story's probe.
type StoryArm struct {
	// Memory is "written" or "oracle-exact"; Source says where the decision comes from.
	Memory, Source       string
	Executor             string
	ExecutorRun          int
	Decision, Tool, Args string
	Unauthorized         bool
	Compliant            bool
	ProviderError        string
	// Imported is true for the run's own trials (false for re-runs).
	Imported bool
}

// StoryCheck is one condition of the attribution, held or not.
type StoryCheck struct {
	OK    bool
	Label string
}
