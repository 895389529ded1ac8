package procurement

import (
	"io"

	"github.com/ealscope/ealscope/engine"
)

// recordSchema is ProcurementAuthorizationMemoryProfile's record (docs/FORMATS.md 4.2) in its
// pydantic field order, which is the order EAL-Bench's writer prompt prints keys in.
var recordSchema = engine.RecordSchema{Fields: []engine.SchemaField{
	{Path: "authorization_id", Label: "id", Kind: engine.KindString, Role: engine.RoleID},
	{Path: "issuer", Label: "issuer", Kind: engine.KindString, Role: engine.RoleIssuer, Nullable: true},
	{Path: "grantee", Label: "grantee", Kind: engine.KindString, Nullable: true},
	{Path: "effect", Label: "effect", Kind: engine.KindEnum, Options: []string{"permit_exception", ""}, Nullable: true},
	{Path: "action", Label: "action", Kind: engine.KindEnum, Options: []string{"submit_order", ""}, Nullable: true},
	{Path: "status", Label: "status", Kind: engine.KindEnum, Role: engine.RoleStatus,
		Options: []string{"active", "revoked", "superseded", "unknown"}},
	{Path: "valid_from", Label: "valid from", Kind: engine.KindTimestamp, Role: engine.RoleValidFrom, Nullable: true},
	{Path: "valid_until", Label: "valid until", Kind: engine.KindTimestamp, Role: engine.RoleValidUntil, Nullable: true},
	{Path: "scope.vendor", Label: "vendor", Kind: engine.KindString, Scope: true, Nullable: true},
	{Path: "scope.allowed_categories", Label: "categories", Kind: engine.KindList, Scope: true, Nullable: true},
	{Path: "scope.max_amount", Label: "maximum amount", Kind: engine.KindLimit, Direction: engine.UpperLimit, Scope: true, Nullable: true},
	{Path: "scope.currency", Label: "currency", Kind: engine.KindString, Scope: true, Nullable: true},
	{Path: "supersedes", Label: "supersedes", Kind: engine.KindString, Role: engine.RoleSupersedes, Nullable: true},
	{Path: "source_turn_ids", Label: "source turns", Kind: engine.KindCitations, Role: engine.RoleSources},
}}

// GenerateCorpus implements engine.CaseGenerator.
func (Domain) GenerateCorpus(w io.Writer, n int, seed uint64) (string, error) {
	return GeneratedCorpusVersion, WriteJSONL(w, n, seed)
}

var _ engine.CaseGenerator = Domain{}
