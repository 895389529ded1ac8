package replay

// The safeguard lab's values (see safeguards.go): what a chain evaluation takes and returns.
// The TUI and the store read these; their names and JSON tags are the lab's API.

import (
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"

	"github.com/ealscope/ealscope/runs/replayrow"
)

// Effects of a policy on one (block, probe) pair of arms.
const (
	// EffectPrevented: the request is not authorized, the executor took the requested action
	// behind the written memory and not behind the gated one (docs/FORMATS.md 6.4's unauthorized
	// submission, removed).
	EffectPrevented = "unauthorized_action_prevented"
	// EffectRefused: the request is authorized, the executor took it behind the written memory
	// and not behind the gated one: the safeguard's cost.
	EffectRefused = "authorized_request_refused"
	// EffectEnabled: the executor took the requested action behind the gated memory but not
	// behind the written one (a policy that adds authority; none of the lab's should).
	EffectEnabled = "action_enabled"
	// EffectUnchanged: both arms took, or both did not take, the requested action.
	EffectUnchanged = "unchanged"
	// EffectNotEstimable: a provider error on either arm; never a decision.
	EffectNotEstimable = "not_estimable"
	// EffectNotApplicable: the policy has nothing to say about this memory
	// (engine.ErrNotApplicable, e.g. a typed-record gate shown free text).
	EffectNotApplicable = "not_applicable"
)

// SafeguardChain is one writer chain as the lab reads it.
type SafeguardChain struct {
	Domain engine.Domain
	Case   *engine.Case
	// Condition is the writer condition (incremental_typed, ...); Architecture typed or
	// free_text.
	Condition    string
	Architecture string
	// ChainRef names the chain in replay and batch ids ("run/chain key").
	ChainRef string
	// WriterTarget and WriterRunID identify the writer run (the resampling unit with the
	// case, and docs/FORMATS.md 8.2's pairing key of event-sourced chains).
	WriterTarget string
	WriterRunID  int64
	// Versions are the chain's current memory after each block that has one, in block order
	// (a no_change block repeats the previous payload).
	Versions []SafeguardVersion
	// OperationalContext is EAL-Bench's challenge text per probe id, when the run had one.
	OperationalContext map[string]string
}

// SafeguardVersion is the chain's memory at one block.
type SafeguardVersion struct {
	Block    int
	MemoryID string
	// Payload is a free-text string or a typed payload tree.
	Payload any
	// Formation, when set, is the stored verdict on the written memory at this block (it
	// covers free text read through accepted annotations); nil: computed here.
	Formation *FormationVerdict
}

// FormationVerdict is formation (docs/FORMATS.md 7.1, ApparentAuthority) of one memory at a block.
type FormationVerdict struct {
	// Estimable is false when the memory cannot be read (free text outside the canonical
	// layout with no accepted annotation, an invalid typed payload).
	Estimable      bool     `json:"estimable"`
	Formed         bool     `json:"formed"`
	FormedProbeIDs []string `json:"formed_probe_ids"`
}

// TrialBlocks chooses where the executor is re-run.
type TrialBlocks int

const (
	// TrialsAtFinalBlock re-runs at the chain's final block only, where EAL-Bench's
	// generated_final trials are and where the run-level table is measured.
	TrialsAtFinalBlock TrialBlocks = iota
	// TrialsAtEveryBlock re-runs at every block that has a memory.
	TrialsAtEveryBlock
)

// SafeguardArmSettings are what every arm of a lab evaluation shares, whether of one chain
// (SafeguardSpec) or of a run's chains (SafeguardRunSpec): the policies gating the memory,
// the executor answering both arms, its seed and the blocks re-run.
type SafeguardArmSettings struct {
	Policies []engine.Policy
	Executor Executor
	// Seed is the executor seed of every arm (both arms of a pair share it).
	Seed   int64
	Blocks TrialBlocks
	// Now stamps created_at and the batch id (nil: time.Now).
	Now func() time.Time
}

// SafeguardSpec is one lab evaluation of a chain.
type SafeguardSpec struct {
	Chain SafeguardChain
	SafeguardArmSettings
	// Workers bounds the calls in flight (0: DefaultConcurrency).
	Workers int
	// Progress, when set, is called after each finished arm (done of total), from one
	// goroutine.
	Progress func(done, total int)
}

// SafeguardArm is one executor trial of the lab, everything a replay row stores.
type SafeguardArm struct {
	// Arm's Memory is what the executor was shown: the written memory (variant written), or
	// the policy's gated memory (variant gated). Its batch id is the evaluation's.
	replayrow.Arm
}

// ProviderFailed says the arm has no decision.
func (a *SafeguardArm) ProviderFailed() bool { return a != nil && a.Outcome.ProviderError != nil }

// SafeguardPair is one probe at one block under one policy: the un-gated arm and the gated
// one (nil when the policy does not apply).
type SafeguardPair struct {
	BlockIndex        int           `json:"block_index"`
	ProbeID           string        `json:"probe_id"`
	RequestAuthorized bool          `json:"request_authorized"`
	Effect            string        `json:"effect"`
	Written           *SafeguardArm `json:"-"`
	Gated             *SafeguardArm `json:"-"`
}

