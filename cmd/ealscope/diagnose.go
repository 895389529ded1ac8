package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/replay"
)

// diagnoseCmd writes EAL-Bench diagnosis rows with ealscope's rule-based judgement added
// (docs/CAUSES.md), from an input file of rows or from a workspace run, and measures
// ealscope's agreement with the judges of a file.
type diagnoseCmd struct {
	Input   string   `name:"input" type:"existingfile" help:"EAL-Bench diagnosis rows (JSONL, CRLF or LF; judges may be absent) to add ealscope's judgement to."`
	Corpus  []string `name:"corpus" type:"existingfile" help:"Corpus file holding the rows' cases (repeatable)."`
	Out     string   `name:"out" type:"path" help:"Write the rows here (default: stdout)."`
	Compare string   `name:"compare" type:"existingfile" help:"Print ealscope's agreement with the judges of a diagnosis file that holds both."`
	JSON    bool     `name:"json" help:"With --compare: print the comparison as JSON."`
	workspaceFlag
	RunID string   `name:"run" help:"Diagnose every false-authorization failure of this workspace run (id or unique prefix)."`
	Judge []string `name:"judge" help:"With --run: also ask these configured models (config entries) as EAL-Bench's judges, and compute their consensus and agreement (repeatable)."`
	modelCallFlags
}

func (c *diagnoseCmd) Run(g *Globals) error {
	switch {
	case c.Compare != "":
		return c.compare(g)
	case c.Input != "":
		return c.rows(g)
	case c.RunID != "":
		return c.workspace(g)
	}
	return usageErr("diagnose needs --input ROWS.jsonl --corpus FILE, --run RUN_ID, or --compare FILE")
}

func (c *diagnoseCmd) rows(g *Globals) error {
	if len(c.Corpus) == 0 {
		return fmt.Errorf("diagnose --input needs the corpus of the rows' cases (--corpus FILE, repeatable)")
	}
	idx, err := replay.LoadCaseIndex(c.Corpus)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	n, err := replay.DiagnoseRows(idx, c.Input, &buf)
	if err != nil {
		return err
	}
	if c.Out == "" {
		_, err = g.Stdout.Write(buf.Bytes())
		return err
	}
	if err := replay.WriteFileAtomic(c.Out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "wrote %d rows with %s's judgement to %s\n", n, replay.RulesJudge, c.Out)
	return nil
}

func (c *diagnoseCmd) compare(g *Globals) error {
	cmp, err := replay.CompareRows(c.Compare)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(g.Stdout, cmp)
	}
	printComparison(g.Stdout, cmp)
	return nil
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func printComparison(w io.Writer, cmp replay.Comparison) {
	fmt.Fprintf(w, "%s against the judges' consensus, %d rows\n", cmp.Judge, cmp.Rows)
	fmt.Fprintf(w, "  class agrees: %d/%d (%s); on unanimous rows %d/%d (%s)\n", cmp.Agree, cmp.Rows, pct(cmp.Agree, cmp.Rows),
		cmp.AgreeUnanimous, cmp.Unanimous, pct(cmp.AgreeUnanimous, cmp.Unanimous))
	fmt.Fprintf(w, "  restatement rows: %d, with a misleading turn named by >=2 judges: %d; ealscope's rank 1: %d (%s), top 3: %d (%s)\n",
		cmp.RestatementRows, cmp.WithAgreedTurn, cmp.HitAt1, pct(cmp.HitAt1, cmp.WithAgreedTurn), cmp.HitAt3, pct(cmp.HitAt3, cmp.WithAgreedTurn))
	fmt.Fprintln(w, "\nper consensus class")
	var classes []string
	for k := range cmp.PerClass {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	for _, k := range classes {
		pc := cmp.PerClass[k]
		fmt.Fprintf(w, "  %-32s %3d/%-3d %s\n", k, pc.Agree, pc.Rows, pct(pc.Agree, pc.Rows))
	}
	fmt.Fprintln(w, "\nconfusion (rows: consensus; columns: ealscope)")
	short := map[string]string{cause.RestatementApplied: "restate", cause.OwnActionAsApproval: "own_act", cause.AuthoritativeChangeMisapplied: "misappl",
		cause.UpdateFailed: "upd_fail", cause.Other: "other"}
	head := fmt.Sprintf("  %-32s", "")
	for _, c := range cause.Classes {
		head += fmt.Sprintf(" %8s", short[c])
	}
	fmt.Fprintln(w, head)
	for _, k := range classes {
		line := fmt.Sprintf("  %-32s", k)
		for _, c := range cause.Classes {
			line += fmt.Sprintf(" %8d", cmp.Confusion[k][c])
		}
		fmt.Fprintln(w, line)
	}
	if len(cmp.Misses) > 0 {
		fmt.Fprintf(w, "\ndiffering rows (%d)\n", len(cmp.Misses))
		for i, m := range cmp.Misses {
			if i == 20 {
				fmt.Fprintf(w, "  … %d more\n", len(cmp.Misses)-20)
				break
			}
			fmt.Fprintf(w, "  line %d: consensus %s, ealscope %s (%s)\n", m.Line, m.Consensus, m.Ealscope, strings.TrimSpace(m.What))
		}
	}
}
