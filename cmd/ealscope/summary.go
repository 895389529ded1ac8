package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

type summaryCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Only this run (id or unique prefix)."`
	JSON  bool   `name:"json" help:"Print the summary as JSON."`
}

// Run prints the workspace's summary: without --run, a few lines per run that fit the
// terminal, with where the detail is; with --run, that run's tables of chains and memories;
// with --json, everything.
func (c *summaryCmd) Run(g *Globals) error {
	print := printWorkspaceSummary
	if c.RunID == "" {
		print = func(out io.Writer, doc runs.SummaryDoc) { printRunsOverview(out, doc, terminalWidth()) }
	}
	return showFromWorkspace(g, c.DB, c.JSON, func(ctx context.Context, store *runs.Store) (runs.SummaryDoc, error) {
		return store.Summary(ctx, c.RunID)
	}, print)
}

// terminalWidth is $COLUMNS when the shell exports it, else 80.
func terminalWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 20 {
		return n
	}
	return 80
}

// printRunsOverview says, per run, what it is, its trial outcomes and its chains, in lines of
// at most width cells, and how to see the rest.
func printRunsOverview(out io.Writer, doc runs.SummaryDoc, width int) {
	type chainCounts struct{ chains, forming, induced, unauthorized int }
	per := map[string]*chainCounts{}
	for _, c := range doc.Chains {
		n := per[c.RunID]
		if n == nil {
			n = &chainCounts{}
			per[c.RunID] = n
		}
		n.chains++
		if c.FirstFalseAuthorityBlock != nil {
			n.forming++
		}
		if c.AttributedMemoryInduced > 0 {
			n.induced++
		}
		n.unauthorized += c.UnauthorizedActions
	}
	line := func(text string) {
		for _, l := range wrapWords(text, width) {
			fmt.Fprintln(out, l)
		}
	}
	if len(doc.Runs) == 0 {
		fmt.Fprintln(out, "no runs in this workspace (ealscope import DIR adds one)")
		return
	}
	for i, r := range doc.Runs {
		if i > 0 {
			fmt.Fprintln(out)
		}
		e, n := r.Estimable, per[r.RunID]
		if n == nil {
			n = &chainCounts{}
		}
		line(fmt.Sprintf("run %s · %s · %s · %s", r.RunID, r.DomainID, r.Study, r.Status))
		line(fmt.Sprintf("  trials %d · not estimable %s · rescore disagreements %d", r.Metrics.Trials, notEstimableCell(e.NotEstimable), r.RescoreDisagreements))
		line(fmt.Sprintf("  authorized use %s · unauthorized submission %s · invalid/no action %s",
			countText(e.AuthorizedUse), countText(e.UnauthorizedSubmission), countText(e.InvalidOrNoAction)))
		if e.NotEstimable > 0 {
			m := r.Metrics
			line(fmt.Sprintf("  (rates above leave out the not-estimable trials; EAL-Bench's, which keep them in the denominators: authorized use %s, unauthorized submission %s, invalid/no action %s, provider error %s)",
				countText(m.AuthorizedUse), countText(m.UnauthorizedSubmission), countText(m.InvalidOrNoAction), countText(m.ProviderError)))
		}
		line(fmt.Sprintf("  chains %d · forming false authority %d · memory-induced %d · unauthorized actions %d",
			n.chains, n.forming, n.induced, n.unauthorized))
		line(fmt.Sprintf("  detail: ealscope summary --run %s (or --json)", r.RunID))
	}
}

// wrapWords breaks text at spaces into lines of at most width cells; continuation lines are
// indented four spaces. A word longer than a line stays whole.
func wrapWords(text string, width int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(text) {
		lead := ""
		if cur == "" && len(out) == 0 {
			lead = strings.Repeat(" ", len(text)-len(strings.TrimLeft(text, " ")))
		} else if cur == "" {
			lead = "    "
		}
		switch {
		case cur == "":
			cur = lead + w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = "    " + w
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

func countText(c engine.Count) string {
	if c.Rate == nil {
		return fmt.Sprintf("%d/%d", c.Numerator, c.Denominator)
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Numerator, c.Denominator, 100**c.Rate)
}

// joinCounts is a count per key, in key order, each as format (key, count) and joined by sep:
// joinCounts(m, "%s=%d", " ") is "a=1 b=2". Keys that are numbers (block indexes) sort as
// numbers: block 3 before block 10.
func joinCounts(m map[string]int, format, sep string) string {
	var parts []string
	for _, k := range slices.SortedFunc(maps.Keys(m), naturalCompare) {
		parts = append(parts, fmt.Sprintf(format, k, m[k]))
	}
	return strings.Join(parts, sep)
}

// naturalCompare orders two integers by value, an integer before anything else, and other
// strings as strings.
func naturalCompare(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x - y
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
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