// SafeguardBlock is one memory version under one policy.
type SafeguardBlock struct {
	BlockIndex int    `json:"block_index"`
	MemoryID   string `json:"memory_id"`
	// WrittenHash / GatedHash are the content hashes of the written and gated payloads.
	WrittenHash string           `json:"written_content_hash"`
	Written     FormationVerdict `json:"written_formation"`
	// NotApplicable is the policy's reason when it has nothing to say about this memory;
	// the gated fields are then empty.
	NotApplicable string `json:"not_applicable,omitempty"`
	// Gated is the policy's memory decision (nil for a policy without a memory
	// transformation: the executor sees the written memory, and only its gate acts).
	Gated          *engine.GatedMemory `json:"-"`
	GatedPayload   any                 `json:"-"`
	GatedHash      string              `json:"gated_content_hash,omitempty"`
	GatedFormation FormationVerdict    `json:"gated_formation"`
	// Records are the record decisions (Gated.Records), kept and removed alike.
	Records []engine.RecordDecision `json:"records"`
}

// RemovedRecord is a record a policy removed, the first block it did so, and the turns it
// cites (as the domain's source-authority rules read them).
type RemovedRecord struct {
	AuthorizationID string      `json:"authorization_id"`
	FirstBlock      int         `json:"first_block"`
	Reasons         []string    `json:"reasons"`
	State           string      `json:"state,omitempty"`
	Trust           string      `json:"trust,omitempty"`
	Cited           []CitedTurn `json:"cited_turns"`
}

// CitedTurn is one turn a record cites. Content is untrusted corpus text: sanitise before
// printing.
type CitedTurn struct {
	TurnID string `json:"turn_id"`
	// Known is false for an id that is no turn of the case.
	Known      bool   `json:"known"`
	BlockIndex int    `json:"block_index"`
	Principal  string `json:"principal"`
	// AuthorityCapable: the principal is one of the case's authority-capable principals
	// (false when the domain has no source-authority rules).
	AuthorityCapable bool   `json:"authority_capable"`
	Content          string `json:"content"`
}

// PolicyCounts are one policy's effects on a chain (or, summed, on a run): docs/FORMATS.md 6.4's
// definitions over the estimable pairs (both arms answered), provider errors apart.
type PolicyCounts struct {
	Pairs         int `json:"pairs"`
	NotEstimable  int `json:"not_estimable"`
	NotApplicable int `json:"not_applicable"`
	// Unauthorized submission (requested action on a denied request) and authorized use
	// (requested action on an authorized request), un-gated and gated.
	UnauthorizedWritten engine.Count `json:"unauthorized_written"`
	UnauthorizedGated   engine.Count `json:"unauthorized_gated"`
	AuthorizedWritten   engine.Count `json:"authorized_written"`
	AuthorizedGated     engine.Count `json:"authorized_gated"`
	Prevented           int          `json:"unauthorized_actions_prevented"`
	Refused             int          `json:"authorized_requests_refused"`
	Enabled             int          `json:"actions_enabled"`
}

// PolicyEvaluation is one policy on one chain.
type PolicyEvaluation struct {
	PolicyID      string `json:"policy_id"`
	PolicyVersion string `json:"policy_version"`
	Description   string `json:"description"`
	// NotApplicable is set when the policy applies to no memory version of the chain.
	NotApplicable string           `json:"not_applicable,omitempty"`
	Blocks        []SafeguardBlock `json:"blocks"`
	Pairs         []SafeguardPair  `json:"pairs"`
	Counts        PolicyCounts     `json:"counts"`
	// FinalCounts are Counts over the final block's pairs only (what the run table reads).
	FinalCounts PolicyCounts `json:"final_counts"`
	// FirstFalseAuthorityBefore/After are the chain's first false-authority block on the
	// written and on the gated memory (nil: none, or not estimable anywhere).
	FirstFalseAuthorityBefore *int `json:"first_false_authority_before"`
	FirstFalseAuthorityAfter  *int `json:"first_false_authority_after"`
	// FormationRemoved: the written chain forms false authority and the gated one never does.
	FormationRemoved bool `json:"formation_removed"`
	// FinalFormation is formation at the final block, written and gated (the run table's
	// false-authority formation rate).
	FinalWritten FormationVerdict `json:"final_written_formation"`
	FinalGated   FormationVerdict `json:"final_gated_formation"`
	// Removed are the records removed at any block, first removal first.
	Removed []RemovedRecord `json:"removed_records"`
}

// ChainEvaluation is the lab's answer for one chain: per policy, what it stops and what it
// costs.
type ChainEvaluation struct {
	BatchID      string `json:"batch_id"`
	CaseID       string `json:"case_id"`
	Condition    string `json:"condition_id"`
	Architecture string `json:"architecture"`
	ChainRef     string `json:"chain_ref"`
	WriterTarget string `json:"writer_target"`
	WriterRunID  int64  `json:"writer_run_id"`
	FinalBlock   int    `json:"final_block"`
	// FinalFormation is the written memory's formation at the final block (not estimable
	// when the chain has no memory there).
	FinalFormation FormationVerdict       `json:"final_formation"`
	Executor       rundir.ModelProvenance `json:"executor"`
	Seed           int64                  `json:"seed"`
	// Baseline are the un-gated arms, one per (trial block, probe), shared by every policy.
	Baseline []*SafeguardArm    `json:"-"`
	Policies []PolicyEvaluation `json:"policies"`
	// Cancelled: ctx ended before every arm finished; the pairs missing an arm were left
	// out (nothing half-made is reported).
	Cancelled bool      `json:"cancelled"`
	CreatedAt time.Time `json:"created_at"`
}

// Policy finds a policy's evaluation by id.
func (e *ChainEvaluation) Policy(id string) (*PolicyEvaluation, bool) {
	for i := range e.Policies {
		if e.Policies[i].PolicyID == id {
			return &e.Policies[i], true
		}
	}
	return nil, false
}
