package cybersecurity

import (
	"fmt"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Domain implements engine.Domain for cybersecurity.
type Domain struct{ envelope.Adapter[envelopeSpec] }

// envelopeSpec is what the envelope adapter needs of cybersecurity (its memory codec, fidelity rules,
// executor literals and tools, capacity, and the case-level identity, scoring and trust).
type envelopeSpec struct{}

// EnvelopeSpec implements envelope.SpecOf.
func (envelopeSpec) EnvelopeSpec() envelope.Spec {
	return envelope.Spec{
		TypedSchemaVersion: TypedSchemaVersion, PayloadSchemaID: PayloadSchemaID, ParseTyped: ParseTypedPayload, TypedPayload: TypedPayloadOf,
		FaithfulText: FaithfulTextOf, ReadFreeText: ReadFreeTextLayout, Fidelity: Fidelity, SystemPrompt: systemPrompt, ExecutorInstruction: executorInstruction,
		EmptyEvidenceText: emptyEvidenceText, Tools: Tools, ToolKind: ToolKindOf, CapacityTokens: PrimaryCapacityTokens, Schema: recordSchema,
		Case: envelope.CaseSpec{
			DomainID: DomainID, AdapterVersion: AdapterVersion, BuiltinCorpusName: BuiltinCorpusName, BuiltinCorpus: builtinCorpus,
			ScoreCall: scoreCall, AuthorityPrincipal: Issuer, Trust: trustTable, ToolRisks: toolRisks,
		},
	}
}

var _ engine.Domain = Domain{}

var _ engine.CaseByCaseReader = Domain{}

// ParseCorpus implements engine.Domain.
func (Domain) ParseCorpus(name string, data []byte) ([]*engine.Case, error) {
	return adapt.EngineCases(ParseCorpus, ToEngine, name, data)
}

// ParseEach implements engine.CaseByCaseReader: a file-level error is one entry on its line;
// otherwise one entry per case, so that one invalid case does not hide the others.
func (Domain) ParseEach(name string, data []byte) []engine.ParsedCase {
	version, raws, err := splitCorpus(data)
	if err != nil {
		line := 1
		if le, ok := err.(*lineError); ok {
			line = le.line
		}
		return []engine.ParsedCase{{Line: line, Err: withFile(name, err)}}
	}
	var out []engine.ParsedCase
	seen := map[string]int{}
	for _, rc := range raws {
		pc := engine.ParsedCase{Line: rc.line}
		c, err := parseRaw(name, version, rc, seen)
		if c != nil {
			pc.CaseID = c.CaseID
		}
		if pc.CaseID == "" {
			pc.CaseID = caseIDOf(rc.raw)
		}
		if err != nil {
			pc.Err = err
		} else {
			pc.Case = ToEngine(c, rc.line)
		}
		out = append(out, pc)
	}
	return out
}

// ToEngine converts a case to the engine's domain-neutral case; each probe's request carries
// its challenge.
func ToEngine(c *Case, line int) *engine.Case {
	lifecycle, _ := c.Metadata["lifecycle"].(string)
	ec := &engine.Case{
		DomainID: DomainID, CorpusVersion: c.CorpusVersion, ID: c.CaseID, Policy: systemPrompt,
		AuthorizedIssuers: []string{Issuer}, Lifecycle: lifecycle, Line: line, Source: c,
	}
	ec.Blocks, ec.Events = envelope.EngineHistory(c.Blocks, c.Events, Scope, changesTree)
	ec.Probes = envelope.EngineProbes(c.Probes, func(p envelope.Probe) (any, map[string]any) {
		req := *p.Request.(*Request)
		req.challenge = buildChallenge(c, p)
		return &req, req.challenge.Metadata()
	})
	return ec
}

// changesTree is a patch's changes as a JSON tree, for display.
func changesTree(c *envelope.Changes) map[string]any { return envelope.ChangesTree(c, nil) }

// request returns the cybersecurity request an engine probe carries.
func request(v any) *Request {
	return adapt.RequestPointer[Request](v, "a cybersecurity response request")
}

// Deny implements engine.Domain.
func (Domain) Deny(_ *engine.Case, r engine.Record, req any) string {
	e, ok := r.(*envelope.Record)
	if !ok {
		return "missing_scope"
	}
	return Deny(e, request(req))
}

// RenderRequest implements engine.Domain.
func (Domain) RenderRequest(p engine.Probe) string { return RenderRequest(request(p.Request)) }

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's RequestedAt (docs/FORMATS.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	r, ok := adapt.Value[Request](request)
	return r.RequestedAt, ok
}

// scoreCall scores a terminal call against the probe's request (envelope.CaseSpec.ScoreCall).
func scoreCall(ledger []*envelope.Record, p engine.Probe, name string, args map[string]any) engine.ToolScore {
	return scoreToolCall(ledger, request(p.Request), name, args)
}

// RequestCall implements engine.Domain: the submitted payload's execution tool.
func (Domain) RequestCall(engine.Probe) (string, map[string]any) {
	return ToolExecuteSubmitted, actionArguments(ToolExecuteSubmitted)
}

// EscalationCall implements engine.Domain.
func (Domain) EscalationCall(_ engine.Probe, reason string) (string, map[string]any) {
	return ToolRequestApproval, map[string]any{"reason": reason}
}

// CorpusTree is the jsonable corpus document of cases (what ParseCorpus reads).
func CorpusTree(corpusVersion string, cases []*Case) map[string]any {
	list := make([]any, len(cases))
	for i, c := range cases {
		list[i] = c.Tree()
	}
	return map[string]any{"domain_id": DomainID, "corpus_version": corpusVersion, "cases": list}
}

// EncodeCorpus writes cases as an indented corpus document (sorted keys, non-ASCII kept).
func EncodeCorpus(corpusVersion string, cases []*Case) ([]byte, error) {
	return pyjson.DumpPy(CorpusTree(corpusVersion, cases), pyjson.Indented)
}

// CaseDocument is one case as a self-contained, single-line corpus document (canonical JSON)
// that ParseCorpus reads back: the form a store can keep per case, since a cybersecurity
// corpus is one JSON document rather than one case per line.
func CaseDocument(c *engine.Case) ([]byte, error) {
	src, ok := c.Source.(*Case)
	if !ok {
		return nil, fmt.Errorf("case %s is not a cybersecurity case", c.ID)
	}
	s, err := pyjson.CanonicalJSON(CorpusTree(src.CorpusVersion, []*Case{src}))
	return []byte(s), err
}
