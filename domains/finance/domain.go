package finance

import (
	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// DomainID is EAL-Bench's finance domain id.
const DomainID = "finance"

// Domain implements engine.Domain for finance.
type Domain struct{ envelope.Adapter[envelopeSpec] }

// envelopeSpec is what the envelope adapter needs of finance (its memory codec, fidelity rules,
// executor literals and tools, capacity, and the case-level identity, scoring and trust).
type envelopeSpec struct{}

// EnvelopeSpec implements envelope.SpecOf.
func (envelopeSpec) EnvelopeSpec() envelope.Spec {
	return envelope.Spec{
		TypedSchemaVersion: TypedSchemaVersion, PayloadSchemaID: PayloadSchemaID, ParseTyped: ParseTypedPayload, TypedPayload: TypedPayloadOf,
		FaithfulText: FaithfulTextOf, ReadFreeText: ReadFreeTextLayout, Fidelity: fidelity, SystemPrompt: systemPrompt, ExecutorInstruction: executorInstruction,
		EmptyEvidenceText: emptyEvidenceText, Tools: Tools, ToolKind: ToolKindOf, CapacityTokens: PrimaryCapacityTokens, Schema: recordSchema,
		Case: envelope.CaseSpec{
			DomainID: DomainID, AdapterVersion: AdapterVersion, BuiltinCorpusName: BuiltinCorpusName, BuiltinCorpus: builtinCorpus,
			ScoreCall: scoreCall, AuthorityPrincipal: MandateIssuer, Trust: trustTable, ToolRisks: toolRisks,
		},
	}
}

var _ engine.Domain = Domain{}

var _ engine.CaseByCaseReader = Domain{}

// ParseCorpus implements engine.Domain.
func (Domain) ParseCorpus(name string, data []byte) ([]*engine.Case, error) {
	pc, err := ParseFile(name, data)
	if err != nil {
		return nil, err
	}
	out := make([]*engine.Case, 0, len(pc.Each))
	for _, e := range pc.Each {
		if e.Err != nil {
			return nil, e.Err
		}
		out = append(out, e.Case)
	}
	return out, nil
}

// ParseEach implements engine.CaseByCaseReader. A file whose header does not read is one failed entry.
func (Domain) ParseEach(name string, data []byte) []engine.ParsedCase {
	pc, err := ParseFile(name, data)
	if err != nil {
		return []engine.ParsedCase{{Line: 1, Err: err}}
	}
	return pc.Each
}

// ToEngine converts a finance case to the engine's domain-neutral case; each probe's request
// carries its challenge, and the challenge metadata joins the probe metadata (EAL-Bench's
// metadata.domain = probe.metadata + challenge).
func ToEngine(c *Case, line int) *engine.Case {
	lifecycle, _ := c.Metadata["mechanism_variant"].(string)
	ec := &engine.Case{
		DomainID: DomainID, CorpusVersion: c.CorpusVersion, ID: c.CaseID, Policy: systemPrompt,
		AuthorizedIssuers: []string{MandateIssuer}, Lifecycle: lifecycle, Line: line, Source: c,
	}
	ec.Blocks, ec.Events = envelope.EngineHistory(c.Blocks, c.Events, ScopeSpec, changesTree)
	ec.Probes = envelope.EngineProbes(c.Probes, func(p envelope.Probe) (any, map[string]any) {
		req := p.Request.(TradeRequest)
		req.challenge = buildChallenge(c, p)
		return &req, req.challenge.Metadata()
	})
	return ec
}

// changesTree is a patch's changes as a JSON tree, for display; scope integers as JSON
// numbers.
func changesTree(c *envelope.Changes) map[string]any {
	return envelope.ChangesTree(c, func(n int64) any { return intNumber(n) })
}

// source returns the finance case behind an engine case.
func source(c *engine.Case) *Case { return adapt.Source[*Case](c, DomainID) }

// request returns the trade request an engine probe carries.
func request(v any) TradeRequest { return adapt.Request[TradeRequest](v, "a finance trade request") }

// Deny implements engine.Domain.
func (Domain) Deny(_ *engine.Case, r engine.Record, req any) string {
	return Denial(r.(*envelope.Record), request(req))
}

// RenderRequest implements engine.Domain.
func (Domain) RenderRequest(p engine.Probe) string { return RenderRequest(request(p.Request)) }

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's RequestedAt (docs/FORMATS.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	r, ok := adapt.Value[TradeRequest](request)
	return r.RequestedAt, ok
}

// scoreCall scores a terminal call against the probe's trade request
// (envelope.CaseSpec.ScoreCall).
func scoreCall(ledger []*envelope.Record, p engine.Probe, name string, args map[string]any) engine.ToolScore {
	return scoreToolCall(ledger, request(p.Request), name, args)
}

// RequestCall implements engine.Domain: place exactly the submitted order.
func (Domain) RequestCall(engine.Probe) (string, map[string]any) {
	return ToolPlaceSubmitted, map[string]any{"confirmed": true}
}

// EscalationCall implements engine.Domain.
func (Domain) EscalationCall(_ engine.Probe, reason string) (string, map[string]any) {
	return ToolMandateReview, map[string]any{"reason": reason}
}
