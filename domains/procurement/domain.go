package procurement

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// DomainID is EAL-Bench's procurement domain id.
const DomainID = "procurement"

// Domain implements engine.Domain for procurement.
type Domain struct{}

var _ engine.Domain = Domain{}

// ID implements engine.Domain.
func (Domain) ID() string { return DomainID }

// AdapterVersion implements engine.Domain.
func (Domain) AdapterVersion() string { return AdapterVersion }

// ParseCorpus implements engine.Domain.
func (Domain) ParseCorpus(name string, data []byte) ([]*engine.Case, error) {
	return adapt.EngineCases(ParseCorpusLines, ToEngine, name, data)
}

// ParseEach implements engine.Domain.
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

// BuiltinCorpus implements engine.Domain.
func (Domain) BuiltinCorpus() (string, []byte) { return BuiltinCorpusName, builtinCorpus }

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

func toGeneric(envs []*Envelope) []engine.Record {
	out := make([]engine.Record, len(envs))
	for i, e := range envs {
		out[i] = e
	}
	return out
}

func toEnvelopes(records []engine.Record) []*Envelope {
	out := make([]*Envelope, len(records))
	for i, r := range records {
		out[i] = r.(*Envelope)
	}
	return out
}

// Replay implements engine.Domain.
func (Domain) Replay(c *engine.Case, through int) ([]engine.Record, error) {
	envs, err := Ledger(source(c), through)
	if err != nil {
		return nil, err
	}
	return toGeneric(envs), nil
}

// Deny implements engine.Domain.
func (Domain) Deny(c *engine.Case, r engine.Record, request any) string {
	return Denial(c.AuthorizedIssuers, r.(*Envelope), transaction(request))
}

// TypedSchemaVersion implements engine.Domain.
func (Domain) TypedSchemaVersion() string { return TypedSchemaVersion }

// PayloadSchemaID implements engine.Domain.
func (Domain) PayloadSchemaID() string { return PayloadSchemaID }

// ParseTyped implements engine.Domain.
func (Domain) ParseTyped(payload any) ([]engine.Record, error) {
	envs, err := ParseTypedPayload(payload)
	if err != nil {
		return nil, err
	}
	return toGeneric(envs), nil
}

// TypedPayload implements engine.Domain.
func (Domain) TypedPayload(records []engine.Record) map[string]any {
	return TypedPayloadOf(toEnvelopes(records))
}

// FaithfulText implements engine.Domain.
func (Domain) FaithfulText(records []engine.Record) string {
	return FaithfulTextOf(toEnvelopes(records))
}

// ReadFreeText implements engine.Domain.
func (Domain) ReadFreeText(text string) ([]engine.Record, error) {
	envs, err := ReadFreeTextLayout(text)
	if err != nil {
		return nil, err
	}
	return toGeneric(envs), nil
}

// FidelityFields implements engine.Domain.
func (Domain) FidelityFields() []string { return fidelityFields }

// FieldValue implements engine.Domain.
func (Domain) FieldValue(r engine.Record, field string) any { return fieldValue(r.(*Envelope), field) }

// ClassifyField implements engine.Domain.
func (Domain) ClassifyField(field string, canonical, remembered any) engine.FieldClass {
	return classify(field, canonical, remembered)
}

// SystemPrompt implements engine.Domain.
func (Domain) SystemPrompt(c *engine.Case) string { return SystemPrompt(c.Policy) }

// ExecutorInstruction implements engine.Domain.
func (Domain) ExecutorInstruction() string { return executorInstruction }

// EmptyEvidenceText implements engine.Domain.
func (Domain) EmptyEvidenceText() string { return emptyEvidenceText }

// RenderRequest implements engine.Domain.
func (Domain) RenderRequest(p engine.Probe) string { return RenderRequest(transaction(p.Request)) }

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's ActionTime (docs/FORMATS.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	r, ok := adapt.Value[Transaction](request)
	return r.ActionTime, ok
}

// Tools implements engine.Domain.
func (Domain) Tools() []engine.Tool { return Tools() }

// ToolKind implements engine.Domain.
func (Domain) ToolKind(name string) engine.ToolKind { return ToolKindOf(name) }

// ScoreToolCall implements engine.Domain.
func (Domain) ScoreToolCall(c *engine.Case, p engine.Probe, name string, args map[string]any, through int) engine.ToolScore {
	pc := source(c)
	ledger := func(through int) ([]*Envelope, error) { return Ledger(pc, through) }
	return adapt.ScoreOnLedger(c, through, ledger, func(ledger []*Envelope) engine.ToolScore {
		return scoreToolCall(pc, ledger, transaction(p.Request), name, args)
	})
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

// RenderBlock implements engine.Domain.
func (Domain) RenderBlock(c *engine.Case, index int) string {
	return RenderBlock(source(c).Blocks[index])
}

// CapacityTokens implements engine.Domain.
func (Domain) CapacityTokens() int { return PrimaryCapacityTokens }
