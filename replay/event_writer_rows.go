package replay

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
)

// markEventChain stamps an event-sourced chain's rows with EAL-Bench's implementation id and
// the reducer in the framework object (runtime.py's memory artifacts).
func markEventChain(ch *chainInfo) {
	ch.surface.MemoryImplementationID = eventsource.ImplementationID
	ch.framework["memory_implementation_id"] = eventsource.ImplementationID
	ch.framework["event_schema_version"] = eventsource.EventSchemaVersion
	ch.framework["reducer"] = eventsource.ReducerID
	ch.framework["cumulative_event_log_model_visible"] = false
}

// extraRow is one row of a run file: a condition's own artifact (event sourcing's event log
// and representation metrics) written with the chain, or any of the chain's rows as encode
// lines them up.
type extraRow struct {
	file string
	row  any
}

// eventChainRows are an event-sourced chain's event log and its representation_metrics rows
// (runtime.py _representation_rows): per block, whether the reduced state has a semantic
// (field) error against the ledger, whether it gains authority, and how errors enter, persist
// and self-repair; per probe at the final block, the ledger's verdict against the final
// reduced state's.
func eventChainRows(ch *chainInfo, out *chainOutput) ([]extraRow, error) {
	st, ok := ch.writerState.(*eventChainState)
	if !ok {
		return nil, fmt.Errorf("chain %s ran without an event writer", ch.chainID)
	}
	var rows []extraRow
	for _, e := range st.log {
		rows = append(rows, extraRow{EventLog, e})
	}
	base := func(rowType string, block int) map[string]any {
		return map[string]any{
			"schema_version": 1, "row_type": rowType, "domain_id": ch.domain.ID(), "case_id": ch.c.ID,
			"condition_id": ch.condition.ID, "target_id": ch.writer.TargetID, "writer_run_id": ch.runID,
			"writer_seed": ch.seed, "chain_id": ch.chainID, "block_index": block,
		}
	}
	statusAt := map[int]string{}
	memoryAt := map[int]string{}
	for _, s := range out.states {
		statusAt[s.BlockIndex] = s.Status
		memoryAt[s.BlockIndex] = deref(s.CurrentMemoryID)
	}
	var previous *bool
	var final []engine.Record
	for _, v := range out.versions {
		memory, err := ch.domain.ParseTyped(v.payload)
		if err != nil {
			return nil, fmt.Errorf("block %d: reduced state: %w", v.block, err)
		}
		ledger, err := ch.domain.Replay(ch.c, v.block)
		if err != nil {
			return nil, err
		}
		p := engine.Fidelity(ch.domain, ch.c, v.block, ledger, memory)
		semantic, gaining, fieldErrors := false, false, 0
		for _, f := range p.Fields {
			if len(f.Errors) > 0 {
				semantic = true
				fieldErrors++
			}
			gaining = gaining || f.Overgrant
		}
		row := base("state_transition", v.block)
		row["memory_id"] = memoryAt[v.block]
		row["semantic_error"] = semantic
		row["authority_gaining_error"] = gaining
		row["final_state_exact"] = !semantic
		row["field_error_count"] = fieldErrors
		row["error_introduction"] = semantic && previous != nil && !*previous
		row["error_persistence"] = semantic && previous != nil && *previous
		row["self_repair"] = !semantic && previous != nil && *previous
		row["failed_update"] = statusAt[v.block] != StatusAccepted
		rows = append(rows, extraRow{RepresentationMetrics, row})
		previous = &semantic
		final = memory
	}
	last := ch.c.LastBlock()
	verdicts, err := engine.OracleProbes(ch.domain, ch.c, last)
	if err != nil {
		return nil, err
	}
	for _, pv := range verdicts {
		canonical := pv.Verdict.Authorized
		remembered := engine.Authorizes(ch.domain, ch.c, final, pv.Probe.Request).Authorized
		row := base("request_formation", last)
		row["probe_id"] = pv.Probe.ID
		row["pair_id"] = pv.Probe.PairID
		row["dimension"] = pv.Probe.Dimension
		row["canonical_authorized"] = canonical
		row["memory_authorized"] = remembered
		row["false_authority"] = !canonical && remembered
		row["valid_authority_preserved"] = canonical && remembered
		row["representation_undergrant"] = canonical && !remembered
		rows = append(rows, extraRow{RepresentationMetrics, row})
	}
	return rows, nil
}
