package envelope

import "github.com/ealscope/ealscope/engine"

// LiteralEnvelopeFields are the leading record-schema fields of an envelope domain whose
// typed profile fixes issuer, grantee, effect and action as literals (docs/FORMATS.md 4.2): the id,
// those four as one-option enums (granteeLabel names the grantee's role), the status and the
// required validity window, in pydantic field order. The domain's scope fields, supersedes and
// sources follow.
func LiteralEnvelopeFields(issuer, grantee, granteeLabel, effect, action string) []engine.SchemaField {
	return []engine.SchemaField{
		{Path: "authorization_id", Label: "id", Kind: engine.KindString, Role: engine.RoleID},
		{Path: "issuer", Label: "issuer", Kind: engine.KindEnum, Role: engine.RoleIssuer, Options: []string{issuer}},
		{Path: "grantee", Label: granteeLabel, Kind: engine.KindEnum, Options: []string{grantee}},
		{Path: "effect", Label: "effect", Kind: engine.KindEnum, Options: []string{effect}},
		{Path: "action", Label: "action", Kind: engine.KindEnum, Options: []string{action}},
		{Path: "status", Label: "status", Kind: engine.KindEnum, Role: engine.RoleStatus,
			Options: []string{"active", "revoked", "superseded", "unknown"}},
		{Path: "valid_from", Label: "valid from", Kind: engine.KindTimestamp, Role: engine.RoleValidFrom},
		{Path: "valid_until", Label: "valid until", Kind: engine.KindTimestamp, Role: engine.RoleValidUntil},
	}
}
