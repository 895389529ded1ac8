package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

type summaryCmd struct {
	DB    string `name:"db" type:"path" help:"Workspace database (default: $XDG_DATA_HOME/ealscope/workspace.db)."`
	RunID string `name:"run" help:"Only this run (id or unique prefix)."`
	JSON  bool   `name:"json" help:"Print the summary as JSON."`
}

func (c *summaryCmd) Run(g *Globals) error {
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	doc, err := store.Summary(context.Background(), c.RunID)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(g.Stdout, doc)
	}
	printWorkspaceSummary(g, doc)
	return nil
}

func countText(c engine.Count) string {
	if c.Rate == nil {
		return fmt.Sprintf("%d/%d", c.Numerator, c.Denominator)
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Numerator, c.Denominator, 100**c.Rate)
}

func dashInt(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func dashBool(p *bool) string {
	if p == nil {
		return "-"
	}
	if *p {
		return "yes"
	}
	return "no"
}

func dashStr(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

func printWorkspaceSummary(g *Globals, doc runs.SummaryDoc) {
	out := g.text()
	fmt.Fprintln(out, "RUNS")
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tdomain\tstudy\tstatus\ttrials\tauthorized use\tunauthorized submission\tinvalid/no action\tprovider error\trescore disagreements\tdecisions")
	for _, r := range doc.Runs {
		labels := make([]string, 0, len(r.Decisions))
		for l := range r.Decisions {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		var dec []string
		for _, l := range labels {
			dec = append(dec, fmt.Sprintf("%s=%d", l, r.Decisions[l]))
		}
		m := r.Metrics
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", r.RunID, r.DomainID, r.Study, r.Status, m.Trials, countText(m.AuthorizedUse),
			countText(m.UnauthorizedSubmission), countText(m.InvalidOrNoAction), countText(m.ProviderError), r.RescoreDisagreements, strings.Join(dec, " "))
	}
	tw.Flush()
	fmt.Fprintln(out)
	fmt.Fprintln(out, "CHAINS")
	tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tcase\tcondition\twriter\twriter run\tarchitecture\tfirst false authority\tunauthorized actions\tmemory-induced")
	for _, c := range doc.Chains {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\n", c.RunID, c.CaseID, c.ConditionID, dashStr(c.Writer), c.WriterRunID, c.Architecture,
			dashInt(c.FirstFalseAuthorityBlock), c.UnauthorizedActions, c.AttributedMemoryInduced)
	}
	tw.Flush()
	fmt.Fprintln(out)
	fmt.Fprintln(out, "MEMORIES")
	tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tcase\tcondition\twriter\tblock\tarchitecture\tmemory\texact\terrors\tforms\tformed probes\tunscored")
	for _, m := range doc.Memories {
		keys := make([]string, 0, len(m.Errors))
		for k := range m.Errors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var errs []string
		for _, k := range keys {
			errs = append(errs, fmt.Sprintf("%s=%d", k, m.Errors[k]))
		}
		e := strings.Join(errs, " ")
		if e == "" {
			e = "-"
		}
		formed := strings.Join(m.FormedProbeIDs, ",")
		if formed == "" {
			formed = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.RunID, m.CaseID, m.ConditionID, dashStr(m.Writer), m.BlockIndex, m.Architecture,
			shortID(m.MemoryID), dashBool(m.Exact), e, dashBool(m.FormsFalseAuthority), formed, dashStr(m.UnscoredReason))
	}
	tw.Flush()
}

// short trims long ids for the table (the JSON form keeps them whole).
func shortID(id string) string {
	if len(id) > 28 {
		return id[:28] + "…"
	}
	return id
}
