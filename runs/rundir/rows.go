// Package rundir reads, verifies and writes run directories in EAL-Bench's layout
// (manifest.json plus JSONL artifacts, docs/FORMATS.md §5). ealscope's own runs use the same layout
// so one importer serves both.
package rundir

import "github.com/ealscope/ealscope/engine"

// Artifact file names (without .jsonl) and their row schema versions.
const (
	Memories       = "memories"
	MemoryAttempts = "memory_attempts"
	MemoryStates   = "memory_states"
	Evidence       = "evidence"
	Trials         = "trials"
	ModelContexts  = "model_contexts"
	Calls          = "calls"
	ExecutorPlan   = "executor_plan"
	// Faults is ealscope's own artifact: one row per fault the scripted writer injected.
	Faults = "faults"
)

// SchemaVersions are the row schema_version values ealscope writes and the importer accepts
// for each artifact (EAL-Bench's ARTIFACT_SCHEMA_VERSIONS plus ours). calls.jsonl rows carry
// no schema_version.
var SchemaVersions = map[string]int{
	Memories: 4, MemoryAttempts: 6, MemoryStates: 3, Evidence: 3, Trials: 5, ModelContexts: 1,
	ExecutorPlan: 1, Faults: 1,
	"writer_model_contexts": 1, "writer_bundle_memories": 4, "writer_bundle_evidence": 3,
	"fidelity": 2, "interventions": 2, "substantive_eligibility": 2, "witnesses": 2,
	"pressure_source_jobs": 1, "memory_annotations": 1,
}

// ModelProvenance identifies the model route behind a writer or executor call.
type ModelProvenance struct {
	TargetID            string         `json:"target_id"`
	Provider            string         `json:"provider"`
	RequestedModel      string         `json:"requested_model"`
	ResolvedModel       string         `json:"resolved_model"`
	ResponseModel       *string        `json:"response_model"`
	EffectiveParameters map[string]any `json:"effective_parameters"`
}

// MemoryArtifact is one memories.jsonl row (schema_version 4).
type MemoryArtifact struct {
	MemoryID                 string           `json:"memory_id"`
	ParentMemoryID           *string          `json:"parent_memory_id"`
	ChainID                  string           `json:"chain_id"`
	DomainID                 string           `json:"domain_id"`
	CaseID                   string           `json:"case_id"`
	ConditionID              string           `json:"condition_id"`
	BlockIndex               int              `json:"block_index"`
	WriterRunID              *int             `json:"writer_run_id"`
	WriterSeed               *int64           `json:"writer_seed"`
	Writer                   *ModelProvenance `json:"writer"`
	Architecture             string           `json:"architecture"`
	Origin                   string           `json:"origin"`
	PayloadSchemaID          *string          `json:"payload_schema_id"`
	PayloadSchemaVersion     *string          `json:"payload_schema_version"`
	Payload                  any              `json:"payload"`
	ReferenceTokens          int              `json:"reference_tokens"`
	ReferenceTokenizer       string           `json:"reference_tokenizer"`
	ContentHash              string           `json:"content_hash"`
	PresentationID           string           `json:"presentation_id"`
	PresentationHash         string           `json:"presentation_hash"`
	MemoryImplementationID   *string          `json:"memory_implementation_id"`
	MemoryImplementationHash *string          `json:"memory_implementation_hash"`
	ProfileID                *string          `json:"profile_id"`
	SourceAttemptID          *string          `json:"source_attempt_id"`
	FrameworkRunIDs          []string         `json:"framework_run_ids"`
	Framework                map[string]any   `json:"framework"`
	SchemaVersion            int              `json:"schema_version"`
}

