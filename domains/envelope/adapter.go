package envelope

import (
	"github.com/ealscope/ealscope/domains/kit"
	"github.com/ealscope/ealscope/engine"
)

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
// implements alike: the generic ones through kit.Adapter (on envelope records, the ledger
// replayed from the case's events, blocks rendered in the toolkit's layout), the envelope's
// own (source authority, trust, audience) here. A domain embeds it (type Domain struct{
// envelope.Adapter[spec] }), so Domain{} keeps working and the methods are Domain's own.
type Adapter[S SpecOf] struct {
	kit.Adapter[kitSpec[S], *Record]
}

func (Adapter[S]) spec() Spec {
	var s S
	return s.EnvelopeSpec()
}

// kitSpec is the kit's view of an envelope domain's Spec.
type kitSpec[S SpecOf] struct{}

// KitSpec implements kit.SpecOf.
func (kitSpec[S]) KitSpec() kit.Spec[*Record] {
	var of S
	s := of.EnvelopeSpec()
	return kit.Spec[*Record]{
		DomainID: s.Case.DomainID, AdapterVersion: s.Case.AdapterVersion,
		BuiltinCorpusName: s.Case.BuiltinCorpusName, BuiltinCorpus: s.Case.BuiltinCorpus,
		Schema: s.Schema, TypedSchemaVersion: s.TypedSchemaVersion, PayloadSchemaID: s.PayloadSchemaID,
		ParseTyped: s.ParseTyped, TypedPayload: s.TypedPayload, FaithfulText: s.FaithfulText, ReadFreeText: s.ReadFreeText,
		Fidelity: kit.Fidelity[*Record]{Fields: s.Fidelity.Fields, Value: s.Fidelity.Value, Classify: s.Fidelity.Classify},
		Ledger: func(c *engine.Case, through int) ([]*Record, error) {
			_, events := history(c, s.Case.DomainID)
			return Replay(events, through)
		},
		ScoreCall: func(_ *engine.Case, ledger []*Record, p engine.Probe, name string, args map[string]any) engine.ToolScore {
			return s.Case.ScoreCall(ledger, p, name, args)
		},
		SystemPrompt:        func(*engine.Case) string { return s.SystemPrompt },
		ExecutorInstruction: s.ExecutorInstruction, EmptyEvidenceText: s.EmptyEvidenceText,
		Tools: s.Tools, ToolKind: s.ToolKind,
		RenderBlock: func(c *engine.Case, index int) string {
			blocks, _ := history(c, s.Case.DomainID)
			return RenderBlock(blocks[index])
		},
		CapacityTokens: s.CapacityTokens,
		// Turns carry no actor_id, so a turn speaks for its speaker_id (the engine turn's
		// ActorID); the grant-capable principal is the prompt-policy context's.
		SourceAuthority: kit.SourceAuthority[*Record]{
			Principals: func(*engine.Case) []string { return []string{s.Case.AuthorityPrincipal} },
			Citations:  func(r *Record) []string { return append([]string(nil), r.SourceTurnIDs...) },
		},
		// Every corpus turn names its channel, so a turn's audience is the sidecar channel of
		// that name.
		Audience: engine.SidecarAudience{CorpusChannel: corpusChannel},
	}
}

// corpusChannel is the channel an envelope corpus names for a turn ("" for a case of another
// domain).
func corpusChannel(c *engine.Case, t engine.Turn) string {
	if src, ok := c.Source.(HistorySource); ok {
		blocks, _ := src.History()
		return TurnChannel(blocks, t)
	}
	return ""
}
