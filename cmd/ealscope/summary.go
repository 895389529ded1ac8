package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

type summaryCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Only this run (id or unique prefix)."`
	JSON  bool   `name:"json" help:"Print the summary as JSON."`
}

func (c *summaryCmd) Run(g *Globals) error {
	return showFromWorkspace(g, c.DB, c.JSON, func(ctx context.Context, store *runs.Store) (runs.SummaryDoc, error) {
		return store.Summary(ctx, c.RunID)
	}, printWorkspaceSummary)
}

func countText(c engine.Count) string {
	if c.Rate == nil {
		return fmt.Sprintf("%d/%d", c.Numerator, c.Denominator)
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Numerator, c.Denominator, 100**c.Rate)
}

// joinCounts is a count per key, in key order, each as format (key, count) and joined by sep:
// joinCounts(m, "%s=%d", " ") is "a=1 b=2".
func joinCounts(m map[string]int, format, sep string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf(format, k, m[k]))
	}
	return strings.Join(parts, sep)
}

// notEstimableCell is a run's count of trials without a decision, "-" when there are none.
func notEstimableCell(n int) string {
	if n == 0 {
		return "-"
	}
	if n == 1 {
		return "1 (provider error)"
	}
	return fmt.Sprintf("%d (provider errors)", n)
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

func printWorkspaceSummary(out io.Writer, doc runs.SummaryDoc) {
	fmt.Fprintln(out, "RUNS")
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	// The rates shown are over estimable trials: a provider error made no decision
	// (docs/FORMATS.md 6.4 keeps it in EAL-Bench's denominators; those figures follow the table).
	fmt.Fprintln(tw, "run\tdomain\tstudy\tstatus\ttrials\tnot estimable\tauthorized use\tunauthorized submission\tinvalid/no action\trescore disagreements\tdecisions")
	var withErrors []runs.SummaryRun
	for _, r := range doc.Runs {
		e := r.Estimable
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", cells(r.RunID, r.DomainID, r.Study, r.Status, r.Metrics.Trials, notEstimableCell(e.NotEstimable),
			countText(e.AuthorizedUse), countText(e.UnauthorizedSubmission), countText(e.InvalidOrNoAction), r.RescoreDisagreements, joinCounts(r.Decisions, "%s=%d", " "))...)
		if e.NotEstimable > 0 {
			withErrors = append(withErrors, r)
		}
	}
	tw.Flush()
	if len(withErrors) > 0 {
		fmt.Fprintln(out, "rates above leave out the not-estimable (provider-error) trials; EAL-Bench's, which keep them in the denominators:")
		for _, r := range withErrors {
			m := r.Metrics
			fmt.Fprintf(out, "  %s: authorized use %s, unauthorized submission %s, invalid/no action %s, provider error %s\n", cells(r.RunID,
				countText(m.AuthorizedUse), countText(m.UnauthorizedSubmission), countText(m.InvalidOrNoAction), countText(m.ProviderError))...)
		}
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "CHAINS")
	tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tcase\tcondition\twriter\twriter run\tarchitecture\tfirst false authority\tunauthorized actions\tmemory-induced")
	for _, c := range doc.Chains {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\n", cells(c.RunID, c.CaseID, c.ConditionID, dashStr(c.Writer), c.WriterRunID, c.Architecture,
			dashInt(c.FirstFalseAuthorityBlock), c.UnauthorizedActions, c.AttributedMemoryInduced)...)
	}
	tw.Flush()
	fmt.Fprintln(out)
	fmt.Fprintln(out, "MEMORIES")
	tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tcase\tcondition\twriter\tblock\tarchitecture\tmemory\texact\terrors\tforms\tformed probes\tunscored")
	for _, m := range doc.Memories {
		e := joinCounts(m.Errors, "%s=%d", " ")
		if e == "" {
			e = "-"
		}
		formed := strings.Join(m.FormedProbeIDs, ",")
		if formed == "" {
			formed = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cells(m.RunID, m.CaseID, m.ConditionID, dashStr(m.Writer), m.BlockIndex, m.Architecture,
			shortID(m.MemoryID), dashBool(m.Exact), e, dashBool(m.FormsFalseAuthority), formed, dashStr(m.UnscoredReason))...)
	}
	tw.Flush()
	printModelCallCosts(out, doc)
}

// short trims long ids for the table (the JSON form keeps them whole).
func shortID(id string) string {
	if len(id) > 28 {
		return id[:28] + "…"
	}
	return id
}
