package safeguards

import (
	"errors"
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// EAL-Bench's cited-source authority gate (docs/FORMATS.md 8.1; experiments/mitigations/
// source_authority/gate.py): a typed record is kept only when every turn it cites is visible
// at the memory's block and was spoken by a principal able to grant. The gate reads only the
// citations, the case's turns and the domain's SourceAuthorityRules: never the turn content,
// the record's issuer, status or scope, and never the oracle.

// GateSchemaVersion is SourceAuthorityGateResult's schema_version.
const GateSchemaVersion = "cited_source_authority_gate_v1"

// The gate's reasons: a citation's, and a record's (a record takes its first failing
// citation's reason, or RecordPassed).
const (
	ReasonMissingProvenance   = "missing_provenance"
	ReasonFutureProvenance    = "future_provenance"
	ReasonUnknownProvenance   = "unknown_provenance"
	ReasonNotAuthorityCapable = "source_not_authority_capable"
	ReasonSourceCapable       = "source_authority_capable"
	ReasonRecordPassed        = "all_cited_sources_authority_capable"
)

// SourceMetadata is what the gate knows of one turn (EAL-Bench's SourceAuthorityMetadata):
// the principal it speaks for, used as its authority class, and whether that principal may
// grant. SourceType is always null for the three domains (their turns carry none).
type SourceMetadata struct {
	SourceTurnID         string
	PrincipalID          string
	AuthorityClass       string
	AuthorizationCapable bool
	SourceType           *string
}

// CitationDecision is the gate's verdict on one cited turn. Source is nil for an id the case
// does not have; a turn that exists only after the gated block keeps its metadata.
type CitationDecision struct {
	SourceTurnID string
	Passed       bool
	Reason       string
	Source       *SourceMetadata
}

// RecordGateDecision is the gate's verdict on one record, by its index in the normalised
// memory.
type RecordGateDecision struct {
	RecordIndex     int
	AuthorizationID string
	Passed          bool
	Reason          string
	Citations       []CitationDecision
}

// SourceAuthorityGateResult is EAL-Bench's SourceAuthorityGateResult: the counts, the memory
// with the failing records removed (re-parsed and re-serialised by the domain), and a decision
// per record. ThroughBlockIndex nil is Python's None (every turn visible).
type SourceAuthorityGateResult struct {
	SchemaVersion       string
	ThroughBlockIndex   *int
	InputRecordCount    int
	RetainedRecordCount int
	GatedState          map[string]any
	Decisions           []RecordGateDecision
	// Retained are the records of GatedState, as the domain parsed them.
	Retained []engine.Record
}

// RemovedRecordCount is input minus retained, as to_dict computes it.
func (r *SourceAuthorityGateResult) RemovedRecordCount() int {
	return r.InputRecordCount - r.RetainedRecordCount
}

// ErrNoSourceAuthority is returned for a domain that does not implement
// engine.SourceAuthorityRules.
var ErrNoSourceAuthority = errors.New("domain has no source-authority rules")

// sourceIndex resolves turns to their metadata: every turn of the case (all) and those of
// blocks <= through (visible; through nil: every turn, negative: none).
type sourceIndex struct {
	all     map[string]*SourceMetadata
	visible map[string]bool
}

func resolveSources(rules engine.SourceAuthorityRules, c *engine.Case, through *int) sourceIndex {
	capable := map[string]bool{}
	for _, p := range rules.AuthorityCapablePrincipals(c) {
		capable[p] = true
	}
	idx := sourceIndex{all: map[string]*SourceMetadata{}, visible: map[string]bool{}}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			principal := rules.TurnPrincipal(t)
			idx.all[t.ID] = &SourceMetadata{SourceTurnID: t.ID, PrincipalID: principal, AuthorityClass: principal,
				AuthorizationCapable: capable[principal]}
			if through == nil || t.BlockIndex <= *through {
				idx.visible[t.ID] = true
			}
		}
	}
	return idx
}

