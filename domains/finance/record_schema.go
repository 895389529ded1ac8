package finance

import (
	"io"
	"slices"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// recordSchema is FlatAuthorizationProfile's record (docs/FORMATS.md 4.2) in its pydantic field
// order: the flat typed payload keys, lists joined by " | ", supersedes "none" for no value.
var recordSchema = engine.RecordSchema{Fields: slices.Concat(envelope.LiteralEnvelopeFields(MandateIssuer, MandateGrantee, "trader", MandateEffect, MandateAction), []engine.SchemaField{
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
})}

// GenerateCorpus implements engine.CaseGenerator.
func (Domain) GenerateCorpus(w io.Writer, n int, seed uint64) (string, error) {
	return GeneratedCorpusVersion, WriteCorpus(w, n, seed)
}

var _ engine.CaseGenerator = Domain{}

// CaseFile implements engine.CaseFileWriter: the workspace stores each finance case as a
// corpus file holding just that case.
func (Domain) CaseFile(c *engine.Case) ([]byte, error) { return CaseDocument(c) }

var _ engine.CaseFileWriter = Domain{}
