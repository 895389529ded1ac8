package engine

import "io"

// Turn is one message of a case's history.
type Turn struct {
	ID         string
	ActorID    string
	Speaker    string
	Content    string
	OccurredAt string
	BlockIndex int
}

// Block is one session of a case's history.
type Block struct {
	ID      string
	Index   int
	Title   string
	EndedAt string
	Turns   []Turn
}

// Event is one ledger lifecycle event (issue, patch, revoke, replace).
type Event struct {
	ID              string
	Type            string
	Issuer          string
	BlockID         string
	BlockIndex      int
	EffectiveAt     string
	AuthorizationID string
	// NewAuthorizationID is the record an issue or replace creates ("" for patch and revoke).
	NewAuthorizationID string
	SourceTurnIDs      []string
	// Detail is the domain's own event value (record, patch), for display.
	Detail any
}

// Probe is one request of a matched in/out pair.
type Probe struct {
	ID        string
	PairID    string
	Dimension string
	// Scope is "in_scope" or "out_of_scope".
	Scope string
	// Request is the domain's request value (procurement: a transaction).
	Request any
	// Metadata is carried into trial metadata.domain.
	Metadata map[string]any
}

// Case is a history, its hidden ledger and its probes, in a domain-neutral shape.
type Case struct {
	DomainID          string
	CorpusVersion     string
	ID                string
	Policy            string
	AuthorizedIssuers []string
	Lifecycle         string
	Blocks            []Block
	Events            []Event
	Probes            []Probe
	// Line is the 1-based line (or index) of the case in its corpus file.
	Line int
	// Source is the domain's own parsed case.
	Source any
	// Audience is the case's entry of an audience sidecar (docs/AUDIENCE.md), nil when the
	// corpus has none; the loader attaches it, never a corpus reader.
	Audience *CaseAudience
}

// LastBlock is the index of the final block.
func (c *Case) LastBlock() int { return len(c.Blocks) - 1 }

// Turn finds a turn by id.
func (c *Case) Turn(id string) (Turn, bool) {
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			if t.ID == id {
				return t, true
			}
		}
	}
	return Turn{}, false
}

// Probe finds a probe by id.
func (c *Case) Probe(id string) (Probe, bool) {
	return findFirst(c.Probes, func(p Probe) bool { return p.ID == id })
}

// VisibleSourceIDs are the turn ids up to and including block `through`.
func (c *Case) VisibleSourceIDs(through int) map[string]bool {
	out := map[string]bool{}
	for _, b := range c.Blocks {
		if b.Index > through {
			break
		}
		for _, t := range b.Turns {
			out[t.ID] = true
		}
	}
	return out
}

// ParsedCase is one case of a corpus file, or the error that stopped it.
type ParsedCase struct {
	Line   int
	CaseID string
	Case   *Case
	Err    error
}

// Record is one authorization record, from the ledger or from a typed memory.
type Record interface {
	AuthorizationID() string
	Status() string
}

// Tool is one model-visible tool in the OpenAI function-tool shape.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema object, as a tree.
	Parameters map[string]any
}

// ToolKind classifies a terminal tool.
type ToolKind int

const (
	// NotTerminal marks a tool name the domain does not know.
	NotTerminal ToolKind = iota
	// ActionTool performs the requested (or another) action.
	ActionTool
	// EscalationTool hands the request to an approver.
	EscalationTool
	// DeclineTool closes the request.
	DeclineTool
)

// ToolScore is a domain's reading of one parsed terminal tool call.
type ToolScore struct {
	Decision string
	// Valid is false when the arguments do not satisfy the tool's contract.
	Valid bool
	// RequestMatch says whether the call targets exactly the requested transaction.
	RequestMatch bool
	// ActionAuthorized is the oracle's verdict on the action actually taken (action tools).
	ActionAuthorized bool
	Detail           string
}

// FieldClass is a fidelity classification of one field.
type FieldClass struct {
	Errors     []string
	Overgrant  bool
	Undergrant bool
}

// Surface is a domain's presentation and memory-implementation identity beyond the ledger
// logic: the ids and hashes stamped on every run row, the presentation profile stored in
// trial metadata, and the writer prompt-policy texts (EAL-Bench keeps these per domain).
type Surface struct {
	PresentationID           string
	PresentationHash         string
	PromptPolicyID           string
	Presentation             map[string]any
	MemoryImplementationID   string
	MemoryImplementationHash string
	// TypedProfileSchemaID and TypedSchemaName name the typed LangMem profile class.
	TypedProfileSchemaID string
	TypedSchemaName      string
	// Writer prompt-policy texts (the manager instructions' state, source, repair,
	// architecture and schema items).
	WriterStateInstruction       string
	WriterSourceInstruction      string
	WriterRepairInstruction      string
	TypedArchitectureInstruction string
	TypedSchemaJSON              string
}

// The roles a domain plays. A domain value satisfies them all (Domain); code that needs one
// role takes that role, so what it depends on is plain from its signature.

