package safeguards

import (
	"errors"
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// SourceAuthorityGateID is the lab's id of EAL-Bench's cited-source authority gate.
const SourceAuthorityGateID = "source_authority_gate"

// SourceAuthorityGate is EAL-Bench's cited-source authority gate as a lab policy: a memory
// transformation that removes every typed record citing a turn that is not yet visible, not
// in the case, or not spoken by a grant-capable principal (docs/FORMATS.md 8.1). It has no action
// gate: the executor decides on the gated memory as it is.
func SourceAuthorityGate() engine.Policy {
	return engine.Policy{
		ID:      SourceAuthorityGateID,
		Version: GateSchemaVersion,
		Description: "EAL-Bench's cited-source authority gate: a typed record is kept only when every turn it " +
			"cites is visible at the memory's block and spoken by an authority-capable principal",
		Memory: sourceAuthorityTransform{},
	}
}

type sourceAuthorityTransform struct{}

// TransformMemory gates a typed memory at its block. Free-text, empty and full-history
// evidence carry no typed citations: the gate does not apply. A memory the strict parser
// refuses is an error (EAL-Bench's gate never sees it).
func (sourceAuthorityTransform) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	if in.Evidence.Kind != engine.MemoryEvidence {
		return engine.GatedMemory{}, fmt.Errorf("%w: the source-authority gate reads typed memory, and the executor is shown none", engine.ErrNotApplicable)
	}
	if _, ok := in.Evidence.Payload.(string); ok {
		return engine.GatedMemory{}, fmt.Errorf("%w: the source-authority gate reads typed records' citations, not free text", engine.ErrNotApplicable)
	}
	through := in.Block
	res, err := GateTypedPayload(in.Domain, in.Case, in.Evidence.Payload, &through)
	if err != nil && !errors.Is(err, ErrNoSourceAuthority) {
		// The strict parsers read JSON trees: a payload built in Go (a serialiser's ints) is
		// taken through JSON once and gated again; a tree read from a file is unchanged by
		// that, so a real refusal stays one.
		payload, terr := pyjson.Retree(in.Evidence.Payload)
		if terr != nil {
			return engine.GatedMemory{}, fmt.Errorf("typed memory: %w", terr)
		}
		res, err = GateTypedPayload(in.Domain, in.Case, payload, &through)
	}
	if errors.Is(err, ErrNoSourceAuthority) {
		return engine.GatedMemory{}, fmt.Errorf("%w: %w", engine.ErrNotApplicable, err)
	}
	if err != nil {
		return engine.GatedMemory{}, err
	}
	return res.GatedMemory(in.Evidence), nil
}

// GatedMemory is the result as the lab's memory decision: the evidence with the gated state
// as its payload, and per record whether it was kept, its reason and the turns it cites.
func (r *SourceAuthorityGateResult) GatedMemory(ev engine.Evidence) engine.GatedMemory {
	ev.Payload = r.GatedState
	g := engine.GatedMemory{Evidence: ev, Records: make([]engine.RecordDecision, len(r.Decisions))}
	for i, d := range r.Decisions {
		sources := make([]string, len(d.Citations))
		for j, c := range d.Citations {
			sources[j] = c.SourceTurnID
		}
		g.Records[i] = engine.RecordDecision{AuthorizationID: d.AuthorizationID, Kept: d.Passed,
			Reasons: []string{d.Reason}, Sources: sources}
	}
	return g
}
