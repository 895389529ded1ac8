package cybersecurity

import (
	"io"
	"slices"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// recordSchema is MemoryProfile's record (adapter.py AuthorizationProfile, docs/FORMATS.md 4.2) in
// its pydantic field order: literal issuer, grantee, effect and action; a required window;
// the six scope fields; nullable supersedes.
var recordSchema = engine.RecordSchema{Fields: slices.Concat(envelope.LiteralEnvelopeFields(Issuer, Grantee, "responder", Effect, Action), []engine.SchemaField{
	{Path: "scope.tenant_id", Label: "tenant", Kind: engine.KindString, Scope: true},
	{Path: "scope.incident_id", Label: "incident", Kind: engine.KindString, Scope: true},
	{Path: "scope.asset_ids", Label: "assets", Kind: engine.KindList, Scope: true},
	{Path: "scope.environments", Label: "environments", Kind: engine.KindList, Scope: true},
	{Path: "scope.approved_actions", Label: "actions", Kind: engine.KindList, Scope: true},
	{Path: "scope.vulnerability_ids", Label: "vulnerabilities", Kind: engine.KindList, Scope: true},
	{Path: "supersedes", Label: "supersedes", Kind: engine.KindString, Role: engine.RoleSupersedes, Nullable: true},
	{Path: "source_turn_ids", Label: "source turns", Kind: engine.KindCitations, Role: engine.RoleSources},
})}

// GenerateCorpus implements engine.CaseGenerator.
func (Domain) GenerateCorpus(w io.Writer, n int, seed uint64) (string, error) {
	return GeneratedCorpusVersion, WriteCorpus(w, n, seed)
}

var _ engine.CaseGenerator = Domain{}
