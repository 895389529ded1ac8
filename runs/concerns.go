package runs

import (
	"context"
	"time"

	"github.com/ealscope/ealscope/runs/annotations"
)

// The workspace's storage, split by concern. Each interface is one concern's reads and
// writes with the SQLite store's own signatures, so *Store satisfies every one of them (the
// assertions at the end) and a second backend implements the concerns it serves. Callers
// above runs (the application layer in replay/workbench, the TUI) depend on these, or on
// narrower interfaces of their own built from the same methods, never on *Store; only the
// commands' wiring (cmd/ealscope) opens the SQLite store and passes it in. The contract
// every backend honours is exercised in runs/storecontract.

// RunImporter brings run directories, corpora, writer-memory files and diagnoses into the
// workspace (one transaction per path; a path that fails leaves nothing behind).
type RunImporter interface {
	Import(ctx context.Context, paths []string, opts ImportOptions) (ImportReport, error)
}

// RunCatalog is runs and chains: the runs list, one run, a run's chains (filtered, sorted,
// paged), one chain's header and a chain found by its names.
type RunCatalog interface {
	Runs(ctx context.Context) ([]RunSummary, error)
	Run(ctx context.Context, id string) (RunSummary, error)
	Chains(ctx context.Context, f ChainFilter) ([]ChainRow, error)
	ChainCount(ctx context.Context, f ChainFilter) (int, error)
	Chain(ctx context.Context, key ChainKey) (ChainHeader, error)
	FindChain(ctx context.Context, runID, caseID, condition string, writerRun *int64) (ChainRow, error)
}

// BlockReader is memories and blocks: a chain's timeline, one block's turns, the memory
// current at a block, and the probes (with their trials) scored against it.
type BlockReader interface {
	ChainBlocks(ctx context.Context, key ChainKey) ([]BlockStep, error)
	BlockTurns(ctx context.Context, ck CaseKey, block int, cite *MemoryRef) ([]Turn, error)
	MemoryAt(ctx context.Context, key ChainKey, block int) (MemoryVersion, error)
	ProbesAt(ctx context.Context, key ChainKey, block int) ([]ProbeView, error)
}

// WriterHistory is what a chain's writer did: every attempt's status per block, the
// writer's identity, and the run's written memories at the final block.
type WriterHistory interface {
	AttemptStatuses(ctx context.Context, key ChainKey) (map[int][]string, error)
	ChainWriter(ctx context.Context, key ChainKey) (ChainWriter, error)
	FinalMemories(ctx context.Context, runID string) ([]FormedMemory, error)
	MemoryAtChainBlock(ctx context.Context, key ChainKey, block int) (memoryID, architecture string, err error)
}

// ReplayArms is re-run arms: one finished arm saved, and a chain's arms (or the ones named)
// read back.
type ReplayArms interface {
	SaveReplay(ctx context.Context, in ReplayInput) error
	ReplaysForChain(ctx context.Context, key ChainKey) ([]Replay, error)
	ReplaysByID(ctx context.Context, ids []string) ([]Replay, error)
}

// ReplayStore is re-runs: what a re-run of a block reads, its arms, and the written-versus-
// exact attribution the saved arms make.
type ReplayStore interface {
	RerunSource(ctx context.Context, key ChainKey, block int) (RerunSource, error)
	ReplayArms
	AttributionForChain(ctx context.Context, key ChainKey) ([]ReplayAttribution, error)
}

// LabSource is what the safeguard lab (and the why and audience labs) read to evaluate a
// chain or a run.
type LabSource interface {
	SafeguardSource(ctx context.Context, key ChainKey) (SafeguardSource, error)
	WhySource(ctx context.Context, key ChainKey) (SafeguardSource, error)
	SafeguardChains(ctx context.Context, runID string) ([]ChainRow, error)
	RunSidecar(ctx context.Context, runID string) (source string, data []byte, ok bool, err error)
}

// LabResults is the safeguard lab's results: one chain's evaluation saved at once, and read
// back per run, per chain, per block and per pair of arms.
type LabResults interface {
	SaveSafeguards(ctx context.Context, b SafeguardBatch) error
	SafeguardRun(ctx context.Context, runID string) ([]StoredSafeguardChain, error)
	SafeguardsForChain(ctx context.Context, key ChainKey) ([]StoredSafeguard, error)
	SafeguardBlocks(ctx context.Context, key ChainKey, policyID string) ([]StoredSafeguardBlock, error)
	SafeguardPairs(ctx context.Context, key ChainKey, policyID string) ([]StoredSafeguardPair, error)
}

