package tui

// Display rows of the safeguard lab (docs/SAFEGUARDS.md): what the chain view's safeguards pane
// and the run's safeguards screen draw, flattened from the lab's results by
// safeguards_present.go. They hold only what is drawn.

// SafeguardChain is the safeguards pane's content for one chain: every policy the lab
// evaluated, in table order.
type SafeguardChain struct {
	Policies []SafeguardPolicy
	// Executor is the executor the gated trials ran with ("builtin" or a model entry), and
	// Baseline says where the un-gated trial each is compared with came from.
	Executor, Baseline string
	// TrialBlocks is "every" (trials at every block with a memory) or "final" (a run's batch,
	// or `ealscope safeguards` without --blocks every: trials at the final block only).
	TrialBlocks string
}

// SafeguardPolicy is one policy's effect on the chain.
type SafeguardPolicy struct {
	ID, Version, Description string
	// NotApplicable says why the policy has nothing to say about this chain (a typed-record
	// policy over free text); Err is a failure of the evaluation. Either leaves the counts
	// empty.
	NotApplicable, Err string
	// FirstFalseBefore and FirstFalseAfter are the first false-authority blocks of the written
	// and the gated memory (-1: none).
	FirstFalseBefore, FirstFalseAfter int
	// Prevented counts unauthorized actions behind the written memory that the gated one
	// stopped; Refused counts authorized requests that succeeded behind the written memory
	// and are refused behind the gated one; NotEstimable counts pairs with a provider error.
	Prevented, Refused, NotEstimable, Trials int
	// RecordsRemoved counts records the policy withheld, over every block.
	RecordsRemoved int
	// FinalOnly: the trials (and so the counts) are at the final block only.
	FinalOnly bool
	Blocks    []SafeguardBlock
	// Audience is audience_bound's contexts on the chain (the run's audience lab); nil for
	// every other policy.
	Audience *ChainAudience
}

// SafeguardBlock is the policy at one block of the chain.
type SafeguardBlock struct {
	Index int
	// Written and Gated are the memory as written and as the policy lets it through (nil:
	// no memory yet at this block).
	Written, Gated *MemoryVersion
	// FormsBefore and FormsAfter: the written and the gated memory form false authority for
	// some probe at this block.
	FormsBefore, FormsAfter bool
	Records                 []SafeguardRecord
	Probes                  []SafeguardProbe
	// NotApplicable and Err are as in SafeguardPolicy, for this block alone.
	NotApplicable, Err string
	// NoTrials says why the block has no trials (an evaluation at the final block only).
	NoTrials string
}

// SafeguardRecord is the policy's decision on one remembered record.
type SafeguardRecord struct {
	AuthorizationID string
	Kept            bool
	Reasons         []string
	// Sources are the turns the record cites with who said them (as the case has them).
	Sources []SourceTurn
	// State is the record's lifecycle state (MemTX), Trust its trust level and BoundSources
	// the turns its provenance was bound to (PPMF); "" / nil under other policies.
	State        string
	Trust        string
	BoundSources []SourceTurn
}

// SourceTurn is a turn a record cites: its id, and the principal it speaks for when the case
// has the turn ("" for an id the case does not have, which the gate calls unknown
// provenance). Capability is "can grant" (an authority-capable principal), "cannot grant", or "" when the
// domain declares no source-authority rules.
type SourceTurn struct {
	ID, Speaker string
	Block       int
	Capability  string
	// Content is what the turn says (untrusted corpus text: sanitised where drawn).
	Content string
}

// SafeguardProbe is one probe's trial behind the written memory and behind the gated one.
type SafeguardProbe struct {
	ProbeID string
	// Authorized is the oracle's verdict on the request at the block.
	Authorized bool
	// FormsBefore / FormsAfter: the written / gated memory grants what the ledger denies
	// (nil: not scored).
	FormsBefore, FormsAfter *bool
	Before, After           SafeguardTrial
	// Effect is "prevented", "refused", "not estimable" or "" (no change that counts).
	Effect string
}

// SafeguardTrial is one scored trial: the decision, the tool call, and whether it was an
// unauthorized action. GateReason is the action gate's reason when it blocked the action.
type SafeguardTrial struct {
	Decision, ToolName, ToolArgs string
	Compliant, Unauthorized      bool
	ProviderError                string
	GateReason                   string
	// Missing: no trial (the run has none for this probe and none was made).
	Missing bool
}

// Effects of a gated trial against the written one.
const (
	effectPrevented    = "prevented"
	effectRefused      = "refused"
	effectNotEstimable = "not estimable"
	effectEnabled      = "enabled"
)

// SafeguardTable is the run-level table: one row per policy and condition.
type SafeguardTable struct {
	RunID    string
	Executor string
	Rows     []SafeguardRow
	// Chains is how many chains the lab evaluated of the Planned writer chains; Skipped says
	// which it could not, and why.
	Chains, Planned int
	Skipped         []string
	// Note explains how intervals were drawn (seed, draws, resampling unit).
	Note string
}

// SafeguardRow is one policy under one condition.
type SafeguardRow struct {
	Policy, Condition string
	Chains            int
	// The three EAL rates (docs/FORMATS.md 6.4), each un-gated and gated with the paired bootstrap
	// interval of the difference.
	Unauthorized, AuthorizedSuccess, Formation SafeguardRate
	Prevented, Refused, NotEstimable           int
	NotApplicable                              int
	// ChainsStopped / ChainsRefused: chains with at least one prevented action / refused
	// authorized request.
	ChainsStopped, ChainsRefused int
}

// SafeguardRate is a rate before and after the policy, with its counts and the 95% interval
// of the paired difference (after minus before). Estimable is false when either rate has no
// denominator.
type SafeguardRate struct {
	NumBefore, DenBefore, NumAfter, DenAfter int
	Before, After, Diff                      float64
	DiffLow, DiffHigh                        float64
	Estimable, HasInterval                   bool
}
