package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

type renderCmd struct {
	DB        string `name:"db" type:"path" help:"Workspace database (default: $XDG_DATA_HOME/ealscope/workspace.db)."`
	RunID     string `name:"run" help:"Run id (or unique prefix), when the chain is in several runs."`
	Case      string `name:"case" required:"" help:"Case id."`
	Condition string `name:"condition" required:"" help:"Condition id."`
	WriterRun int    `name:"writer-run" default:"0" help:"Writer run."`
	Block     int    `name:"block" required:"" help:"Block to show."`
	Pane      string `name:"pane" default:"all" enum:"all,timeline,history,memory,ledger,probes" help:"One pane, or all."`
	Width     int    `name:"width" default:"120" help:"Frame width in cells."`
	Height    int    `name:"height" default:"40" help:"Frame height in lines."`
	NoColor   bool   `name:"no-color" help:"Plain text (also when NO_COLOR is set to anything, or TERM=dumb)."`
	Light     bool   `name:"light" help:"Use the light theme's colours."`
}

// Run prints one frame of the chain view to stdout (for slides, docs and tests).
func (c *renderCmd) Run(g *Globals) error {
	ctx := context.Background()
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	k, err := tui.ResolveChain(ctx, store, c.RunID, c.Case, c.Condition, c.WriterRun)
	if err != nil {
		return err
	}
	plain := c.NoColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	frame, err := tui.RenderFrame(ctx, tui.FrameOptions{Store: store, Chain: k, Block: c.Block, Pane: c.Pane,
		Width: c.Width, Height: c.Height, Plain: plain, Dark: !c.Light})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(g.Stdout, frame)
	return err
}
