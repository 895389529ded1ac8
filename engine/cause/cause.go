// Package cause says why false authority formed: for one failure (a chain, the block where
// the error entered, a request the memory wrongly authorizes) it gives the cause in
// EAL-Bench's taxonomy, the turns behind it ranked with their evidence, the ledger events the
// memory failed to apply, whether the error entered at the block or was carried, and one
// sentence built from that evidence. It is pure: it reads the case, the ledger through the
// domain's roles, the memory before and after the block when there is one, and the writer's
// attempt statuses. The rules are documented in docs/CAUSES.md.
package cause

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// The cause classes of EAL-Bench's diagnosis (docs/CAUSES.md).
const (
	RestatementApplied            = "restatement_applied"
	OwnActionAsApproval           = "own_action_as_approval"
	AuthoritativeChangeMisapplied = "authoritative_change_misapplied"
	UpdateFailed                  = "update_failed"
	Other                         = "other"
)

// Classes lists the taxonomy in EAL-Bench's order.
var Classes = []string{RestatementApplied, OwnActionAsApproval, AuthoritativeChangeMisapplied, UpdateFailed, Other}

// Roles a ranked turn plays in the failure.
const (
	// RoleMisleading is a turn the writer wrongly followed (its speaker cannot grant).
	RoleMisleading = "misleading"
	// RoleOwnAction is one of the agent's own written-back action lines taken as a grant.
	RoleOwnAction = "own_action"
	// RoleMisapplied is an authoritative turn whose change the memory skipped or mis-copied.
	RoleMisapplied = "misapplied"
	// RoleNotApplied is an authoritative turn of a block whose update did not land.
	RoleNotApplied = "not_applied"
)

// Input is one failure and what is known about it.
type Input struct {
	Domain engine.Domain
	Case   *engine.Case
	// Block is where the error entered: the chain's first false-authority block for the
	// request, or a diagnosis row's error_block.
	Block int
	// Request is the domain's request value the memory wrongly authorizes (nil when only its
	// fields are known). RequestFields are its fields as a tree (a diagnosis row's request);
	// when nil they come from the domain (RequestReader).
	Request       any
	RequestFields map[string]any
	// Probe is the probe the request belongs to ("" when unknown), and RequestKind its course
	// ("submitted" or "alternative").
	Probe       string
	RequestKind string
	// Attempts are the writer's attempt statuses at the block, in order.
	Attempts []string
	// HaveMemory says Before and After are known: the typed records before the block (nil:
	// no earlier version) and after it. Without them the attribution works from the history,
	// the request and the attempt statuses alone, and says so.
	HaveMemory    bool
	Before, After []engine.Record
	// HaveBefore says there was a memory version before the block (Before may be empty).
	HaveBefore bool
	// Cache, when set (for this case), keeps turn and ledger readings across failures.
	Cache *Cache
}