// MemoryAttempt is one memory_attempts.jsonl row (schema_version 6).
type MemoryAttempt struct {
	AttemptID                string           `json:"attempt_id"`
	LogicalUpdateID          string           `json:"logical_update_id"`
	AttemptIndex             int              `json:"attempt_index"`
	RepairOfAttemptID        *string          `json:"repair_of_attempt_id"`
	DomainID                 string           `json:"domain_id"`
	CaseID                   string           `json:"case_id"`
	ConditionID              string           `json:"condition_id"`
	BlockIndex               int              `json:"block_index"`
	WriterRunID              int              `json:"writer_run_id"`
	WriterSeed               int64            `json:"writer_seed"`
	Architecture             string           `json:"architecture"`
	Writer                   *ModelProvenance `json:"writer"`
	ParentMemoryID           *string          `json:"parent_memory_id"`
	Status                   string           `json:"status"`
	Detail                   *string          `json:"detail"`
	RawArguments             any              `json:"raw_arguments"`
	AcceptedMemoryID         *string          `json:"accepted_memory_id"`
	RetainedMemoryID         *string          `json:"retained_memory_id"`
	MemoryImplementationHash string           `json:"memory_implementation_hash"`
	PresentationID           string           `json:"presentation_id"`
	PresentationHash         string           `json:"presentation_hash"`
	MemoryImplementationID   string           `json:"memory_implementation_id"`
	ProfileID                string           `json:"profile_id"`
	ProfileSchemaID          string           `json:"profile_schema_id"`
	PayloadSchemaID          *string          `json:"payload_schema_id"`
	PayloadSchemaVersion     *string          `json:"payload_schema_version"`
	FrameworkRunIDs          []string         `json:"framework_run_ids"`
	Framework                map[string]any   `json:"framework"`
	CandidatePayload         any              `json:"candidate_payload"`
	Changed                  *bool            `json:"changed"`
	SchemaVersion            int              `json:"schema_version"`
}

// MemoryState is one memory_states.jsonl row (schema_version 3).
type MemoryState struct {
	StateID                  string   `json:"state_id"`
	LogicalUpdateID          string   `json:"logical_update_id"`
	AttemptIDs               []string `json:"attempt_ids"`
	DomainID                 string   `json:"domain_id"`
	CaseID                   string   `json:"case_id"`
	ConditionID              string   `json:"condition_id"`
	BlockIndex               int      `json:"block_index"`
	WriterRunID              int      `json:"writer_run_id"`
	WriterSeed               int64    `json:"writer_seed"`
	Architecture             string   `json:"architecture"`
	ProfileID                string   `json:"profile_id"`
	CurrentMemoryID          *string  `json:"current_memory_id"`
	Status                   string   `json:"status"`
	Changed                  bool     `json:"changed"`
	MemoryImplementationHash string   `json:"memory_implementation_hash"`
	PresentationID           string   `json:"presentation_id"`
	PresentationHash         string   `json:"presentation_hash"`
	MemoryImplementationID   string   `json:"memory_implementation_id"`
	SchemaVersion            int      `json:"schema_version"`
}

// FrozenEvidence is one evidence.jsonl row (schema_version 3).
type FrozenEvidence struct {
	EvidenceID               string           `json:"evidence_id"`
	DomainID                 string           `json:"domain_id"`
	CaseID                   string           `json:"case_id"`
	ConditionID              string           `json:"condition_id"`
	MemoryRunID              int              `json:"memory_run_id"`
	WriterSeed               *int64           `json:"writer_seed"`
	Writer                   *ModelProvenance `json:"writer"`
	Architecture             *string          `json:"architecture"`
	MemoryID                 *string          `json:"memory_id"`
	Payload                  any              `json:"payload"`
	SourceHistory            *string          `json:"source_history"`
	ContentHash              string           `json:"content_hash"`
	PresentationID           string           `json:"presentation_id"`
	PresentationHash         string           `json:"presentation_hash"`
	MemoryImplementationID   *string          `json:"memory_implementation_id"`
	MemoryImplementationHash *string          `json:"memory_implementation_hash"`
	ProfileID                *string          `json:"profile_id"`
	SourceAttemptID          *string          `json:"source_attempt_id"`
	SchemaVersion            int              `json:"schema_version"`
}

// TrialMetadata is NormalizedTrial.metadata: exactly the core, study and domain namespaces.
type TrialMetadata struct {
	Core   map[string]any `json:"core"`
	Study  map[string]any `json:"study"`
	Domain map[string]any `json:"domain"`
}

