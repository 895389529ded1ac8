package finance

import (
	"io"

	"github.com/ealscope/ealscope/engine"
)

// recordSchema is FlatAuthorizationProfile's record (FORMAT.md 4.2) in its pydantic field
// order: the flat typed payload keys, lists joined by " | ", supersedes "none" for no value.
var recordSchema = engine.RecordSchema{Fields: []engine.SchemaField{
	{Path: "authorization_id", Label: "id", Kind: engine.KindString, Role: engine.RoleID},
	{Path: "issuer", Label: "issuer", Kind: engine.KindEnum, Role: engine.RoleIssuer, Options: []string{MandateIssuer}},
	{Path: "grantee", Label: "trader", Kind: engine.KindEnum, Options: []string{MandateGrantee}},
	{Path: "effect", Label: "effect", Kind: engine.KindEnum, Options: []string{MandateEffect}},
	{Path: "action", Label: "action", Kind: engine.KindEnum, Options: []string{MandateAction}},
	{Path: "status", Label: "status", Kind: engine.KindEnum, Role: engine.RoleStatus,
		Options: []string{"active", "revoked", "superseded", "unknown"}},
	{Path: "valid_from", Label: "valid from", Kind: engine.KindTimestamp, Role: engine.RoleValidFrom},
	{Path: "valid_until", Label: "valid until", Kind: engine.KindTimestamp, Role: engine.RoleValidUntil},
	{Path: fieldAccount, Label: "account", Kind: engine.KindString, Scope: true},
	{Path: fieldStrategies, Label: "strategies", Kind: engine.KindList, Scope: true, Joined: ListDelimiter},
	{Path: fieldInstruments, Label: "instruments", Kind: engine.KindList, Scope: true, Joined: ListDelimiter},
	{Path: fieldSides, Label: "sides", Kind: engine.KindList, Scope: true, Joined: ListDelimiter},
	{Path: fieldOrderTypes, Label: "order types", Kind: engine.KindList, Scope: true, Joined: ListDelimiter},
	{Path: fieldMaxQuantity, Label: "maximum quantity", Kind: engine.KindLimit, Direction: engine.UpperLimit, Scope: true},
	{Path: fieldMinPrice, Label: "minimum limit price (micros)", Kind: engine.KindLimit, Direction: engine.LowerLimit, Scope: true, Scale: 1_000_000, ScaleUnit: "micros"},
	{Path: fieldMaxPrice, Label: "maximum limit price (micros)", Kind: engine.KindLimit, Direction: engine.UpperLimit, Scope: true, Scale: 1_000_000, ScaleUnit: "micros"},
	{Path: fieldCurrency, Label: "settlement currency", Kind: engine.KindString, Scope: true},
	{Path: "supersedes", Label: "supersedes", Kind: engine.KindString, Role: engine.RoleSupersedes, NullText: NoSupersedes},
	{Path: "source_turn_ids", Label: "source turns", Kind: engine.KindCitations, Role: engine.RoleSources, Joined: ListDelimiter},
}}

// Schema implements engine.MemoryCodec.
func (Domain) Schema() engine.RecordSchema { return recordSchema }

// GenerateCorpus implements engine.CaseGenerator.
func (Domain) GenerateCorpus(w io.Writer, n int, seed uint64) (string, error) {
	return GeneratedCorpusVersion, WriteCorpus(w, n, seed)
}

var _ engine.CaseGenerator = Domain{}

// CaseFile implements engine.CaseFileWriter: the workspace stores each finance case as a
// corpus file holding just that case.
func (Domain) CaseFile(c *engine.Case) ([]byte, error) { return CaseDocument(c) }

var _ engine.CaseFileWriter = Domain{}
