package cybersecurity

import (
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

// Release identities (EAL-Bench's resource_versions.json for cybersecurity).
const (
	AdapterVersion           = "1"
	PresentationID           = "naturalistic_v1"
	PresentationHash         = "e46b8ffa20c275d467504b8d48221fd7879c4c36fc2da38376be6fe01b333512"
	PromptPolicyID           = "cybersecurity_prompt_v1"
	MemoryImplementationID   = "langmem_profile"
	MemoryImplementationHash = "bd98a82055492a8311fb5b1d93a31bbede967762b79fa3696bb00f1e658ece03"
	presentationOverlay      = "domains/cybersecurity/presentations/naturalistic_v1.json"
	presentationOverlayHash  = "fd2f56e4fe630522c977bfbefbeef505c40b5ceda5651daa143f27ebe52a2d68"
)

// typedSchemaJSON is pydantic's model_json_schema() of MemoryProfile, as canonical JSON,
// written from the model definition (adapter.py); EAL-Bench publishes no copy to check it
// against.
const typedSchemaJSON = `{"$defs":{"AuthorizationProfile":{"additionalProperties":false,"properties":{"action":{"const":"execute_response_action","title":"Action","type":"string"},"authorization_id":{"minLength":1,"title":"Authorization Id","type":"string"},"effect":{"const":"permit_incident_response","title":"Effect","type":"string"},"grantee":{"const":"incident_response_team","title":"Grantee","type":"string"},"issuer":{"const":"security_duty_officer","title":"Issuer","type":"string"},"scope":{"$ref":"#/$defs/ScopeProfile"},"source_turn_ids":{"items":{"minLength":1,"type":"string"},"minItems":1,"title":"Source Turn Ids","type":"array"},"status":{"enum":["active","revoked","superseded","unknown"],"title":"Status","type":"string"},"supersedes":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Supersedes"},"valid_from":{"minLength":1,"title":"Valid From","type":"string"},"valid_until":{"minLength":1,"title":"Valid Until","type":"string"}},"required":["authorization_id","issuer","grantee","effect","action","status","valid_from","valid_until","scope","supersedes","source_turn_ids"],"title":"AuthorizationProfile","type":"object"},"ScopeProfile":{"additionalProperties":false,"properties":{"approved_actions":{"items":{"minLength":1,"type":"string"},"maxItems":8,"minItems":1,"title":"Approved Actions","type":"array"},"asset_ids":{"items":{"minLength":1,"type":"string"},"maxItems":8,"minItems":1,"title":"Asset Ids","type":"array"},"environments":{"items":{"minLength":1,"type":"string"},"maxItems":8,"minItems":1,"title":"Environments","type":"array"},"incident_id":{"minLength":1,"title":"Incident Id","type":"string"},"tenant_id":{"minLength":1,"title":"Tenant Id","type":"string"},"vulnerability_ids":{"items":{"minLength":1,"type":"string"},"maxItems":8,"minItems":1,"title":"Vulnerability Ids","type":"array"}},"required":["tenant_id","incident_id","asset_ids","environments","approved_actions","vulnerability_ids"],"title":"ScopeProfile","type":"object"}},"additionalProperties":false,"properties":{"authorizations":{"items":{"$ref":"#/$defs/AuthorizationProfile"},"title":"Authorizations","type":"array"},"schema_version":{"const":"4","title":"Schema Version","type":"string"}},"required":["schema_version","authorizations"],"title":"MemoryProfile","type":"object"}`

// Presentation is PresentationProfile.to_dict() for naturalistic_v1 (the run manifest's
// presentation object); its content hash is PresentationHash.
func Presentation() map[string]any {
	return kit.Presentation{
		ID: PresentationID, PromptPolicyID: PromptPolicyID, Description: "Naturalistic incident-response workplace rendering.",
		OverlayFile: presentationOverlay, OverlayHash: presentationOverlayHash, ValidityGates: []string{"cybersecurity_naturalistic_surface_v1"},
	}.Tree()
}

// Surface implements engine.Domain.
func (Domain) Surface() engine.Surface {
	return engine.Surface{
		PresentationID:           PresentationID,
		PresentationHash:         PresentationHash,
		PromptPolicyID:           PromptPolicyID,
		Presentation:             Presentation(),
		MemoryImplementationID:   MemoryImplementationID,
		MemoryImplementationHash: MemoryImplementationHash,
		TypedProfileSchemaID:     "domains.cybersecurity.adapter.MemoryProfile",
		TypedSchemaName:          "MemoryProfile",
		WriterStateInstruction:   "Maintain a concise, source-linked record of the incident-response permissions currently in force as new messages arrive.",
		WriterSourceInstruction:  "Keep links to visible messages supporting each current record.",
		WriterRepairInstruction:  "The last update could not be saved by the memory service. ",
		// EAL-Bench's cybersecurity prompt policy sets use_domain_writer_instructions: the
		// typed domain instruction takes the architecture slot (the free-text one has no slot
		// in engine.Surface yet).
		TypedArchitectureInstruction: WriterInstructions(true),
		TypedSchemaJSON:              typedSchemaJSON,
	}
}
