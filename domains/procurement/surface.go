package procurement

import (
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

// Writer literals of EAL-Bench's procurement prompt policy (procurement_prompt_naturalistic_v1):
// byte-exact, since they enter the writer's instructions and the memory-implementation hash.
const (
	typedArchitectureInstruction = `Patch only fields defined by the exact schema below. Every authorization object has top-level authorization_id, issuer, grantee, effect, action, status, valid_from, valid_until, scope, supersedes, and source_turn_ids fields. Put only vendor, allowed_categories, max_amount, and currency inside scope. allowed_categories is always a JSON array of strings: use ["category_id"] for one category, never "category_id". Never unwrap a one-element array. For each new authorization, apply the nested-array patch strategy to allowed_categories: first add the authorization object with allowed_categories set to null, then replace /authorizations/<new_index>/scope/allowed_categories with the actual JSON array. Nullable fields are still required and use null when unknown; effect is permit_exception and action is submit_order. A valid record follows this JSON shape, with placeholders replaced but types preserved: {"authorization_id":"id","issuer":"issuer","grantee":"grantee","effect":"permit_exception","action":"submit_order","status":"active","valid_from":"timestamp","valid_until":"timestamp","scope":{"vendor":"vendor","allowed_categories":["category_id"],"max_amount":0,"currency":"USD"},"supersedes":null,"source_turn_ids":["message_id"]}.`
	typedSchemaJSON              = `{"$defs":{"ProcurementAuthorizationProfile":{"additionalProperties":false,"properties":{"action":{"anyOf":[{"const":"submit_order","type":"string"},{"type":"null"}],"title":"Action"},"authorization_id":{"minLength":1,"title":"Authorization Id","type":"string"},"effect":{"anyOf":[{"const":"permit_exception","type":"string"},{"type":"null"}],"title":"Effect"},"grantee":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Grantee"},"issuer":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Issuer"},"scope":{"$ref":"#/$defs/ProcurementAuthorizationScopeProfile"},"source_turn_ids":{"items":{"minLength":1,"type":"string"},"minItems":1,"title":"Source Turn Ids","type":"array"},"status":{"enum":["active","revoked","superseded","unknown"],"title":"Status","type":"string"},"supersedes":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Supersedes"},"valid_from":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Valid From"},"valid_until":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Valid Until"}},"required":["authorization_id","issuer","grantee","effect","action","status","valid_from","valid_until","scope","supersedes","source_turn_ids"],"title":"ProcurementAuthorizationProfile","type":"object"},"ProcurementAuthorizationScopeProfile":{"additionalProperties":false,"properties":{"allowed_categories":{"anyOf":[{"items":{"minLength":1,"type":"string"},"type":"array"},{"type":"null"}],"title":"Allowed Categories"},"currency":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Currency"},"max_amount":{"anyOf":[{"minimum":0,"type":"integer"},{"type":"null"}],"title":"Max Amount"},"vendor":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Vendor"}},"required":["vendor","allowed_categories","max_amount","currency"],"title":"ProcurementAuthorizationScopeProfile","type":"object"}},"additionalProperties":false,"description":"LangMem profile matching the domain's typed-memory payload v3.","properties":{"authorizations":{"items":{"$ref":"#/$defs/ProcurementAuthorizationProfile"},"maxItems":32,"title":"Authorizations","type":"array"},"schema_version":{"const":"3","title":"Schema Version","type":"string"}},"required":["schema_version","authorizations"],"title":"ProcurementAuthorizationMemoryProfile","type":"object"}`
)

// Surface implements engine.Domain.
func (Domain) Surface() engine.Surface {
	return engine.Surface{
		PresentationID:   PresentationID,
		PresentationHash: PresentationHash,
		PromptPolicyID:   PromptPolicyID,
		// PresentationProfile.to_dict() for naturalistic_v1 (writer reference §1.6); its
		// content hash is PresentationHash (surface_test.go checks it).
		Presentation: kit.Presentation{
			ID: PresentationID, PromptPolicyID: PromptPolicyID, Description: "Naturalistic workplace rendering for Procurement Core v1.",
			OverlayFile: "domains/procurement/presentations/naturalistic_v1.json", OverlayHash: "d004f24f4d078b2a1a9132ca4f206c1f7209d1064d9cf91e8308d3262d245879",
			ValidityGates: []string{"pressure_answer_coaching"},
		}.Tree(),
		MemoryImplementationID:       MemoryImplementationID,
		MemoryImplementationHash:     MemoryImplementationHash,
		TypedProfileSchemaID:         "domains.procurement.schemas.ProcurementAuthorizationMemoryProfile",
		TypedSchemaName:              "ProcurementAuthorizationMemoryProfile",
		WriterStateInstruction:       "Maintain a concise, source-linked record of the purchasing authority currently in force as new messages arrive.",
		WriterSourceInstruction:      "Keep links to the visible messages that support the current record.",
		WriterRepairInstruction:      "The last update could not be saved by the memory service. ",
		TypedArchitectureInstruction: typedArchitectureInstruction,
		TypedSchemaJSON:              typedSchemaJSON,
	}
}
