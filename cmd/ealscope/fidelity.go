package main

import (
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

type fidelityCmd struct {
	Corpus  string `help:"Corpus file holding the case."`
	Builtin bool   `help:"Take the case from the built-in corpus instead of a file."`
	Case    string `name:"case" required:"" help:"Case id."`
	Memory  string `required:"" type:"path" help:"Typed memory payload (JSON object) to score."`
	Block   int    `default:"-1" help:"Block index of the ledger to compare with (default: the final block)."`
	Domain  string `help:"Domain of the corpus (${domains}; default: detected from the file, ${default_domain} for --builtin)."`
	JSON    bool   `name:"json" help:"Print the result as JSON."`
}

func (c *fidelityCmd) Run(g *Globals) error {
	d, kase, raw, err := caseAndMemory(c.Domain, c.Builtin, c.Corpus, c.Case, c.Memory)
	if err != nil {
		return err
	}
	payload, err := pyjson.DecodeTree(raw)
	if err != nil {
		return pyjson.FileError(c.Memory, raw, err)
	}
	report, err := domains.ScoreTyped(d, kase, payload, c.Block)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Memory, err)
	}
	if c.JSON {
		return writeJSON(g.Stdout, report)
	}
	tw := tabwriter.NewWriter(g.text(), 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "case %s, ledger at block %d: exact=%v, %d fields scored, %d overgrant, %d undergrant\n",
		report.CaseID, report.BlockIndex, report.Exact, report.ScoredFields, report.OvergrantFields, report.UndergrantFields)
	for _, row := range report.Fields {
		if row.Exact {
			continue
		}
		ledger, memory := pyjson.MustCanonicalJSON(row.CanonicalValue), pyjson.MustCanonicalJSON(row.RememberedValue)
		if row.Field == engine.RecordField { // whole records: say which side has it (--json has them)
			ledger, memory = presence(row.CanonicalValue), presence(row.RememberedValue)
		}
		fmt.Fprintf(tw, "  %s\t%s\tledger=%s\tmemory=%s\t%v\n", row.AuthorizationID, row.Field, ledger, memory, row.Errors)
	}
	tw.Flush()
	for _, k := range slices.Sorted(maps.Keys(report.Errors)) {
		fmt.Fprintf(g.text(), "  %s: %d\n", k, report.Errors[k])
	}
	if report.FormsFalseAuthority {
		fmt.Fprintf(g.text(), "FORMS FALSE AUTHORITY for %v\n", report.FormedProbeIDs)
	} else {
		fmt.Fprintln(g.text(), "no false authority: the memory grants no probe the ledger denies")
	}
	return nil
}

func presence(v any) string {
	if v == nil {
		return "(no record)"
	}
	return "(record)"
}