// Evidence is one reason a turn is ranked.
type Evidence struct {
	// Kind is one of the Ev* constants; Text says it for people.
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// The kinds of evidence.
const (
	EvCannotGrant   = "cannot_grant"
	EvStatesTaken   = "states_taken_value"
	EvStatesRequest = "states_request_value"
	EvNamesRecord   = "names_record"
	EvCitedByMemory = "cited_by_memory"
	EvRelay         = "relay_or_status_line"
	EvOwnAction     = "own_action_line"
	EvLedgerSource  = "ledger_source"
	EvMisapplied    = "change_misapplied"
	EvNotApplied    = "update_did_not_land"
	EvAblation      = "ablation"
)

// Cause is one ranked turn.
type Cause struct {
	Rank     int        `json:"rank"`
	Role     string     `json:"role"`
	TurnID   string     `json:"turn_id"`
	Speaker  string     `json:"speaker"`
	Block    int        `json:"block"`
	Score    int        `json:"score"`
	Evidence []Evidence `json:"evidence"`
	// Change names what the memory got wrong through this turn ("valid_until of auth_x
	// written as ...; the ledger's issue says ..."), when the memory is known.
	Change string `json:"change,omitempty"`
	// Record is the granting record whose wrong value the turn stands behind ("" when the
	// memory is not known).
	Record string `json:"record,omitempty"`
	// Ablation is set once the turn has been removed and the writer re-run.
	Ablation *Ablation `json:"ablation,omitempty"`
}

// JointAblation is the outcome of withholding several turns together: the first-ranked turn
// behind each record that grants the request, when no one of them alone stops the failure.
type JointAblation struct {
	TurnIDs  []string `json:"turn_ids"`
	Ablation Ablation `json:"ablation"`
}

// Ablation is the outcome of re-running the writer without one turn.
type Ablation struct {
	// Status is "stops" (the failure no longer forms), "still_forms", or "not_estimable".
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Granting are the records of the re-run memory that still grant the request, and
	// Masked says none of them granted it in the memory as written: removing the turns
	// exposed another error the writer had made, which the written memory masked.
	Granting []string `json:"granting,omitempty"`
	Masked   bool     `json:"masked,omitempty"`
}

// Ablation statuses.
const (
	AblationStops        = "stops"
	AblationStillForms   = "still_forms"
	AblationNotEstimable = "not_estimable"
)

// Ignored is a ledger event the memory failed to apply.
type Ignored struct {
	EventID         string   `json:"event_id"`
	Type            string   `json:"type"`
	AuthorizationID string   `json:"authorization_id"`
	Block           int      `json:"block"`
	SourceTurnIDs   []string `json:"source_turn_ids"`
	// Field is the field the memory gets wrong after the event ("" for the whole record).
	Field string `json:"field,omitempty"`
}

// Attribution is the answer for one failure.
type Attribution struct {
	Class string `json:"cause"`
	// Causes are the turns behind the failure, best first.
	Causes []Cause `json:"causes"`
	// Misleading are the ids of the misleading turns, best first (what a diagnosis row's
	// misleading_message_ids holds).
	Misleading []string  `json:"misleading_message_ids"`
	Ignored    []Ignored `json:"ignored"`
	// IgnoredTurns are the source turns of Ignored, in order, once each.
	IgnoredTurns []string `json:"ignored_message_ids"`
	EnteredHere  bool     `json:"error_entered_here"`
	Explanation  string   `json:"explanation"`
	// Basis is "memory" or "history" (no memory: the history, request and statuses alone).
	Basis string `json:"basis"`
	// Changes are what the memory holds that the ledger does not, on the records that grant.
	Changes []Change `json:"changes,omitempty"`
	// Joint is set when the failure is overdetermined and the turns behind every granting
	// record were withheld together.
	Joint *JointAblation `json:"joint_ablation,omitempty"`
	// Block and Attempts are the failure's error block and the writer's attempt statuses there.
	Block    int      `json:"block"`
	Attempts []string `json:"attempt_statuses"`
	landed   bool
}

// Bases.
const (
	BasisMemory  = "memory"
	BasisHistory = "history"
)

// Change is one wrong field of a memory record that grants the request.
type Change struct {
	AuthorizationID string `json:"authorization_id"`
	// Field is the field path, or "" for a record the ledger does not hold (or no longer
	// holds active).
	Field  string `json:"field"`
	Memory string `json:"memory"`
	Ledger string `json:"ledger"`
	// Here says the memory took the value at this block (it held something else before, or
	// there was no memory before).
	Here bool `json:"here"`
	// Stale says the value is one the ledger itself held at an earlier block (a change the
	// principal made since was not applied).
	Stale bool `json:"stale"`
}

// Text says the change for people.
func (c Change) Text() string {
	switch {
	case c.Field == "" && c.Ledger == "":
		return fmt.Sprintf("%s, a record the ledger never held", c.AuthorizationID)
	case c.Field == "":
		return fmt.Sprintf("%s kept as a grant (the ledger: %s)", c.AuthorizationID, c.Ledger)
	}
	return fmt.Sprintf("%s of %s written as %s (the ledger: %s)", c.Field, c.AuthorizationID, c.Memory, c.Ledger)
}

// RequestReader is the optional role of a domain whose requests can be read field by field:
// the fields of a probe's request for a course ("submitted" or "alternative"), as a tree
// (nil when the probe has no such course).
type RequestReader interface {
	RequestFields(p engine.Probe, kind string) map[string]any
}

// Top is the first-ranked cause, or nil.
func (a Attribution) Top() *Cause {
	if len(a.Causes) == 0 {
		return nil
	}
	return &a.Causes[0]
}
