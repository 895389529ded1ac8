package envelope

import "github.com/ealscope/ealscope/engine"

// Spec is what an envelope domain (cybersecurity, finance) gives for the roles every such
// domain fills the same way: its typed and free-text memory codec on envelope records, its
// fidelity rules, the executor's fixed texts and tools, and its writer capacity.
type Spec struct {
	TypedSchemaVersion, PayloadSchemaID string
	ParseTyped                          func(payload any) ([]*Record, error)
	TypedPayload                        func([]*Record) map[string]any
	FaithfulText                        func([]*Record) string
	ReadFreeText                        func(text string) ([]*Record, error)
	Fidelity                            FidelitySpec
	// SystemPrompt (the same for every case), ExecutorInstruction and EmptyEvidenceText are
	// EAL-Bench's executor literals.
	SystemPrompt, ExecutorInstruction, EmptyEvidenceText string
	Tools                                                func() []engine.Tool
	ToolKind                                             func(name string) engine.ToolKind
	CapacityTokens                                       int
	// Schema is the typed record, declared once.
	Schema engine.RecordSchema
	// Case is what the case-level roles need (adapter_case.go).
	Case CaseSpec
}

// SpecOf is a domain's type that returns its Spec; a zero value must do.
type SpecOf interface{ EnvelopeSpec() Spec }

// Adapter implements, from a domain's Spec, the engine.Domain methods every envelope domain
// implements alike. A domain embeds it (type Domain struct{ envelope.Adapter[spec] }), so
// Domain{} keeps working and the methods are Domain's own.
type Adapter[S SpecOf] struct{}

func (Adapter[S]) spec() Spec {
	var s S
	return s.EnvelopeSpec()
}

// Schema implements engine.MemoryCodec.
func (a Adapter[S]) Schema() engine.RecordSchema { return a.spec().Schema }

// TypedSchemaVersion implements engine.MemoryCodec.
func (a Adapter[S]) TypedSchemaVersion() string { return a.spec().TypedSchemaVersion }

// PayloadSchemaID implements engine.MemoryCodec.
func (a Adapter[S]) PayloadSchemaID() string { return a.spec().PayloadSchemaID }

// ParseTyped implements engine.MemoryCodec.
func (a Adapter[S]) ParseTyped(payload any) ([]engine.Record, error) {
	records, err := a.spec().ParseTyped(payload)
	if err != nil {
		return nil, err
	}
	return Generic(records), nil
}

// TypedPayload implements engine.MemoryCodec.
func (a Adapter[S]) TypedPayload(records []engine.Record) map[string]any {
	return a.spec().TypedPayload(MustRecords(records))
}

// FaithfulText implements engine.MemoryCodec.
func (a Adapter[S]) FaithfulText(records []engine.Record) string {
	return a.spec().FaithfulText(MustRecords(records))
}

// ReadFreeText implements engine.MemoryCodec.
func (a Adapter[S]) ReadFreeText(text string) ([]engine.Record, error) {
	records, err := a.spec().ReadFreeText(text)
	if err != nil {
		return nil, err
	}
	return Generic(records), nil
}

// FidelityFields implements engine.FidelityRules.
func (a Adapter[S]) FidelityFields() []string { return a.spec().Fidelity.Fields() }

// FieldValue implements engine.FidelityRules.
func (a Adapter[S]) FieldValue(r engine.Record, field string) any {
	return a.spec().Fidelity.Value(r.(*Record), field)
}

// ClassifyField implements engine.FidelityRules.
func (a Adapter[S]) ClassifyField(field string, canonical, remembered any) engine.FieldClass {
	return a.spec().Fidelity.Classify(field, canonical, remembered)
}

// SystemPrompt implements engine.ExecutorSurface.
func (a Adapter[S]) SystemPrompt(*engine.Case) string { return a.spec().SystemPrompt }

// ExecutorInstruction implements engine.ExecutorSurface.
func (a Adapter[S]) ExecutorInstruction() string { return a.spec().ExecutorInstruction }

// EmptyEvidenceText implements engine.ExecutorSurface.
func (a Adapter[S]) EmptyEvidenceText() string { return a.spec().EmptyEvidenceText }

// Tools implements engine.ExecutorSurface.
func (a Adapter[S]) Tools() []engine.Tool { return a.spec().Tools() }

// ToolKind implements engine.ExecutorSurface.
func (a Adapter[S]) ToolKind(name string) engine.ToolKind { return a.spec().ToolKind(name) }

// CapacityTokens implements engine.WriterSurface.
func (a Adapter[S]) CapacityTokens() int { return a.spec().CapacityTokens }
