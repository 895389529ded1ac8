package procurement

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

// DomainID is EAL-Bench's procurement domain id.
const DomainID = "procurement"

// Domain implements engine.Domain for procurement: the roles every domain fills alike come
// from kit.Adapter on procurement's own record (the ledger envelope of memory schema "3"),
// the rest are procurement's methods below.
type Domain struct {
	kit.Adapter[kitSpec, *Envelope]
}

// kitSpec is what the kit needs of procurement (its identity and corpus, memory codec,
// fidelity rules, ledger and scoring, executor literals and tools, rendering and capacity).
type kitSpec struct{}

// KitSpec implements kit.SpecOf.
func (kitSpec) KitSpec() kit.Spec[*Envelope] {
	return kit.Spec[*Envelope]{
		DomainID: DomainID, AdapterVersion: AdapterVersion, BuiltinCorpusName: BuiltinCorpusName, BuiltinCorpus: builtinCorpus,
		Schema: recordSchema, TypedSchemaVersion: TypedSchemaVersion, PayloadSchemaID: PayloadSchemaID,
		ParseTyped: ParseTypedPayload, TypedPayload: TypedPayloadOf, FaithfulText: FaithfulTextOf, ReadFreeText: ReadFreeTextLayout,
		Fidelity: kit.Fidelity[*Envelope]{Fields: func() []string { return fidelityFields }, Value: fieldValue, Classify: classify},
		Ledger:   func(c *engine.Case, through int) ([]*Envelope, error) { return Ledger(source(c), through) },
		ScoreCall: func(c *engine.Case, ledger []*Envelope, p engine.Probe, name string, args map[string]any) engine.ToolScore {
			return scoreToolCall(source(c), ledger, transaction(p.Request), name, args)
		},
		SystemPrompt:        func(c *engine.Case) string { return SystemPrompt(c.Policy) },
		ExecutorInstruction: executorInstruction, EmptyEvidenceText: emptyEvidenceText, Tools: Tools, ToolKind: ToolKindOf,
		RenderBlock:    func(c *engine.Case, index int) string { return RenderBlock(source(c).Blocks[index]) },
		CapacityTokens: PrimaryCapacityTokens,
		SourceAuthority: kit.SourceAuthority[*Envelope]{
			// Procurement metadata has no authorized_principals key, so EAL-Bench falls back
			// to authorized_issuers.
			Principals: func(c *engine.Case) []string { return append([]string(nil), c.AuthorizedIssuers...) },
			Citations:  func(e *Envelope) []string { return append([]string(nil), e.SourceTurnIDs...) },
		},
		// Turns carry an actor but no channel, so the sidecar's turn_channels give every
		// turn's channel (a zero SidecarAudience).
	}
}

var _ engine.Domain = Domain{}

var _ engine.CaseByCaseReader = Domain{}

// ParseCorpus implements engine.Domain.
func (Domain) ParseCorpus(name string, data []byte) ([]*engine.Case, error) {
	return adapt.EngineCases(ParseCorpusLines, ToEngine, name, data)
}

// ParseEach implements engine.CaseByCaseReader: one entry per line, so one invalid case does
// not hide the others.
func (Domain) ParseEach(name string, data []byte) []engine.ParsedCase {
	var out []engine.ParsedCase
	seen := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		pc := engine.ParsedCase{Line: i + 1}
		var c *Case
		var err error
		if len(line) > engine.MaxLineBytes {
			err = engine.LineTooLong(name, i+1)
		} else {
			c, err = ParseCase(line)
		}
		switch {
		case err != nil && len(line) > engine.MaxLineBytes:
			out = append(out, engine.ParsedCase{Line: i + 1, Err: err})
			continue
		case err != nil:
			pc.Err = fmt.Errorf("%s:%d: %w", name, i+1, err)
			pc.CaseID = caseIDOf(line)
		case seen[c.CaseID] != 0:
			pc.CaseID = c.CaseID
			pc.Err = fmt.Errorf("%s:%d: case %s: field case_id: duplicate of line %d", name, i+1, c.CaseID, seen[c.CaseID])
		default:
			seen[c.CaseID] = i + 1
			pc.CaseID = c.CaseID
			pc.Case = ToEngine(c, i+1)
		}
		out = append(out, pc)
	}
	return out
}

