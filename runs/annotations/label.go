// Package annotations is what a human or extractor label of a free-text memory is and how
// labels are judged: a label reads a free-text memory as a typed authorization state, bound to
// the content hash of the text it read. Only accepted labels score a memory, under EAL-Bench's
// rules (preservation._resolve_annotations, docs/FORMATS.md 7.2):
//
//   - no annotation at all                      -> unscored "missing_annotation"
//   - none accepted                             -> "annotation_not_accepted:<sorted statuses>"
//   - an accepted one read other text           -> "annotation_content_hash_mismatch"
//   - accepted states differ (canonical JSON)   -> "conflicting_accepted_annotations"
//   - else the accepted state is scored          -> scored_from "free_text_annotation"
//
// Agreement between annotators (Cohen's kappa, Krippendorff's alpha) is computed here too. The
// package is pure: runs stores labels and re-derives what they change, in its transactions.
package annotations

import (
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Score source and unscored reasons of annotated free text (EAL-Bench's names).
const (
	ScoredFreeTextAnnotation     = "free_text_annotation"
	ReasonAnnotationNotAccepted  = "annotation_not_accepted"
	ReasonAnnotationHashMismatch = "annotation_content_hash_mismatch"
	ReasonConflictingAnnotations = "conflicting_accepted_annotations"
)

// Annotation statuses. People's labels are drafts (saved field by field while editing),
// submitted (the annotator is done) or accepted (they score the memory). Imported extractor
// rows keep EAL-Bench's statuses: accepted, invalid_response, provider_error.
const (
	AnnotationDraft           = "draft"
	AnnotationSubmitted       = "submitted"
	AnnotationAccepted        = "accepted"
	AnnotationInvalidResponse = "invalid_response"
	AnnotationProviderError   = "provider_error"
)

// Annotator kinds.
const (
	AnnotatorHuman     = "human"
	AnnotatorExtractor = "extractor"
)

// Label origins.
const (
	OriginTUI          = "tui"
	OriginCLI          = "cli"
	OriginAdjudication = "adjudication"
	OriginImport       = "import"
)

// HumanExtractorVersion stands in EAL-Bench's extractor_version slot for people; it also
// enters the annotation id recipe.
const HumanExtractorVersion = "human"

// Annotation is one stored label.
type Annotation struct {
	AnnotationID      string `json:"annotation_id"`
	MemoryID          string `json:"memory_id"`
	Annotator         string `json:"annotator"`
	AnnotatorKind     string `json:"annotator_kind"`
	CreatedAt         string `json:"created_at"`
	UpdatedAt         string `json:"updated_at"`
	SchemaVersion     string `json:"schema_version"`
	SourceContentHash string `json:"source_content_hash"`
	Status            string `json:"status"`
	Detail            string `json:"detail"`
	// State is the typed state tree ({schema_version, authorizations}); nil when an extractor
	// returned none.
	State  map[string]any `json:"state"`
	Origin string         `json:"origin"`
	// Stale: the memory's text no longer hashes to SourceContentHash, so the label read other
	// text and is not used (an accepted stale label leaves the memory unscored).
	Stale bool `json:"stale"`
}

// AnnotationID is EAL-Bench's recipe: "annotation_" + sha256(extractor_version \x1f memory_id
// \x1f extractor_model)[:24], with the annotator's name as the model.
func AnnotationID(extractorVersion, memoryID, annotator string) string {
	return "annotation_" + pyjson.SHA256Hex([]byte(extractorVersion + "\x1f" + memoryID + "\x1f" + annotator))[:24]
}
