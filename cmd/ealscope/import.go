package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

type importCmd struct {
	Paths []string `arg:"" optional:"" type:"path" help:"Run directories, corpus files (JSONL cases, or a JSON document with \"cases\": every domain's corpus form), judge-diagnosis files (.jsonl whose rows carry judges) and writer-memories files (.json with \"memories\"). A .json file is told by its content. A corpus also derives every imported run that was waiting for it."`
	workspaceFlag
	corpusFlag
	AllowIncomplete bool `name:"allow-incomplete" help:"Import runs whose manifest status is not completed (marked incomplete)."`
	JSON            bool `name:"json" help:"Print the report as JSON."`
}

func (c *importCmd) Run(g *Globals) error {
	if len(c.Paths) == 0 && len(c.Corpus) == 0 {
		return fmt.Errorf("nothing to import: give run directories, corpus files or writer-memories files (or --corpus FILE)")
	}
	store, err := openForWriting(g, c.DB, runs.Open)
	if err != nil {
		return err
	}
	defer store.Close()
	opts := runs.ImportOptions{Corpora: c.Corpus, AllowIncomplete: c.AllowIncomplete}
	if !c.JSON && isTTY(g.Stderr) {
		opts.Progress = func(done, total int) { fmt.Fprintf(g.Stderr, "\rimported %d/%d", done, total) }
		defer fmt.Fprintln(g.Stderr)
	}
	report, ierr := workbench.Import(context.Background(), store, c.Paths, opts)
	logImported(report.Results)
	if c.JSON {
		out := map[string]any{"db": store.Path(), "results": report.Results}
		if report.Results == nil {
			out["results"] = []runs.PathResult{}
		}
		if ierr != nil {
			out["error"] = ierr.Error()
		}
		if err := writeJSON(g.Stdout, out); err != nil {
			return err
		}
	} else {
		printImport(g, store.Path(), report)
	}
	return ierr
}

// logImported logs what each path of an import gave (the log file, never the screen).
func logImported(results []runs.PathResult) {
	for _, r := range results {
		slog.Info("import", "path", r.Path, "kind", r.Kind, "status", r.Status, "run", r.RunID)
	}
}

// importedLine is the line a path of an import gets: path, kind and status ("already
// imported").
func importedLine(r runs.PathResult) string {
	return fmt.Sprintf("%s: %s %s", r.Path, r.Kind, strings.ReplaceAll(r.Status, "_", " "))
}

func printImport(g *Globals, db string, report runs.ImportReport) {
	for _, r := range report.Results {
		head := importedLine(r)
		if r.RunID != "" {
			head += " (run " + r.RunID + ")"
		}
		if r.Incomplete {
			head += " [INCOMPLETE]"
		}
		fmt.Fprintln(g.text(), head)
		if len(r.Rows) > 0 {
			tw := tabwriter.NewWriter(g.text(), 0, 2, 1, ' ', 0)
			for _, n := range slices.Sorted(maps.Keys(r.Rows)) {
				fmt.Fprintf(tw, "  %s\t%d rows\n", n, r.Rows[n])
			}
			tw.Flush()
		}
		for _, c := range r.Corpora {
			fmt.Fprintf(g.text(), "  corpus %s: %d cases (%d new)\n", c.CorpusRef, c.Cases, c.New)
		}
		if r.Kind != runs.KindCorpus && r.Kind != runs.KindDiagnosis && r.Status == runs.StatusImported {
			fmt.Fprintf(g.text(), "  rescore disagreements: %d\n", r.RescoreDisagreements)
		}
		for _, u := range r.Unknown {
			fmt.Fprintf(g.text(), "  unknown file skipped: %s\n", u)
		}
		for _, m := range r.MissingCorpora {
			fmt.Fprintf(g.text(), "  missing corpus: %s (import it with --corpus FILE)\n", m)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(g.text(), "  note: %s\n", n)
		}
	}
	fmt.Fprintf(g.text(), "workspace: %s\n", db)
}
