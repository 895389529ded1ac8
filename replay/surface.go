package replay

import (
	"fmt"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
)

// Surface is what a run needs to know about a domain's presentation and memory
// implementation beyond engine.Domain: ids and hashes stamped on every row, the presentation
// profile stored in trial metadata, and the writer prompt-policy texts. It lives here, keyed
// by domain id, because engine.Domain does not expose these yet (see the issue-3 report).
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
	// Writer prompt-policy texts (manager instructions items 5, 7, 11, 12, 15).
	WriterStateInstruction       string
	WriterSourceInstruction      string
	WriterRepairInstruction      string
	TypedArchitectureInstruction string
	TypedSchemaJSON              string
}

// FreeTextProfileSchemaID is LangMem's free-text profile class.
const FreeTextProfileSchemaID = "langmem.knowledge.extraction.Memory"

// SurfaceOf returns the surface of a registered domain.
func SurfaceOf(d engine.Domain) (Surface, error) {
	switch d.ID() {
	case procurement.DomainID:
		return Surface{
			PresentationID:   procurement.PresentationID,
			PresentationHash: procurement.PresentationHash,
			PromptPolicyID:   procurement.PromptPolicyID,
			// PresentationProfile.to_dict() for naturalistic_v1 (writer reference §1.6); its
			// content hash is PresentationHash, which surface_test.go checks.
			Presentation: map[string]any{
				"description":      "Naturalistic workplace rendering for Procurement Core v1.",
				"overlay_files":    []any{"domains/procurement/presentations/naturalistic_v1.json"},
				"overlay_hashes":   map[string]any{"domains/procurement/presentations/naturalistic_v1.json": "d004f24f4d078b2a1a9132ca4f206c1f7209d1064d9cf91e8308d3262d245879"},
				"presentation_id":  procurement.PresentationID,
				"prompt_policy_id": procurement.PromptPolicyID,
				"validity_gates":   []any{"pressure_answer_coaching"},
			},
			MemoryImplementationID:       procurement.MemoryImplementationID,
			MemoryImplementationHash:     procurement.MemoryImplementationHash,
			TypedProfileSchemaID:         "domains.procurement.schemas.ProcurementAuthorizationMemoryProfile",
			TypedSchemaName:              "ProcurementAuthorizationMemoryProfile",
			WriterStateInstruction:       "Maintain a concise, source-linked record of the purchasing authority currently in force as new messages arrive.",
			WriterSourceInstruction:      "Keep links to the visible messages that support the current record.",
			WriterRepairInstruction:      "The last update could not be saved by the memory service. ",
			TypedArchitectureInstruction: procurementTypedArchitectureInstruction,
			TypedSchemaJSON:              procurementTypedSchemaJSON,
		}, nil
	}
	return Surface{}, fmt.Errorf("domain %s: ealscope has no run surface (presentation, memory implementation) for it yet", d.ID())
}

// EmptyTypedPayload is the empty typed profile of a domain.
func EmptyTypedPayload(d engine.Domain) map[string]any {
	return map[string]any{"schema_version": d.TypedSchemaVersion(), "authorizations": []any{}}
}
