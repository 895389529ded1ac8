package replay

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ScriptedModelID names the scripted writer wherever a model id goes.
const ScriptedModelID = "scripted-writer-v1"

// ScriptedWriter is the built-in writer: it follows the ledger (Domain.Replay through the
// update's block) and writes the faithful typed payload or the canonical free text of it,
// except where it injects a seeded, named fault (faults.go). Incremental chains update once
// per block; one-shot chains update once, at the last block, having read the whole history,
// so they meet the same opportunities (drawn in the same block order) in one go.
type ScriptedWriter struct {
	FaultRate float64
	Families  []string
	Version   string
}

type scriptedState struct{ fe *faultEngine }

func (w *ScriptedWriter) provenance(seed int64) rundir.ModelProvenance {
	return scriptedProvenance(w.FaultRate, w.Families, seed)
}

// scriptedProvenance is a built-in writer's model provenance: the fault rate, the fault
// families it draws from and the seed are its effective parameters.
func scriptedProvenance(faultRate float64, families []string, seed int64) rundir.ModelProvenance {
	fams := stringTrees(families)
	return rundir.ModelProvenance{
		TargetID: "scripted", Provider: "ealscope", RequestedModel: ScriptedModelID, ResolvedModel: ScriptedModelID,
		EffectiveParameters: map[string]any{"fault_rate": pyjson.Float(faultRate), "faults": fams, "seed": seed},
	}
}

func (w *ScriptedWriter) manager() string { return "ealscope_scripted_writer_v1" }

// maxAttempts is 1: the scripted writer's updates always validate.
func (w *ScriptedWriter) maxAttempts() int { return 1 }

func (w *ScriptedWriter) attempt(ctx context.Context, ch *chainInfo, u update, current any, attemptID string, index int, failed *attemptResult) (attemptResult, bool) {
	if ctx.Err() != nil {
		return attemptResult{}, false
	}
	st, _ := ch.writerState.(*scriptedState)
	if st == nil {
		st = &scriptedState{fe: newFaultEngine(ch.domain, ch.c, ch.seed, ch.chainID, w.FaultRate, w.Families)}
		ch.writerState = st
	}
	injected, err := st.fe.advance(u.block)
	if err != nil {
		return w.failure(fmt.Sprintf("ValueError: ledger replay failed: %v", err)), true
	}
	payload, err := w.render(ch, st.fe.memory())
	if err != nil {
		return w.failure(fmt.Sprintf("ValueError: %v", err)), true
	}
	prior := current
	if prior == nil {
		prior = ch.emptyPayload()
	}
	changed := pyjson.MustContentHash(payload) != pyjson.MustContentHash(prior)
	res := attemptResult{status: StatusAccepted, detail: "accepted", validated: payload, candidate: payload, changed: &changed}
	if !changed {
		res.status, res.detail = StatusNoChange, "scripted writer retained the accepted profile unchanged"
	}
	for _, f := range injected {
		desc := f.description
		if f.eventBlock != u.block {
			desc = fmt.Sprintf("%s (event in block %d, written at block %d)", desc, f.eventBlock, u.block)
		}
		res.faults = append(res.faults, rundir.FaultRow{
			FaultID: pyjson.StableID24("fault", ch.chainID, f.family, fmt.Sprint(f.eventBlock), f.authID, f.field),
			Family:  f.family, DomainID: ch.domain.ID(), CaseID: ch.c.ID, ConditionID: ch.condition.ID,
			WriterRunID: ch.runID, BlockIndex: u.block, AuthorizationID: f.authID, Field: f.field,
			Description: desc, SchemaVersion: rundir.SchemaVersions[rundir.Faults],
		})
	}
	return res, true
}

func (w *ScriptedWriter) failure(detail string) attemptResult {
	return attemptResult{status: StatusWriterError, detail: detail}
}

// render validates the remembered records through the domain's typed schema and writes them
// in the chain's architecture.
func (w *ScriptedWriter) render(ch *chainInfo, auths []any) (any, error) {
	tree := map[string]any{"schema_version": ch.domain.TypedSchemaVersion(), "authorizations": auths}
	records, err := ch.domain.ParseTyped(tree)
	if err != nil {
		return nil, err
	}
	if ch.condition.Architecture == engine.ArchFreeText {
		return ch.domain.FaithfulText(records), nil
	}
	return pyjson.Retree(ch.domain.TypedPayload(records))
}
