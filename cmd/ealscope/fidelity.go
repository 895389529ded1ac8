package main

import (
	"fmt"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
)

type fidelityCmd struct {
	Corpus string `required:"" type:"path" help:"Corpus file holding the case ('builtin' for the built-in corpus)."`
	Case   string `name:"case" required:"" help:"Case id."`
	Memory string `required:"" type:"path" help:"Typed memory payload (JSON object) to score."`
	Block  int    `default:"-1" help:"Block index of the ledger to compare with (default: the final block)."`
	Domain string `default:"procurement" help:"Domain of the corpus."`
	JSON   bool   `name:"json" help:"Print the result as JSON."`
}

func (c *fidelityCmd) Run(g *Globals) error {
	d, err := domains.Get(c.Domain)
	if err != nil {
		return err
	}
	name, data := d.BuiltinCorpus()
	if c.Corpus != "builtin" {
		if data, err = os.ReadFile(c.Corpus); err != nil {
			return err
		}
		name = c.Corpus
	}
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		return err
	}
	kase, err := domains.FindCase(cases, c.Case)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	raw, err := os.ReadFile(c.Memory)
	if err != nil {
		return err
	}
	payload, err := engine.DecodeTree(raw)
	if err != nil {
		return fmt.Errorf("%s: invalid JSON: %v", c.Memory, err)
	}
	report, err := domains.ScoreTyped(d, kase, payload, c.Block)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Memory, err)
	}
	if c.JSON {
		return writeJSON(g.Stdout, report)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "case %s, ledger at block %d: exact=%v, %d fields scored, %d overgrant, %d undergrant\n",
		report.CaseID, report.BlockIndex, report.Exact, report.ScoredFields, report.OvergrantFields, report.UndergrantFields)
	for _, row := range report.Fields {
		if row.Exact {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\tledger=%s\tmemory=%s\t%v\n", row.AuthorizationID, row.Field,
			engine.MustCanonicalJSON(row.CanonicalValue), engine.MustCanonicalJSON(row.RememberedValue), row.Errors)
	}
	tw.Flush()
	classes := make([]string, 0, len(report.Errors))
	for k := range report.Errors {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	for _, k := range classes {
		fmt.Fprintf(g.Stdout, "  %s: %d\n", k, report.Errors[k])
	}
	if report.FormsFalseAuthority {
		fmt.Fprintf(g.Stdout, "FORMS FALSE AUTHORITY for %v\n", report.FormedProbeIDs)
	} else {
		fmt.Fprintln(g.Stdout, "no false authority: the memory grants no probe the ledger denies")
	}
	return nil
}