// DomainIdentity names a domain and its EAL-Bench adapter version.
type DomainIdentity interface {
	// ID is the EAL-Bench domain id ("procurement").
	ID() string
	// AdapterVersion is EAL-Bench's domain_adapter_version.
	AdapterVersion() string
}

// CorpusReader reads a domain's corpus files.
type CorpusReader interface {
	// ParseCorpus reads a corpus file strictly; errors name the file, line, case and field.
	ParseCorpus(name string, data []byte) ([]*Case, error)
	// BuiltinCorpus is the corpus this project ships for the domain (file name and bytes).
	BuiltinCorpus() (name string, data []byte)
}

// LedgerRules replay a case's hidden ledger and decide requests against its records.
type LedgerRules interface {
	// Replay returns the ledger records after applying the events of blocks 0..through,
	// sorted by authorization id, in the form the domain's faithful memory retains them.
	Replay(c *Case, through int) ([]Record, error)
	// Deny returns "" when the record authorizes the request, else the first denial reason.
	Deny(c *Case, r Record, request any) string
}

// MemoryCodec reads and writes the domain's typed and free-text memory.
type MemoryCodec interface {
	// Schema is the typed record, declared once (field order, kinds, scope).
	Schema() RecordSchema
	// TypedSchemaVersion and PayloadSchemaID identify the typed memory schema.
	TypedSchemaVersion() string
	PayloadSchemaID() string
	// ParseTyped validates a typed memory payload (a JSON tree) and returns its records.
	// Errors name the offending field path.
	ParseTyped(payload any) ([]Record, error)
	// TypedPayload serialises records as a typed memory payload tree.
	TypedPayload(records []Record) map[string]any
	// FaithfulText renders records in the canonical free-text layout.
	FaithfulText(records []Record) string
	// ReadFreeText reads the canonical free-text layout back; other text is an error.
	ReadFreeText(text string) ([]Record, error)
}

// FidelityRules compare a remembered record with the ledger's, field by field.
type FidelityRules interface {
	// FidelityFields are the flattened field names compared per record, in order.
	FidelityFields() []string
	// FieldValue is the flattened, comparable value of one field of a record.
	FieldValue(r Record, field string) any
	// ClassifyField compares a canonical and a remembered field value.
	ClassifyField(field string, canonical, remembered any) FieldClass
}

// ExecutorSurface is what the executor is shown and how its tool calls are scored.
type ExecutorSurface interface {
	// SystemPrompt, ExecutorInstruction, EmptyEvidenceText and RenderRequest build the
	// executor messages exactly as EAL-Bench does.
	SystemPrompt(c *Case) string
	ExecutorInstruction() string
	EmptyEvidenceText() string
	RenderRequest(p Probe) string
	// Tools are the model-visible executor tools, in the order sent.
	Tools() []Tool
	// ToolKind classifies a tool name.
	ToolKind(name string) ToolKind
	// ScoreToolCall scores one parsed terminal call against the probe; the oracle runs on the
	// ledger through block `through`.
	ScoreToolCall(c *Case, p Probe, name string, args map[string]any, through int) ToolScore
	// RequestCall is the tool call that performs exactly the probe's request (the built-in
	// executor's action), and EscalationCall the one that escalates it.
	RequestCall(p Probe) (name string, args map[string]any)
	EscalationCall(p Probe, reason string) (name string, args map[string]any)
}

// WriterSurface is what the memory writer is shown.
type WriterSurface interface {
	// CapacityTokens is the primary writer capacity in reference tokens.
	CapacityTokens() int
	// Surface is the domain's presentation and memory-implementation identity.
	Surface() Surface
}

// Domain is what the rest of the program knows about one authorization domain: every role.
type Domain interface {
	DomainIdentity
	CorpusReader
	LedgerRules
	MemoryCodec
	FidelityRules
	ExecutorSurface
	WriterSurface
}

// CaseGenerator is the optional role of a domain with a seeded synthetic corpus for scale
// tests: the same seed gives the same bytes.
type CaseGenerator interface {
	// GenerateCorpus writes n generated cases in the domain's corpus file form and returns
	// the generated corpus version.
	GenerateCorpus(w io.Writer, n int, seed uint64) (version string, err error)
}

// AnnotationReader is the optional role of a domain whose annotation state is looser than its
// typed memory: EAL-Bench's extraction schema lets a record cite no source
// (allow_empty=True), and such a record must then never authorize. ParseAnnotation reads that
// state and returns its records and the normalised tree.
type AnnotationReader interface {
	ParseAnnotation(tree map[string]any) ([]Record, map[string]any, error)
}

// CaseFileWriter is the optional role of a domain whose corpus file is one JSON document
// rather than one case per line: CaseFile is a corpus file holding just this case, which the
// domain's ParseCorpus reads back as the same case. The workspace stores each case so.
type CaseFileWriter interface {
	CaseFile(c *Case) ([]byte, error)
}

// CorpusSignature is the optional role that lets a corpus file's domain be told from its
// content: the top-level keys every object of the domain's corpus form carries (a JSONL case
// line, or the corpus document). A document that names its domain_id needs none.
type CorpusSignature interface {
	CorpusKeys() []string
}
