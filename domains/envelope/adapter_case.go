package envelope

import (
	"slices"

	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

// CaseSpec is what an envelope domain gives for the case-level roles every such domain fills
// the same way: its identity and built-in corpus, how a terminal call is scored on the active
// ledger, who may grant, and its trust schema. The case itself is the engine case's Source,
// a HistorySource.
type CaseSpec struct {
	// DomainID and AdapterVersion are EAL-Bench's domain id and domain_adapter_version.
	DomainID, AdapterVersion string
	// BuiltinCorpusName and BuiltinCorpus are the corpus this project ships.
	BuiltinCorpusName string
	BuiltinCorpus     []byte
	// ScoreCall scores one parsed terminal call against the probe's request on the active
	// ledger.
	ScoreCall func(ledger []*Record, p engine.Probe, name string, args map[string]any) engine.ToolScore
	// AuthorityPrincipal is the prompt-policy context's authorized principal: the case
	// metadata names none, so it is the one principal able to grant (docs/FORMATS.md 8.1).
	AuthorityPrincipal string
	// Trust is the domain's trust schema (who speaks on which channel), and ToolRisks the
	// risk class of each executor tool.
	Trust     TrustTable
	ToolRisks []engine.ToolClass
}

// HistorySource is an envelope domain's case: its history blocks and its ledger events.
type HistorySource interface {
	History() ([]Block, []Event)
}

func history(c *engine.Case, domainID string) ([]Block, []Event) {
	return adapt.Source[HistorySource](c, domainID).History()
}

// ToolRiskClasses implements engine.TrustRules: the spec's ToolRisks (a copy).
func (a Adapter[S]) ToolRiskClasses() []engine.ToolClass {
	return slices.Clone(a.spec().Case.ToolRisks)
}

// ToolRisk implements engine.TrustRules: the tool's declared class, whatever the request (a
// domain whose requests raise the class declares its own).
func (a Adapter[S]) ToolRisk(name string, _ any) engine.RiskClass {
	return engine.DeclaredRisk(a.ToolRiskClasses(), name)
}

// TurnTrust implements engine.TrustRules: the domain's trust schema on the turn's channel (no
// channel when the case is another domain's).
func (a Adapter[S]) TurnTrust(c *engine.Case, t engine.Turn, authorityCapable bool) engine.TrustAssignment {
	return a.spec().Case.Trust.TurnTrust(corpusChannel(c, t), t, authorityCapable)
}
