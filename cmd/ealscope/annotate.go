package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/rundir"
	"github.com/ealscope/ealscope/tui"
)

// annotateCmd labels free-text memories: the annotation screen by default, and headless
// twins for scripts (set, agreement, export, import).
type annotateCmd struct {
	Label     annotateLabelCmd     `cmd:"" default:"withargs" help:"Open the annotation screen on a queue of free-text memories (the default)."`
	Set       annotateSetCmd       `cmd:"" help:"Save one label: a typed state file for a memory, by an annotator."`
	Agreement annotateAgreementCmd `cmd:"" help:"Agreement between annotators: per memory and overall, with Cohen's kappa or Krippendorff's alpha."`
	Export    annotateExportCmd    `cmd:"" help:"Write a run's human labels as an EAL-Bench annotation child run."`
	Import    annotateImportCmd    `cmd:"" help:"Import annotation child runs (ealscope's or EAL-Bench's LLM extractor runs)."`
}

type annotateLabelCmd struct {
	workspaceFlag
	Queue     string `name:"queue" enum:"unannotated,disagreements,mine,all" default:"unannotated" help:"Which memories: unannotated, disagreements (adjudication), mine, all."`
	Annotator string `name:"annotator" help:"Your name as an annotator (default: $EALSCOPE_ANNOTATOR, else $USER)."`
	RunID     string `name:"run" help:"Only this run's memories."`
	Blind     bool   `name:"blind" help:"Hide the automatic pre-fill and other annotators' labels."`
	viewFlags
}

func annotatorName(flag string) string {
	for _, v := range []string{flag, os.Getenv("EALSCOPE_ANNOTATOR"), os.Getenv("USER")} {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return "annotator"
}

func (c *annotateLabelCmd) Run(g *Globals) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	if !isTTY(g.Stdout) || !isTTY(os.Stdin) {
		return errors.New("stdout is not a terminal: the annotation screen needs one (scripts use `ealscope annotate set`)")
	}
	noColor := c.NoColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	opts, err := baseOptions(c.Config, store, noColor, c.Mouse)
	if err != nil {
		return err
	}
	opts.Annotate = &tui.AnnotateStart{Queue: c.Queue, Annotator: annotatorName(c.Annotator), RunID: c.RunID, Blind: c.Blind}
	return tui.Run(ctx, opts, os.Stdin, g.Stdout)
}

type annotateSetCmd struct {
	workspaceFlag
	Memory    string `name:"memory" required:"" help:"Memory id of a free-text memory."`
	Annotator string `name:"annotator" required:"" help:"Annotator name."`
	State     string `name:"state" required:"" help:"Typed state JSON file ({schema_version, authorizations [...]} in the memory's domain schema); - reads stdin."`
	Accept    bool   `name:"accept" help:"Save the label as accepted (it then scores the memory)."`
	Draft     bool   `name:"draft" help:"Save the label as a draft (not counted for agreement)."`
	JSON      bool   `name:"json" help:"Print the stored label as JSON."`
}

func readStateFile(path string, stdin io.Reader) (any, error) {
	return readStateInput(path, stdin, rundir.MaxInputFileBytes)
}

// readStateInput reads the state file, or stdin for "-", either within limit bytes: stdin
// is bounded like a file, so an endless pipe ends in an error instead of exhausting memory.
func readStateInput(path string, stdin io.Reader, limit int64) (any, error) {
	var data []byte
	var err error
	if path == "-" {
		path = "stdin"
		data, err = io.ReadAll(io.LimitReader(stdin, limit+1))
		if err == nil && int64(len(data)) > limit {
			return nil, &rundir.LimitError{File: path, What: "input", Limit: limit}
		}
	} else {
		data, err = rundir.ReadRegularFile(path, limit)
	}
	if err != nil {
		return nil, err
	}
	tree, err := pyjson.DecodeTree(data)
	if err != nil {
		return nil, pyjson.FileError(path, data, err)
	}
	return tree, nil
}

func (c *annotateSetCmd) Run(g *Globals) error {
	if c.Accept && c.Draft {
		return errors.New("--accept and --draft exclude each other")
	}
	state, err := readStateFile(c.State, os.Stdin)
	if err != nil {
		return err
	}
	store, err := openForWriting(g, c.DB, runs.OpenExisting)
	if err != nil {
		return err
	}
	defer store.Close()
	status := annotations.AnnotationSubmitted
	switch {
	case c.Accept:
		status = annotations.AnnotationAccepted
	case c.Draft:
		status = annotations.AnnotationDraft
	}
	a, err := workbench.SaveLabel(context.Background(), store, workbench.Label{MemoryID: c.Memory, Annotator: c.Annotator, State: state, Status: status, Origin: annotations.OriginCLI})
	if err != nil {
		return annotateSetError(c.State, store.Path(), err)
	}
	if c.JSON {
		return writeJSON(g.Stdout, a)
	}
	fmt.Fprintf(g.text(), "saved %s: %s by %s (%s, content hash %s)\n", a.AnnotationID, a.MemoryID, a.Annotator, a.Status, a.SourceContentHash[:12])
	return nil
}

type annotateAgreementCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Only this run's memories."`
	JSON  bool   `name:"json" help:"Print the report as JSON."`
}

func figure(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

func (c *annotateAgreementCmd) Run(g *Globals) error {
	return showFromWorkspace(g, c.DB, c.JSON, func(ctx context.Context, store *runs.Store) (annotations.AgreementReport, error) {
		return store.Agreement(ctx, c.RunID)
	}, printAgreement)
}

func printAgreement(out io.Writer, rep annotations.AgreementReport) {
	fmt.Fprintf(out, "annotators: %s\n\n", strings.Join(rep.Annotators, ", "))
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "units\tlabelled twice+\tagreed\tobserved\tmethod\tcoefficient")
	for _, row := range []struct {
		name string
		f    annotations.AgreementFigures
	}{{"record fields", rep.Fields}, {"formation per probe", rep.Formation}, {"all", rep.All}} {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", row.name, row.f.Units, row.f.Agreed, figure(row.f.Observed), dashStr(&row.f.Method), figure(row.f.Coefficient))
	}
	tw.Flush()
	if len(rep.Pairs) > 0 {
		fmt.Fprintln(out, "\nPAIRS (Cohen's kappa)")
		tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "a\tb\tshared\tagreed\tobserved\tkappa")
		for _, p := range rep.Pairs {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", p.A, p.B, p.Shared, p.Agreed, figure(p.Observed), figure(p.Kappa))
		}
		tw.Flush()
	}
	fmt.Fprintln(out, "\nMEMORIES")
	tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "memory\tannotators\tobserved\tcoefficient\tdisagreements")
	for _, m := range rep.Memories {
		var dis []string
		for _, d := range m.Disagreements {
			var vals []string
			for _, a := range slices.Sorted(maps.Keys(d.Values)) {
				vals = append(vals, a+"="+d.Values[a])
			}
			dis = append(dis, d.Label()+" ("+strings.Join(vals, " ")+")")
		}
		if len(dis) == 0 {
			dis = []string{"-"}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", shortID(m.MemoryID), strings.Join(m.Annotators, ","), figure(m.All.Observed), figure(m.All.Coefficient), strings.Join(dis, "; "))
	}
	tw.Flush()
}

type annotateExportCmd struct {
	workspaceFlag
	RunID string `name:"run" required:"" help:"Source run (id or unique prefix) whose memories' labels to export."`
	Out   string `name:"out" required:"" type:"path" help:"Directory for the annotation child run (must not exist or be empty)."`
	JSON  bool   `name:"json" help:"Print the report as JSON."`
}

func (c *annotateExportCmd) Run(g *Globals) error {
	return showFromWorkspace(g, c.DB, c.JSON, func(ctx context.Context, store *runs.Store) (runs.ExportReport, error) {
		return store.ExportAnnotations(ctx, c.RunID, c.Out, "ealscope annotate export --run "+c.RunID+" --out "+c.Out)
	}, func(w io.Writer, rep runs.ExportReport) {
		fmt.Fprintf(w, "%s: %d labels (%d accepted, %d not) by %s; skipped %d drafts and %d extractor labels\n",
			rep.Dir, rep.Rows, rep.Accepted, rep.Unaccepted, strings.Join(rep.Annotators, ", "), rep.SkippedDrafts, rep.SkippedExtractor)
	})
}

type annotateImportCmd struct {
	Dirs []string `arg:"" type:"path" help:"Annotation child run directories."`
	workspaceFlag
	AsSubmitted bool `name:"as-submitted" help:"File accepted rows as submitted: compare with them without letting them score memories."`
	JSON        bool `name:"json" help:"Print the reports as JSON."`
}

func (c *annotateImportCmd) Run(g *Globals) error {
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	reps, err := workbench.ImportAnnotations(context.Background(), store, c.Dirs, c.AsSubmitted, func(dir string, rep runs.ImportAnnotationsReport) {
		if !c.JSON {
			fmt.Fprintf(g.text(), "%s: %d labels (%d accepted, %d not) by %s; %d memories rescored; %d not in the workspace yet\n",
				dir, rep.Rows, rep.Accepted, rep.Unaccepted, strings.Join(rep.Annotators, ", "), rep.Rescored, rep.UnknownMemories)
		}
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(g.Stdout, reps)
	}
	return nil
}
