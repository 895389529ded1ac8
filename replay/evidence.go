package replay

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/runs/rundir"
)

// evidenceItem is one frozen evidence and what its trials need to know about it.
type evidenceItem struct {
	caseIndex int
	condition engine.Condition
	row       rundir.FrozenEvidence
}

// role is metadata.study.evidence_role: "generated_final" for writer chains, the condition
// id otherwise.
func (e evidenceItem) role() string {
	if e.condition.Writer {
		return "generated_final"
	}
	return e.condition.ID
}

// engineEvidence is what the executor is shown.
func (e evidenceItem) engineEvidence() engine.Evidence {
	switch {
	case e.row.SourceHistory != nil:
		return engine.Evidence{Kind: engine.FullHistoryEvidence, History: *e.row.SourceHistory}
	case e.row.Payload != nil:
		return engine.Evidence{Kind: engine.MemoryEvidence, Payload: e.row.Payload}
	}
	return engine.Evidence{Kind: engine.EmptyEvidence}
}

// renderHistory is the full history as the writer and full-history executor see it: every
// block rendered, separated by one empty line.
func renderHistory(d engine.WriterSurface, c *engine.Case) string {
	parts := make([]string, len(c.Blocks))
	for i := range c.Blocks {
		parts[i] = engine.RenderBlock(d, c, i)
	}
	return strings.Join(parts, "\n\n")
}

// baselineChain builds the evidence (and, for faithful conditions, the oracle-exact memory
// artifact) of a non-writer condition, with EAL-Bench's 64-hex baseline recipes.
func baselineChain(d engine.Domain, s Surface, c *engine.Case, cond engine.Condition, tokens reftoken.Counter) (*chainOutput, error) {
	out := &chainOutput{}
	last := c.LastBlock()
	ev := rundir.FrozenEvidence{
		DomainID: d.ID(), CaseID: c.ID, ConditionID: cond.ID, MemoryRunID: 0,
		PresentationID: s.PresentationID, PresentationHash: s.PresentationHash,
		SchemaVersion: rundir.SchemaVersions[rundir.Evidence],
	}
	var digest string
	switch cond.Evidence {
	case engine.EvidenceEmpty:
		digest = pyjson.MustContentHash("empty")
	case engine.EvidenceFullHistory:
		history := renderHistory(d, c)
		ev.SourceHistory = &history
		digest = pyjson.MustContentHash(history)
	default:
		records, err := d.Replay(c, last)
		if err != nil {
			return nil, err
		}
		var payload any
		if cond.Architecture == engine.ArchTyped {
			if payload, err = pyjson.Retree(d.TypedPayload(records)); err != nil {
				return nil, err
			}
		} else {
			payload = d.FaithfulText(records)
		}
		chainID := pyjson.StableID64("chain", d.ID(), c.ID, cond.ID, "0", "baseline", s.PresentationID, s.PresentationHash)
		digest = pyjson.MustContentHash(payload)
		memoryID := pyjson.StableID64("mem", chainID, "", strconv.Itoa(last), digest)
		var schemaID, schemaVersion *string
		if cond.Architecture == engine.ArchTyped {
			schemaID, schemaVersion = strp(d.PayloadSchemaID()), strp(d.TypedSchemaVersion())
		}
		out.memories = append(out.memories, rundir.MemoryArtifact{
			MemoryID: memoryID, ChainID: chainID, DomainID: d.ID(), CaseID: c.ID, ConditionID: cond.ID, BlockIndex: last,
			Architecture: cond.Architecture, Origin: "faithful", PayloadSchemaID: schemaID, PayloadSchemaVersion: schemaVersion,
			Payload: payload, ReferenceTokens: countTokens(tokens, payload), ReferenceTokenizer: tokens.Name(),
			ContentHash: digest, PresentationID: s.PresentationID, PresentationHash: s.PresentationHash,
			FrameworkRunIDs: []string{}, Framework: map[string]any{}, SchemaVersion: rundir.SchemaVersions[rundir.Memories],
		})
		arch := cond.Architecture
		ev.Architecture, ev.MemoryID, ev.Payload = &arch, &memoryID, payload
		out.versions = []blockVersion{{block: last, payload: payload}}
		digest = memoryID
	}
	ev.ContentHash = pyjson.MustContentHash("empty")
	switch {
	case ev.SourceHistory != nil:
		ev.ContentHash = pyjson.MustContentHash(*ev.SourceHistory)
	case ev.Payload != nil:
		ev.ContentHash = pyjson.MustContentHash(ev.Payload)
	}
	ev.EvidenceID = pyjson.StableID64("evidence", d.ID(), c.ID, cond.ID, "0", digest, s.PresentationID, s.PresentationHash)
	out.evidence = ev
	return out, nil
}

// evidenceFromRow reads a frozen evidence row back (for --resume).
func evidenceFromRow(tree map[string]any) (rundir.FrozenEvidence, error) {
	raw, err := json.Marshal(tree)
	if err != nil {
		return rundir.FrozenEvidence{}, err
	}
	var ev rundir.FrozenEvidence
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&ev); err != nil {
		return ev, err
	}
	// Payload trees keep json.Number leaves, as every typed payload reader expects.
	ev.Payload = tree["payload"]
	return ev, nil
}
