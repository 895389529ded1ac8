package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/adrg/xdg"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
	"github.com/ealscope/ealscope/tui"
)

// demoSeed fixes the demo run, so every machine shows the same chains.
const demoSeed = 20261130

type demoCmd struct {
	Domain string `default:"${default_domain}" help:"Domain of the demo run (${domains})."`
	workspaceFlag
	viewFlags
}

// Run builds the demo run once (built-in corpus, scripted writer, built-in executor, no
// network) under the XDG data dir, imports it (a second import of the same manifest changes
// nothing) and opens the most instructive chain.
func (c *demoCmd) Run(g *Globals) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := domains.Get(c.Domain); err != nil {
		return err
	}
	dir := filepath.Join(xdg.DataHome, "ealscope", "demo", c.Domain, fmt.Sprintf("builtin-seed-%d", demoSeed))
	if err := ensureDemoRun(ctx, g, c.Domain, dir); err != nil {
		return err
	}
	store, err := runs.Open(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	rep, err := workbench.Import(ctx, store, []string{dir}, runs.ImportOptions{})
	if err != nil {
		return fmt.Errorf("importing the demo run %s: %w", dir, err)
	}
	runID := rep.Results[0].RunID
	k, err := tui.MostInstructive(ctx, store, runID)
	if err != nil {
		return err
	}
	return c.viewFlags.show(ctx, g, store, tui.Start{Chain: &k, Block: -1})
}

// ensureDemoRun reuses a completed demo run directory, or (re)builds it.
func ensureDemoRun(ctx context.Context, g *Globals, domain, dir string) error {
	if _, err := rundir.Open(dir, rundir.Options{}); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(g.textErr(), "building the demo run (%s) in %s (built-in corpus, scripted writer, built-in executor)\n", domain, dir)
	st := replay.Settings{Domain: domain, Corpus: replay.BuiltinCorpus, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: demoSeed, FaultRate: replay.DefaultFaultRate}
	opts, err := replay.Prepare(st, nil, replay.RetryPolicy{}, ealscopeVersion)
	if err != nil {
		return err
	}
	opts.Out, opts.Concurrency = dir, 4
	opts.Command = []string{"ealscope", "demo"}
	if _, err := replay.Run(ctx, opts); err != nil {
		os.RemoveAll(dir) // a half-built demo must not be reused
		return fmt.Errorf("building the demo run: %w", err)
	}
	return nil
}
