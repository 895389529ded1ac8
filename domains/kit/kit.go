// Package kit is the one way a domain is written: a domain declares a Spec (its identity,
// built-in corpus, memory codec, fidelity rules, ledger, executor literals and tools, block
// rendering and capacity) over its own record type, and embeds Adapter, which implements the
// engine.Domain methods every domain implements alike from that Spec. What is the domain's own
// (corpus parsing, the denial of a request, rendering and calling a request) stays in the
// domain's package as methods of its Domain type. domains/envelope builds the two
// envelope-record domains (cybersecurity, finance) on this; procurement, with its own record
// (memory schema "3") and ledger, declares its Spec directly. See docs/DOMAINS.md.
package kit

import (
	"fmt"
	"slices"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// Spec is what a domain gives for the roles every domain fills the same way. R is the domain's
// record type (the one its typed memory, free text and ledger hold).
type Spec[R engine.Record] struct {
	// DomainID and AdapterVersion are EAL-Bench's domain id and domain_adapter_version.
	DomainID, AdapterVersion string
	// BuiltinCorpusName and BuiltinCorpus are the corpus this project ships.
	BuiltinCorpusName string
	BuiltinCorpus     []byte

	// Schema is the typed record, declared once; TypedSchemaVersion and PayloadSchemaID
	// identify the typed memory schema.
	Schema                              engine.RecordSchema
	TypedSchemaVersion, PayloadSchemaID string
	// The memory codec on the domain's records.
	ParseTyped   func(payload any) ([]R, error)
	TypedPayload func([]R) map[string]any
	FaithfulText func([]R) string
	ReadFreeText func(text string) ([]R, error)
	Fidelity     Fidelity[R]

	// Ledger is the hidden ledger after blocks 0..through, in the form faithful memory
	// retains it (sorted by authorization id).
	Ledger func(c *engine.Case, through int) ([]R, error)
	// ScoreCall scores one parsed terminal call against the probe's request on that ledger.
	ScoreCall func(c *engine.Case, ledger []R, p engine.Probe, name string, args map[string]any) engine.ToolScore

	// SystemPrompt, ExecutorInstruction and EmptyEvidenceText are EAL-Bench's executor
	// literals (the system prompt may quote the case's policy).
	SystemPrompt                           func(c *engine.Case) string
	ExecutorInstruction, EmptyEvidenceText string
	Tools                                  func() []engine.Tool
	ToolKind                               func(name string) engine.ToolKind

	// RenderBlock renders one history block as the writer sees it (nil: engine.RenderTurns,
	// one line per turn); CapacityTokens is the primary writer capacity.
	RenderBlock    func(c *engine.Case, index int) string
	CapacityTokens int

	// SourceAuthority and Audience declare the source-authority and audience roles
	// (roles.go); a zero Audience reads every turn's channel from the audience sidecar.
	SourceAuthority SourceAuthority[R]
	Audience        engine.SidecarAudience
}

// Fidelity is a domain's field-level fidelity (docs/FORMATS.md 7.1) on its records.
type Fidelity[R engine.Record] struct {
	Fields   func() []string
	Value    func(r R, field string) any
	Classify func(field string, canonical, remembered any) engine.FieldClass
}

// SpecOf is a domain's type that returns its Spec; a zero value must do.
type SpecOf[R engine.Record] interface{ KitSpec() Spec[R] }

// Adapter implements, from a domain's Spec, the engine.Domain methods every domain implements
// alike. A domain embeds it (type Domain struct{ kit.Adapter[spec, *Record] }), so Domain{}
// keeps working and the methods are Domain's own.
type Adapter[S SpecOf[R], R engine.Record] struct{}

func (Adapter[S, R]) spec() Spec[R] {
	var s S
	return s.KitSpec()
}

// Generic converts a domain's records to engine records.
func Generic[R engine.Record](records []R) []engine.Record {
	out := make([]engine.Record, len(records))
	for i, r := range records {
		out[i] = r
	}
	return out
}

// Own converts engine records back to a domain's records; a record of another domain is a
// programming error (the engine only hands a domain back the records it made) and panics.
func Own[R engine.Record](records []engine.Record) []R {
	out := make([]R, len(records))
	for i, r := range records {
		out[i] = own[R](r)
	}
	return out
}

func own[R engine.Record](r engine.Record) R {
	v, ok := r.(R)
	if !ok {
		var want R
		panic(fmt.Sprintf("record %T is not a %T", r, want))
	}
	return v
}

func generic[R engine.Record](records []R, err error) ([]engine.Record, error) {
	if err != nil {
		return nil, err
	}
	return Generic(records), nil
}

// ID implements engine.DomainIdentity.
func (a Adapter[S, R]) ID() string { return a.spec().DomainID }

// AdapterVersion implements engine.DomainIdentity.
func (a Adapter[S, R]) AdapterVersion() string { return a.spec().AdapterVersion }

// BuiltinCorpus implements engine.CorpusReader.
func (a Adapter[S, R]) BuiltinCorpus() (string, []byte) {
	s := a.spec()
	return s.BuiltinCorpusName, s.BuiltinCorpus
}

// Schema implements engine.MemoryCodec.
func (a Adapter[S, R]) Schema() engine.RecordSchema { return a.spec().Schema }

// TypedSchemaVersion implements engine.MemoryCodec.
func (a Adapter[S, R]) TypedSchemaVersion() string { return a.spec().TypedSchemaVersion }

// PayloadSchemaID implements engine.MemoryCodec.
func (a Adapter[S, R]) PayloadSchemaID() string { return a.spec().PayloadSchemaID }

// ParseTyped implements engine.MemoryCodec.
func (a Adapter[S, R]) ParseTyped(payload any) ([]engine.Record, error) {
	return generic(a.spec().ParseTyped(payload))
}

// TypedPayload implements engine.MemoryCodec.
func (a Adapter[S, R]) TypedPayload(records []engine.Record) map[string]any {
	return a.spec().TypedPayload(Own[R](records))
}

// FaithfulText implements engine.MemoryCodec.
func (a Adapter[S, R]) FaithfulText(records []engine.Record) string {
	return a.spec().FaithfulText(Own[R](records))
}

// ReadFreeText implements engine.MemoryCodec.
func (a Adapter[S, R]) ReadFreeText(text string) ([]engine.Record, error) {
	return generic(a.spec().ReadFreeText(text))
}

// FidelityFields implements engine.FidelityRules.
func (a Adapter[S, R]) FidelityFields() []string { return a.spec().Fidelity.Fields() }

// FieldValue implements engine.FidelityRules.
func (a Adapter[S, R]) FieldValue(r engine.Record, field string) any {
	return a.spec().Fidelity.Value(own[R](r), field)
}

// ClassifyField implements engine.FidelityRules.
func (a Adapter[S, R]) ClassifyField(field string, canonical, remembered any) engine.FieldClass {
	return a.spec().Fidelity.Classify(field, canonical, remembered)
}

// Replay implements engine.LedgerRules: the spec's ledger through the block.
func (a Adapter[S, R]) Replay(c *engine.Case, through int) ([]engine.Record, error) {
	return generic(a.spec().Ledger(c, through))
}

// ScoreToolCall implements engine.ExecutorSurface: the spec's scoring on the ledger through
// the block (the last block when through is negative); a ledger that does not replay makes
// the call invalid.
func (a Adapter[S, R]) ScoreToolCall(c *engine.Case, p engine.Probe, name string, args map[string]any, through int) engine.ToolScore {
	s := a.spec()
	ledger := func(through int) ([]R, error) { return s.Ledger(c, through) }
	return adapt.ScoreOnLedger(c, through, ledger, func(ledger []R) engine.ToolScore {
		return s.ScoreCall(c, ledger, p, name, args)
	})
}

// SystemPrompt implements engine.ExecutorSurface.
func (a Adapter[S, R]) SystemPrompt(c *engine.Case) string { return a.spec().SystemPrompt(c) }

// ExecutorInstruction implements engine.ExecutorSurface.
func (a Adapter[S, R]) ExecutorInstruction() string { return a.spec().ExecutorInstruction }

// EmptyEvidenceText implements engine.ExecutorSurface.
func (a Adapter[S, R]) EmptyEvidenceText() string { return a.spec().EmptyEvidenceText }

// Tools implements engine.ExecutorSurface.
func (a Adapter[S, R]) Tools() []engine.Tool { return a.spec().Tools() }

// ToolKind implements engine.ExecutorSurface.
func (a Adapter[S, R]) ToolKind(name string) engine.ToolKind { return a.spec().ToolKind(name) }

// RenderBlock implements engine.BlockRenderer.
func (a Adapter[S, R]) RenderBlock(c *engine.Case, index int) string {
	if render := a.spec().RenderBlock; render != nil {
		return render(c, index)
	}
	return engine.RenderTurns(c.Blocks[index])
}

// CapacityTokens implements engine.WriterSurface.
func (a Adapter[S, R]) CapacityTokens() int { return a.spec().CapacityTokens }

// ToolKinds classify a domain's terminal tool names: its action tools, its escalation and its
// decline; any other name is not terminal.
type ToolKinds struct {
	Actions             []string
	Escalation, Decline string
}

// Kind classifies a tool name.
func (k ToolKinds) Kind(name string) engine.ToolKind {
	switch {
	case slices.Contains(k.Actions, name):
		return engine.ActionTool
	case name == k.Escalation:
		return engine.EscalationTool
	case name == k.Decline:
		return engine.DeclineTool
	}
	return engine.NotTerminal
}
