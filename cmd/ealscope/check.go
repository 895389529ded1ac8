package main

import (
	"fmt"
	"github.com/ealscope/ealscope/runs/rundir"
	"text/tabwriter"

	"github.com/ealscope/ealscope/domains"
)

type checkCmd struct {
	Corpus  string `arg:"" optional:"" type:"path" help:"Corpus file (its domain is named by --domain)."`
	Builtin bool   `help:"Check the built-in corpus instead of a file."`
	Domain  string `default:"${default_domain}" help:"Domain of the corpus (${domains})."`
	JSON    bool   `name:"json" help:"Print the result as JSON."`
}

func (c *checkCmd) Run(g *Globals) error {
	d, err := domains.Get(c.Domain)
	if err != nil {
		return err
	}
	if (c.Corpus == "") == !c.Builtin {
		return fmt.Errorf("give a corpus file or --builtin (exactly one)")
	}
	name, data := d.BuiltinCorpus()
	if !c.Builtin {
		if data, err = rundir.ReadRegularFile(c.Corpus, rundir.MaxInputFileBytes); err != nil {
			return err
		}
		name = c.Corpus
	}
	report := domains.Check(d, name, data)
	if c.JSON {
		if err := writeJSON(g.Stdout, map[string]any{"cases": report.Cases}); err != nil {
			return err
		}
	} else {
		printCheck(g, report)
	}
	if n := report.Invalid(); n > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d of %d cases are invalid", n, len(report.Cases))}
	}
	return nil
}

func printCheck(g *Globals, r domains.CheckReport) {
	tw := tabwriter.NewWriter(g.text(), 0, 2, 2, ' ', 0)
	valid := 0
	for _, c := range r.Cases {
		if !c.Valid {
			fmt.Fprintf(tw, "INVALID\t%s\t%s\n", c.CaseID, *c.Error)
			continue
		}
		valid++
		fmt.Fprintf(tw, "ok\t%s\t(line %d, %d probes)\n", c.CaseID, c.Line, len(c.Probes))
		for _, p := range c.Probes {
			verdict := "denied"
			if p.Authorized {
				verdict = "authorized"
			}
			flag := ""
			if p.Authorized != (p.RequestScope == "in_scope") {
				flag = "  ! verdict contradicts the probe's scope"
			}
			fmt.Fprintf(tw, "\t  %s\t%s\t%s\t%s%s\n", p.ProbeID, p.RequestScope, verdict, p.Reason, flag)
		}
	}
	tw.Flush()
	fmt.Fprintf(g.text(), "%s: %d cases, %d valid\n", r.Corpus, len(r.Cases), valid)
}
