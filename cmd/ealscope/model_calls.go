package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// tokensText is "P prompt + C completion tokens", with how many calls were counted by
// ealscope (no usage from the provider) when any were.
func tokensText(prompt, completion int64, counted int) string {
	s := fmt.Sprintf("%d prompt + %d completion tokens", prompt, completion)
	if counted > 0 {
		s += fmt.Sprintf(" (%d call%s counted, no usage reported)", counted, plural(counted))
	}
	return s
}

// printRunModelCalls adds what each model cost to `run`'s report: calls and tokens per
// task and target. The built-in writer and executor cost nothing and are not listed.
func printRunModelCalls(w io.Writer, calls []replay.ModelCalls) {
	for _, c := range calls {
		if c.PromptTokens+c.CompletionTokens == 0 && c.Failed == 0 {
			continue
		}
		failed := ""
		if c.Failed > 0 {
			failed = fmt.Sprintf(" (%d failed)", c.Failed)
		}
		fmt.Fprintf(w, "  model calls, %s %s: %d%s, %s\n", c.Task, c.Target, c.Calls, failed, tokensText(c.PromptTokens, c.CompletionTokens, c.Counted))
	}
}

// printModelCallCosts prints the MODEL CALLS table of `summary`: per run, its own calls by
// task and target, its re-runs, and the lab's arms by policy; nothing when no run has a
// model cost.
func printModelCallCosts(out io.Writer, doc runs.SummaryDoc) {
	shown := false
	for _, r := range doc.Runs {
		for _, c := range r.ModelCalls {
			shown = shown || c.HasTokens()
		}
	}
	if !shown {
		return
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "MODEL CALLS")
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tsource\ttask\ttarget\tpolicy\tcalls\tfailed\tprompt tokens\tcompletion tokens\tcounted")
	for _, r := range doc.Runs {
		for _, c := range r.ModelCalls {
			if !c.HasTokens() {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", r.RunID, c.Source, c.Task, c.Target, policyCell(c.PolicyID),
				c.Calls, c.Failed, c.PromptTokens, c.CompletionTokens, c.Counted)
		}
	}
	tw.Flush()
}

// policyCell names a lab arm's policy: "-" outside the lab, "(un-gated)" for the arms every
// policy shares.
func policyCell(p *string) string {
	switch {
	case p == nil:
		return "-"
	case *p == "":
		return "(un-gated)"
	}
	return *p
}

// printLabModelCalls prints what the lab's arms of a run cost, per policy.
func printLabModelCalls(w io.Writer, costs []runs.ModelCallCost) {
	var lab []runs.ModelCallCost
	for _, c := range costs {
		if c.Source == "lab" && c.HasTokens() {
			lab = append(lab, c)
		}
	}
	if len(lab) == 0 {
		return
	}
	fmt.Fprintln(w, "\nmodel calls of the lab's arms per policy (the un-gated arms are shared by every policy)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tEXECUTOR\tCALLS\tFAILED\tPROMPT TOKENS\tCOMPLETION TOKENS\tCOUNTED")
	for _, c := range lab {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", policyCell(c.PolicyID), c.Target, c.Calls, c.Failed, c.PromptTokens, c.CompletionTokens, c.Counted)
	}
	tw.Flush()
}
