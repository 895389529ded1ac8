package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

type renderCmd struct {
	frameFlags
	Block   int    `name:"block" default:"-1" help:"Block to show (default: the first false-authority block)."`
	Pane    string `name:"pane" default:"all" enum:"all,timeline,history,memory,ledger,probes" help:"One pane, or all."`
	NoColor bool   `name:"no-color" help:"Plain text (also when NO_COLOR is set to anything, TERM=dumb, or stdout is not a terminal)."`
	Color   bool   `name:"color" help:"Keep the colours even when stdout is not a terminal (to pipe into an image tool such as freeze); NO_COLOR still wins."`
	NoHelp  bool   `name:"no-help" help:"Leave out the help bar (the default when stdout is not a terminal, and with --present)."`
	HelpBar bool   `name:"help-bar" help:"Keep the help bar even when stdout is not a terminal."`
	Present bool   `name:"present" help:"Render presentation mode: one step of the chain's story."`
	Step    int    `name:"step" default:"1" help:"Story step to render with --present (1-based)."`
}

// Run prints one frame of the chain view to stdout (for slides, docs and tests).
func (c *renderCmd) Run(g *Globals) error {
	// Colours follow NO_COLOR and the terminal, as the TUI does: a pipe or file gets plain text
	// unless --color asks for the escape sequences.
	plain := c.NoColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" || !c.Color && !isTTY(g.Stdout)
	noHelp := c.NoHelp || c.Present || !c.HelpBar && !isTTY(g.Stdout)
	return c.withChain(func(ctx context.Context, store *runs.Store, k tui.ChainKey, dark bool) error {
		frame, err := tui.RenderFrame(ctx, tui.FrameOptions{Store: store, Chain: k, Block: c.Block, Pane: c.Pane,
			Width: c.Width, Height: c.Height, Plain: plain, Dark: dark, NoHelp: noHelp, Present: c.Present, Step: c.Step})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.Stdout, frame)
		return err
	})
}