// AudienceLabResults is the audience lab's results (runs/audience_lab.go): a run's evaluation
// saved whole, read back per run and, its assembled contexts, per chain.
type AudienceLabResults interface {
	SaveAudienceLab(ctx context.Context, b AudienceLabBatch) error
	StoredAudienceLab(ctx context.Context, runID string) (StoredAudienceLab, bool, error)
	AudienceLabContexts(ctx context.Context, key ChainKey) ([]StoredAudienceContext, error)
}

// AnnotationLabels is the human labels of free-text memories: one annotator's label saved
// and read back, and an adjudicator's decision.
type AnnotationLabels interface {
	SaveAnnotation(ctx context.Context, in AnnotationInput) (annotations.Annotation, error)
	Adjudicate(ctx context.Context, memoryID, adjudicator string, state any, sourceHash string) (annotations.Annotation, error)
	Annotations(ctx context.Context, memoryID string) ([]annotations.Annotation, error)
}

// AnnotationWork is the annotators' work around the labels: the queues, one task, the
// agreement between annotators, and the interchange files.
type AnnotationWork interface {
	AnnotationQueue(ctx context.Context, queue, annotator, runID string) ([]AnnotationItem, error)
	AnnotationTaskOf(ctx context.Context, memoryID string) (AnnotationTask, error)
	Agreement(ctx context.Context, runID string) (annotations.AgreementReport, error)
	ExportAnnotations(ctx context.Context, runID, dir, command string) (ExportReport, error)
	ImportAnnotations(ctx context.Context, dir string, opts ImportAnnotationsOptions) (ImportAnnotationsReport, error)
}

// DiagnosisStore is the judges' diagnoses of writer chains: a diagnosis file imported, and
// the diagnoses of one chain at one block.
type DiagnosisStore interface {
	ImportDiagnosis(ctx context.Context, path string) (PathResult, error)
	Diagnoses(ctx context.Context, caseID, conditionID string, writerRunID int64, block int) ([]Diagnosis, error)
}

// TextSearch is the workspace's full-text search over turn text and free-text memories.
type TextSearch interface {
	Search(ctx context.Context, query string, limit int) ([]SearchHit, error)
}

// RunReports are the per-run reports the headless commands print: the summary, the trials
// whose stored decision the rescoring does not reproduce, the event log and its comparisons,
// the model calls' token costs, and the table export.
type RunReports interface {
	Summary(ctx context.Context, runID string) (SummaryDoc, error)
	Disagreements(ctx context.Context, runID string) ([]Disagreement, error)
	EventLog(ctx context.Context, runID, caseID string) ([]LoggedEvent, error)
	RepresentationMetrics(ctx context.Context, runID string) ([]RepresentationRow, RepresentationSummary, error)
	EventSourcingPairs(ctx context.Context, runID string) ([]EventSourcingPair, EventSourcingComparison, error)
	ModelCallCosts(ctx context.Context, runID string) ([]ModelCallCost, error)
	BeginTableExport(ctx context.Context, runIDs []string) (*TableExport, error)
}

// Workspace is the workspace itself: where it lives, its schema, its integrity, how long a
// writer waits for another's lock, and closing it.
type Workspace interface {
	Path() string
	SchemaVersion(ctx context.Context) (int, error)
	CheckIntegrity(ctx context.Context) error
	SetWriteWait(limit time.Duration, note func(waited time.Duration))
	Close() error
}

var (
	_ RunImporter        = (*Store)(nil)
	_ RunCatalog         = (*Store)(nil)
	_ BlockReader        = (*Store)(nil)
	_ WriterHistory      = (*Store)(nil)
	_ ReplayStore        = (*Store)(nil)
	_ LabSource          = (*Store)(nil)
	_ LabResults         = (*Store)(nil)
	_ AudienceLabResults = (*Store)(nil)
	_ AnnotationLabels   = (*Store)(nil)
	_ AnnotationWork     = (*Store)(nil)
	_ DiagnosisStore     = (*Store)(nil)
	_ TextSearch         = (*Store)(nil)
	_ RunReports         = (*Store)(nil)
	_ Workspace          = (*Store)(nil)
)
