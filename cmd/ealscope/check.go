package main

import (
	"fmt"
	"github.com/ealscope/ealscope/runs/rundir"
	"text/tabwriter"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
)

type checkCmd struct {
	Corpus  string `arg:"" optional:"" type:"path" help:"Corpus file (its domain is read from the file unless --domain names it)."`
	Builtin bool   `help:"Check the built-in corpus instead of a file."`
	Domain  string `help:"Domain of the corpus (${domains}; default: detected from the file, ${default_domain} for --builtin)."`
	JSON    bool   `name:"json" help:"Print the result as JSON."`
}

func (c *checkCmd) Run(g *Globals) error {
	if (c.Corpus == "") == !c.Builtin {
		return fmt.Errorf("give a corpus file or --builtin (exactly one)")
	}
	d, name, data, err := readCorpus(c.Domain, c.Builtin, c.Corpus)
	if err != nil {
		return err
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
			fmt.Fprintf(tw, "INVALID\t%s\t%s\n", cells(c.CaseID, *c.Error)...)
			continue
		}
		valid++
		fmt.Fprintf(tw, "ok\t%s\t(line %d, %d probes)\n", cells(c.CaseID, c.Line, len(c.Probes))...)
		for _, p := range c.Probes {
			verdict := "denied"
			if p.Authorized {
				verdict = "authorized"
			}
			flag := ""
			if p.Authorized != (p.RequestScope == "in_scope") {
				flag = "  ! verdict contradicts the probe's scope"
			}
			fmt.Fprintf(tw, "\t  %s\t%s\t%s\t%s%s\n", cells(p.ProbeID, p.RequestScope, verdict, p.Reason, flag)...)
		}
	}
	tw.Flush()
	fmt.Fprintf(g.text(), "%s: %d cases, %d valid\n", r.Corpus, len(r.Cases), valid)
}

// readCorpus loads the corpus a command names: the domain's built-in corpus (--builtin, the
// default domain unless --domain names one), or a file whose domain --domain names or, without
// it, is detected from the file's content.
func readCorpus(domain string, builtin bool, path string) (engine.Domain, string, []byte, error) {
	if builtin {
		if domain == "" {
			domain = domains.Default
		}
		d, err := domains.Get(domain)
		if err != nil {
			return nil, "", nil, err
		}
		name, data := d.BuiltinCorpus()
		return d, name, data, nil
	}
	data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
	if err != nil {
		return nil, "", nil, err
	}
	var d engine.Domain
	if domain != "" {
		d, err = domains.Get(domain)
	} else {
		d, err = domains.Detect(path, data)
	}
	return d, path, data, err
}