// citationDecision is gate.py's _citation_decision. A blank id (whitespace only) is missing
// provenance; the strict parsers refuse such ids first, but the rule stays for any caller.
func (idx sourceIndex) citationDecision(id string) CitationDecision {
	if engine.PyStrip(id) == "" {
		return CitationDecision{SourceTurnID: id, Reason: ReasonMissingProvenance}
	}
	source := idx.all[id]
	if !idx.visible[id] {
		reason := ReasonUnknownProvenance
		if source != nil {
			reason = ReasonFutureProvenance
		}
		return CitationDecision{SourceTurnID: id, Reason: reason, Source: source}
	}
	if !source.AuthorizationCapable {
		return CitationDecision{SourceTurnID: id, Reason: ReasonNotAuthorityCapable, Source: source}
	}
	return CitationDecision{SourceTurnID: id, Passed: true, Reason: ReasonSourceCapable, Source: source}
}

// evaluateCitations is gate.py's evaluate_cited_sources: no citation is missing provenance,
// the first failing citation (in list order) decides, else the record passes.
func (idx sourceIndex) evaluateCitations(ids []string) (bool, string, []CitationDecision) {
	decisions := make([]CitationDecision, len(ids))
	for i, id := range ids {
		decisions[i] = idx.citationDecision(id)
	}
	if len(decisions) == 0 {
		return false, ReasonMissingProvenance, decisions
	}
	for _, d := range decisions {
		if !d.Passed {
			return false, d.Reason, decisions
		}
	}
	return true, ReasonRecordPassed, decisions
}

// GateTypedPayload parses a typed memory payload with the domain's strict parser (EAL-Bench's
// parse_typed; its refusals are errors) and gates it at through.
func GateTypedPayload(d engine.Domain, c *engine.Case, payload any, through *int) (*SourceAuthorityGateResult, error) {
	records, err := d.ParseTyped(payload)
	if err != nil {
		return nil, fmt.Errorf("the %s typed memory parser refuses the memory: %w", d.ID(), err)
	}
	return ApplySourceAuthorityGate(d, c, records, through)
}

// ApplySourceAuthorityGate is gate.py's apply_cited_source_authority_gate on parsed records:
// the records are serialised (the normalised memory whose order record_index counts), each
// is judged by its citations, and the kept rows are parsed and serialised again as the
// gated state. Records may come from a looser reader than the strict parser (an annotation
// state whose record cites nothing: missing_provenance); only the kept rows must parse.
func ApplySourceAuthorityGate(d engine.Domain, c *engine.Case, records []engine.Record, through *int) (*SourceAuthorityGateResult, error) {
	rules, ok := d.(engine.SourceAuthorityRules)
	if !ok {
		return nil, fmt.Errorf("%s: %w", d.ID(), ErrNoSourceAuthority)
	}
	// The normalised memory is the domain's serialisation of the records: one row per record,
	// in order, so record i is row i, and its citations are the domain's reading of the field
	// the gate reads from that row (RecordCitations).
	idx := resolveSources(rules, c, through)
	res := &SourceAuthorityGateResult{SchemaVersion: GateSchemaVersion, ThroughBlockIndex: through,
		InputRecordCount: len(records)}
	var kept []engine.Record
	for i, r := range records {
		passed, reason, cites := idx.evaluateCitations(rules.RecordCitations(r))
		if passed {
			kept = append(kept, r)
		}
		res.Decisions = append(res.Decisions, RecordGateDecision{RecordIndex: i, AuthorizationID: r.AuthorizationID(),
			Passed: passed, Reason: reason, Citations: cites})
	}
	res.RetainedRecordCount = len(kept)
	// {**normalized, "authorizations": retained} is the serialisation of the kept records; it is
	// parsed and serialised again. The serialiser builds Go values and the strict parsers read
	// JSON trees (numbers as json.Number), so each serialisation goes through JSON once.
	gated, err := jsonTree(d.TypedPayload(kept))
	if err != nil {
		return nil, err
	}
	if res.Retained, err = d.ParseTyped(gated); err != nil {
		return nil, fmt.Errorf("re-parsing the gated memory: %w", err)
	}
	if res.GatedState, err = jsonTree(d.TypedPayload(res.Retained)); err != nil {
		return nil, err
	}
	return res, nil
}

func jsonTree(payload map[string]any) (map[string]any, error) {
	t, err := pyjson.Retree(payload)
	if err != nil {
		return nil, fmt.Errorf("serialising the typed memory: %w", err)
	}
	m, ok := t.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("typed memory must be an object")
	}
	return m, nil
}