// caseIDOf pulls the case id out of a line that failed to parse, when there is one.
func caseIDOf(line []byte) string {
	var probe struct {
		CaseID string `json:"case_id"`
	}
	_ = json.Unmarshal(line, &probe)
	return probe.CaseID
}

// ToEngine converts a procurement case to the engine's domain-neutral case.
func ToEngine(c *Case, line int) *engine.Case {
	ec := &engine.Case{
		DomainID: DomainID, CorpusVersion: c.SchemaVersion, ID: c.CaseID, Policy: c.Policy,
		AuthorizedIssuers: c.AuthorizedIssuers, Lifecycle: c.Benchmark.Lifecycle, Line: line, Source: c,
	}
	blockOf := map[string]int{}
	for _, b := range c.Blocks {
		blockOf[b.BlockID] = b.BlockIndex
		eb := engine.Block{ID: b.BlockID, Index: b.BlockIndex, Title: b.Title, EndedAt: b.EndedAt}
		for _, t := range b.Turns {
			eb.Turns = append(eb.Turns, engine.Turn{ID: t.TurnID, ActorID: t.ActorID, Speaker: t.Speaker, Content: t.Content, OccurredAt: t.OccurredAt, BlockIndex: b.BlockIndex})
		}
		ec.Blocks = append(ec.Blocks, eb)
	}
	for _, e := range c.Events {
		ee := engine.Event{
			ID: e.EventID, Type: e.EventType, Issuer: e.Issuer, BlockID: e.BlockID, BlockIndex: blockOf[e.BlockID],
			EffectiveAt: e.EffectiveAt, AuthorizationID: e.AuthorizationID, SourceTurnIDs: e.SourceTurnIDs,
		}
		switch {
		case e.Record != nil:
			ee.NewAuthorizationID = e.Record.AuthorizationID
			ee.Detail = e.Record
		case e.Patch != nil:
			ee.Detail = e.Patch
		}
		ec.Events = append(ec.Events, ee)
	}
	for _, p := range c.ProbePairs {
		for _, side := range []TransactionProbe{p.InScope, p.OutOfScope} {
			ec.Probes = append(ec.Probes, engine.Probe{
				ID: side.Name, PairID: p.PairID, Dimension: p.Dimension, Scope: side.RequestScope,
				Request: side.Transaction, Metadata: map[string]any{},
			})
		}
	}
	return ec
}

// source returns the procurement case behind an engine case.
func source(c *engine.Case) *Case { return adapt.Source[*Case](c, DomainID) }

// transaction returns the transaction an engine probe carries.
func transaction(request any) Transaction {
	return adapt.Request[Transaction](request, "a procurement transaction")
}

// Ledger returns the envelopes of the ledger through block `through`.
func Ledger(c *Case, through int) ([]*Envelope, error) {
	records, err := ReplayRecords(c, through)
	if err != nil {
		return nil, err
	}
	out := make([]*Envelope, len(records))
	for i, r := range records {
		out[i] = envelopeOf(r)
	}
	return out, nil
}

// Deny implements engine.Domain.
func (Domain) Deny(c *engine.Case, r engine.Record, request any) string {
	return Denial(c.AuthorizedIssuers, r.(*Envelope), transaction(request))
}

// RenderRequest implements engine.Domain.
func (Domain) RenderRequest(p engine.Probe) string { return RenderRequest(transaction(p.Request)) }

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's ActionTime (docs/FORMATS.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	r, ok := adapt.Value[Transaction](request)
	return r.ActionTime, ok
}

// RequestCall implements engine.Domain.
func (Domain) RequestCall(p engine.Probe) (string, map[string]any) {
	return ToolSubmitOrder, requestArguments(transaction(p.Request))
}

// EscalationCall implements engine.Domain.
func (Domain) EscalationCall(p engine.Probe, reason string) (string, map[string]any) {
	args := requestArguments(transaction(p.Request))
	args["reason"] = reason
	return ToolRequestAuthorization, args
}