// NormalizedTrial is one trials.jsonl row (schema_version 5).
type NormalizedTrial struct {
	DomainID             string           `json:"domain_id"`
	DomainAdapterVersion string           `json:"domain_adapter_version"`
	CaseID               string           `json:"case_id"`
	ProbeID              string           `json:"probe_id"`
	ConditionID          string           `json:"condition_id"`
	Writer               *ModelProvenance `json:"writer"`
	Executor             ModelProvenance  `json:"executor"`
	WriterRunID          int              `json:"writer_run_id"`
	WriterSeed           *int64           `json:"writer_seed"`
	ExecutorRunID        int              `json:"executor_run_id"`
	Seed                 int64            `json:"seed"`
	EvidenceID           string           `json:"evidence_id"`
	MemoryID             *string          `json:"memory_id"`
	// Outcome is the scorer's fields, declared once in engine (JSON flattens it into the row).
	engine.Outcome
	Metadata      TrialMetadata `json:"metadata"`
	SchemaVersion int           `json:"schema_version"`
}

// ApplyOutcome copies the scorer's fields into the trial row.
func (t *NormalizedTrial) ApplyOutcome(o engine.Outcome) { t.Outcome = o }

// Message is one chat message of a model context.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ModelContext is one model_contexts.jsonl row (schema_version 1).
type ModelContext struct {
	ContextID        string          `json:"context_id"`
	ContentHash      string          `json:"content_hash"`
	Stage            string          `json:"stage"`
	DomainID         string          `json:"domain_id"`
	CaseID           string          `json:"case_id"`
	ConditionID      string          `json:"condition_id"`
	BlockIndex       *int            `json:"block_index"`
	ProbeID          *string         `json:"probe_id"`
	WriterRunID      *int            `json:"writer_run_id"`
	ExecutorRunID    *int            `json:"executor_run_id"`
	MemoryID         *string         `json:"memory_id"`
	MemoryAttemptID  *string         `json:"memory_attempt_id"`
	EvidenceID       *string         `json:"evidence_id"`
	TrialID          *string         `json:"trial_id"`
	CallID           string          `json:"call_id"`
	FrameworkRunID   *string         `json:"framework_run_id"`
	Messages         []Message       `json:"messages"`
	Tools            []any           `json:"tools"`
	ToolChoice       any             `json:"tool_choice"`
	Model            ModelProvenance `json:"model"`
	PresentationID   string          `json:"presentation_id"`
	PresentationHash string          `json:"presentation_hash"`
	Metadata         map[string]any  `json:"metadata"`
	SchemaVersion    int             `json:"schema_version"`
}

// ExecutorPlanRow is one executor_plan.jsonl row (schema_version 1).
type ExecutorPlanRow struct {
	SchemaVersion    int             `json:"schema_version"`
	CallID           string          `json:"call_id"`
	TrialID          string          `json:"trial_id"`
	JobID            string          `json:"job_id"`
	CaseID           string          `json:"case_id"`
	ProbeID          string          `json:"probe_id"`
	ConditionID      string          `json:"condition_id"`
	EvidenceID       string          `json:"evidence_id"`
	MemoryID         *string         `json:"memory_id"`
	ExecutorTargetID string          `json:"executor_target_id"`
	ExecutorRunID    int             `json:"executor_run_id"`
	ExecutorSeed     int64           `json:"executor_seed"`
	PressureID       *string         `json:"pressure_id"`
	OracleBlockIndex *int            `json:"oracle_block_index"`
	Messages         []Message       `json:"messages"`
	Executor         ModelProvenance `json:"executor"`
	JobMetadata      map[string]any  `json:"job_metadata"`
}

// FaultRow is one faults.jsonl row: a fault the scripted writer injected on purpose.
type FaultRow struct {
	FaultID         string `json:"fault_id"`
	Family          string `json:"family"`
	DomainID        string `json:"domain_id"`
	CaseID          string `json:"case_id"`
	ConditionID     string `json:"condition_id"`
	WriterRunID     int    `json:"writer_run_id"`
	BlockIndex      int    `json:"block_index"`
	AuthorizationID string `json:"authorization_id"`
	Field           string `json:"field"`
	Description     string `json:"description"`
	ChainID         string `json:"chain_id"`
	MemoryID        string `json:"memory_id"`
	SchemaVersion   int    `json:"schema_version"`
}
