package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

// viewFlags are the terminal options shared by open and demo.
type viewFlags struct {
	NoColor bool   `name:"no-color" help:"No colours (also when NO_COLOR is set to anything, or TERM=dumb)."`
	Mouse   bool   `help:"Turn on mouse wheel scrolling (off by default so text selection keeps working)."`
	Config  string `type:"path" help:"Config file: [keys] remapping, theme, and [models.NAME] executors for re-runs (default: $EALSCOPE_CONFIG, else $XDG_CONFIG_HOME/ealscope/config.toml)."`
}

type openCmd struct {
	Paths []string `arg:"" optional:"" type:"path" help:"Run directories (or corpus files) to import before opening."`
	workspaceFlag
	corpusFlag
	RunID     string `name:"run" help:"Run id (or unique prefix) of the chain to open."`
	Case      string `name:"case" help:"Open this case's chain (with --condition and --writer-run)."`
	Condition string `name:"condition" help:"Condition of the chain to open."`
	WriterRun int    `name:"writer-run" default:"0" help:"Writer run of the chain to open."`
	Block     int    `name:"block" default:"-1" help:"Block to open (default: the first false-authority block)."`
	Present   bool   `name:"present" help:"Open presentation mode on the chain's story (needs --case and --condition); esc leaves it."`
	viewFlags
}

func (c *openCmd) Run(g *Globals) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// Opening without anything to import only reads: a workspace that does not exist is a
	// mistyped --db, not a request for an empty one.
	openWorkspace := runs.OpenExisting
	if len(c.Paths) > 0 || len(c.Corpus) > 0 {
		openWorkspace = runs.Open
	}
	store, err := openWorkspace(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	if len(c.Paths) > 0 || len(c.Corpus) > 0 {
		if err := importWithProgress(ctx, g, store, c.Paths, c.Corpus); err != nil {
			return err
		}
	}
	start := tui.Start{RunID: c.RunID, Block: c.Block}
	if c.Case != "" {
		if c.Condition == "" {
			return errors.New("--case needs --condition (and --writer-run when it is not 0)")
		}
		k, err := tui.ResolveChain(ctx, store, c.RunID, c.Case, c.Condition, c.WriterRun)
		if err != nil {
			return err
		}
		start.Chain = &k
	}
	if c.Present {
		if start.Chain == nil {
			return errors.New("--present needs --case and --condition")
		}
		start.Present = true
	}
	return c.viewFlags.show(ctx, g, store, start)
}

// importWithProgress imports paths, printing a line per path on stderr (a counter on a TTY).
func importWithProgress(ctx context.Context, g *Globals, store *runs.Store, paths, corpora []string) error {
	opts := runs.ImportOptions{Corpora: corpora}
	total := len(paths) + len(corpora)
	opts.Progress = func(done, total int) {
		if isTTY(g.Stderr) {
			fmt.Fprintf(g.Stderr, "\rimporting %d/%d %s", done, total, bar(done, total, 20))
			if done == total {
				fmt.Fprintln(g.Stderr)
			}
		}
	}
	opts.RowProgress = func(path string, written, listed int) {
		if isTTY(g.Stderr) {
			fmt.Fprintf(g.Stderr, "\rimporting %s: %d of ~%d rows written %s", safetext.Line(filepath.Base(path)), written, listed, bar(min(written, listed), listed, 20))
		}
	}
	rep, err := workbench.Import(ctx, store, append(append([]string{}, corpora...), paths...), opts)
	logImported(rep.Results)
	for _, r := range rep.Results {
		fmt.Fprintln(g.textErr(), importedLine(r))
	}
	if err != nil {
		return fmt.Errorf("import (%d of %d paths done): %w", len(rep.Results), total, err)
	}
	return nil
}

func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := done * width / total
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// show opens the TUI, or prints one frame when stdout is not a terminal: a pipe or a CI log
// must never hang waiting for keys.
func (v viewFlags) show(ctx context.Context, g *Globals, store *runs.Store, start tui.Start) error {
	noColor := v.NoColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	if !isTTY(g.Stdout) || !isTTY(os.Stdin) {
		if start.Chain == nil {
			return errors.New("stdout is not a terminal: give --case/--condition to print a frame, or use `ealscope summary`")
		}
		frame, err := tui.RenderFrame(ctx, tui.FrameOptions{Store: store, Chain: *start.Chain, Block: start.Block,
			Width: 120, Height: 40, Plain: true, Dark: true, NoHelp: true, Present: start.Present})
		if err != nil {
			return err
		}
		fmt.Fprintln(g.Stdout, frame)
		return nil
	}
	opts, err := baseOptions(v.Config, store, noColor, v.Mouse)
	if err != nil {
		return err
	}
	opts.Start = start
	return tui.Run(ctx, opts, os.Stdin, g.Stdout)
}

// baseOptions reads the config file (key remapping, theme, model entries offered as re-run
// executors) into the TUI options every interactive command shares.
func baseOptions(configPath string, store *runs.Store, noColor, mouse bool) (tui.Options, error) {
	cfg, err := replay.LoadConfig(configPath)
	if err != nil {
		return tui.Options{}, err
	}
	opts := tui.Options{Store: store, DBPath: store.Path(), NoColor: noColor, Mouse: mouse, Keys: cfg.Keys, Models: cfg, Annotator: annotatorName("")}
	if cfg.Theme != "" {
		dark := cfg.Theme == "dark"
		opts.Dark = &dark
	}
	return opts, nil
}

func isTTY(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
