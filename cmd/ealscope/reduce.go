package main

import (
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/runs/rundir"
)

type reduceCmd struct {
	Domain string `required:"" help:"Domain of the batch (${domains})."`
	Batch  string `required:"" type:"path" help:"Batch file: {\"block_index\", \"input\": {\"arguments\", \"visible_source_ids\", \"addressable_authorization_ids\", \"logical_update_id\", \"capacity_tokens\"}, \"records_before\"}."`
	JSON   bool   `name:"json" help:"Print {\"status\", \"events\", \"reduced_state\", \"error\", \"records_after\", \"reduced_state_tokens\"} as JSON."`
}

// Run applies one event batch with the bounded event-sourcing reducer (docs/FORMATS.md 8.2). A
// rejected batch is a result (exit 0), as in EAL-Bench; a batch file that cannot be read is
// bad input (exit 1).
func (c *reduceCmd) Run(g *Globals) error {
	d, err := domains.Get(c.Domain)
	if err != nil {
		return err
	}
	rules, ok := d.(engine.EventSourcingRules)
	if !ok {
		return fmt.Errorf("domain %s declares no event-sourcing rules", d.ID())
	}
	raw, err := rundir.ReadRegularFile(c.Batch, rundir.MaxInputFileBytes)
	if err != nil {
		return err
	}
	tree, err := pyjson.DecodeTree(raw)
	if err != nil {
		return pyjson.FileError(c.Batch, raw, err)
	}
	batch, err := eventsource.ParseBatchFile(tree)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Batch, err)
	}
	out, err := eventsource.Reduce(rules.EventSourcingSpec(), d, batch, reftoken.Reference())
	if err != nil {
		return fmt.Errorf("%s: %w", c.Batch, err)
	}
	if c.JSON {
		return writeJSON(g.Stdout, out)
	}
	fmt.Fprintf(g.text(), "block %d: %s\n", batch.BlockIndex, out.Status)
	idField := d.Schema().PathOf(engine.RoleID)
	for _, e := range out.Events {
		fmt.Fprintf(g.text(), "  %s %s %s\n", e["event_id"], e["event_type"], eventTarget(e, idField))
	}
	if out.Error != nil {
		fmt.Fprintf(g.text(), "  %s: %s\n", out.Error.Exception, safetext.Text(out.Error.Message))
	}
	if list, ok := out.ReducedState["authorizations"].([]any); ok {
		fmt.Fprintf(g.text(), "  reduced state: %d records, %d reference tokens\n", len(list), out.ReducedStateTokens)
	}
	return nil
}

// eventTarget is the record an event acts on: its target, or for an event that issues a
// record (no target yet), the issued record's id, marked "issued".
func eventTarget(e map[string]any, idField string) string {
	if target, _ := e["target_authorization_id"].(string); target != "" {
		return target
	}
	if rec, ok := e["record"].(map[string]any); ok {
		if id, _ := rec[idField].(string); id != "" {
			return "issued " + id
		}
		if id, _ := rec["authorization_id"].(string); id != "" {
			return "issued " + id
		}
	}
	return ""
}
