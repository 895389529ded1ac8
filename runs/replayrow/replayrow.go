// Package replayrow holds the one row type of a re-run arm, Arm, shared by the layer that
// makes arms (replay: a live re-run's RerunResult, the safeguard lab's SafeguardArm) and the
// layer that stores them (runs.ReplayInput): the arm's place in its batch, the memory the
// executor was shown and the record of the trial. replay names the last two RerunMemory and
// ArmRecord. No layer copies one into another field by field. It depends on engine and
// runs/rundir only.
package replayrow

import (
	"fmt"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Memory is the memory one arm shows the executor.
type Memory struct {
	Variant string
	// Architecture is engine.ArchTyped or ArchFreeText: how the payload is shown (typed payloads as
	// canonical JSON, free text as is), exactly as the chain's evidence showed it.
	Architecture string
	// Payload is a free-text string or a typed payload tree (json.Number leaves).
	Payload any
	// ContentHash is EAL-Bench's content_hash of the payload.
	ContentHash string
	// Source says where the payload came from: a memory id, "oracle@block K", a file path.
	Source string
}

// Text is the payload as the executor reads it (and as a diff shows it).
func (m Memory) Text() string {
	if s, ok := m.Payload.(string); ok {
		return s
	}
	s, err := pyjson.CanonicalJSON(m.Payload)
	if err != nil {
		return fmt.Sprint(m.Payload)
	}
	return s
}

// Record is what a replay row stores of one executor trial, a live re-run's arm or a
// safeguard lab's alike: the request sent, the reply and its score.
type Record struct {
	// Executor is the route's provenance (provenance, never part of the arm's key); the
	// response model is filled in when the call succeeded.
	Executor    rundir.ModelProvenance
	Messages    []engine.ChatMessage
	Tools       []any
	RequestHash string
	// Response is the raw reply as the scorer read it (ProviderError set on failure).
	Response  engine.Response
	Usage     any
	Attempts  int
	LatencyMS int64
	Outcome   engine.Outcome
	// MemoryFormed and FormationEstimable: does this arm's memory form false authority for
	// the probe at the block.
	MemoryFormed       bool
	FormationEstimable bool
	// Gate is the policy's action-gate verdict (nil: no policy or gate, or no action to gate).
	Gate *engine.GateDecision
}

// Arm is one finished arm: where it sits (its replay id, batch, block, probe, repetition and
// seed), the memory shown, the trial's record, and when it finished.
type Arm struct {
	ReplayID   string
	BatchID    string
	BlockIndex int
	ProbeID    string
	Repetition int
	Seed       int64
	Memory     Memory
	// Record's formation verdict is this arm's memory's for the probe at the block.
	Record
	CreatedAt time.Time
}
