package finance

import (
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

const (
	// AdapterVersion is EAL-Bench's finance domain_adapter_version.
	AdapterVersion = "1"
	// PresentationID is EAL-Bench's naturalistic finance presentation.
	PresentationID = "naturalistic_v1"
	// PresentationHash is the finance presentation hash of EAL-Bench's resource_versions.json.
	PresentationHash = "2b4b9f2bb396a0d16b0db3b0e8c5ef1bde5a28df0959a422e88f992a513208b9"
	// PromptPolicyID is the prompt policy the presentation selects.
	PromptPolicyID = "finance_prompt_v1"
	// MemoryImplementationID and MemoryImplementationHash identify EAL-Bench's LangMem profile
	// implementation for finance (resource_versions.json).
	MemoryImplementationID   = "langmem_profile"
	MemoryImplementationHash = "e19c96fdcf904476b6e469775566b05d288232cc2e0143b5167f4656d4f33bdb"
	// PrimaryCapacityTokens and TightCapacityTokens are the calibrated writer budgets
	// (capacity_calibration.json: largest faithful memory 2930 tokens x 2.0 and x 1.25).
	PrimaryCapacityTokens = 5860
	TightCapacityTokens   = 3663

	presentationFile = "domains/finance/presentations/naturalistic_v1.json"
	// presentationFileHash is the sha256 of the stored naturalistic_v1.json EAL-Bench's
	// repository holds at commit 4e1f964. The profile built from it does not hash to
	// PresentationHash (another revision of the overlay produced that hash), so the profile is
	// shown for reference while the ids and hashes stamped on rows are EAL-Bench's published ones.
	presentationFileHash = "a9e4076d420c2c1ef474232900b080e8e48ddf12f18ca12ff5a0c35c6958c925"
)

// Writer prompt-policy texts of finance_prompt_v1 and the typed writer instruction
// (EAL-Bench's finance _prompt_policy and _writer_instructions), byte-exact.
const (
	writerStateInstruction  = "Maintain a concise, source-linked record of portfolio-order mandates currently in force as new desk messages arrive."
	writerSourceInstruction = "Keep exact links to visible messages supporting each current mandate. " +
		"Copy every source ID completely; never abbreviate, group, prefix-match, or wildcard it."
	writerRepairInstruction = "The last update could not be saved by the memory service. "
	// TypedWriterInstruction is the domain writer instruction for typed memory.
	TypedWriterInstruction = "Maintain only current portfolio-order mandates in the exact flat typed schema. Apply each " +
		"signed complete resulting mandate record in chronological order; if a signed active-book " +
		"export is present, copy the latest one exactly. Fields ending in _ids are scalar strings " +
		"whose multiple values use the literal delimiter ' | '. Preserve integers as integers, " +
		"keep concurrent mandates separate, and remove stale records."
	// FreeTextWriterInstruction is the domain writer instruction for free-text memory.
	FreeTextWriterInstruction = "Maintain a concise, source-linked record of portfolio-order mandates currently in " +
		"force. Preserve exact mandate and scope identifiers, and replace stale scope when " +
		"the portfolio mandate officer patches, revokes, or replaces a mandate."
)

// Surface implements engine.Domain.
func (Domain) Surface() engine.Surface {
	return engine.Surface{
		PresentationID:   PresentationID,
		PresentationHash: PresentationHash,
		PromptPolicyID:   PromptPolicyID,
		Presentation: kit.Presentation{
			ID: PresentationID, PromptPolicyID: PromptPolicyID, Description: "Naturalistic portfolio lifecycle and signed-transaction rendering.",
			OverlayFile: presentationFile, OverlayHash: presentationFileHash, ValidityGates: []string{"finance_naturalistic_surface_v1"},
		}.Tree(),
		MemoryImplementationID:       MemoryImplementationID,
		MemoryImplementationHash:     MemoryImplementationHash,
		TypedProfileSchemaID:         "domains.finance.adapter.FlatMemoryProfile",
		TypedSchemaName:              "FlatMemoryProfile",
		WriterStateInstruction:       writerStateInstruction,
		WriterSourceInstruction:      writerSourceInstruction,
		WriterRepairInstruction:      writerRepairInstruction,
		TypedArchitectureInstruction: TypedWriterInstruction,
		TypedSchemaJSON:              typedSchemaJSON,
	}
}
