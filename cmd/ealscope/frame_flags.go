package main

import (
	"context"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

// frameFlags are what `render` and `export` share: the chain to draw, the frame size and the
// theme. Kong flattens the embedded struct, so the flags are the commands' own.
type frameFlags struct {
	workspaceFlag
	RunID     string `name:"run" help:"Run id (or unique prefix), when the chain is in several runs."`
	Case      string `name:"case" required:"" help:"Case id."`
	Condition string `name:"condition" required:"" help:"Condition id."`
	WriterRun int    `name:"writer-run" default:"0" help:"Writer run."`
	Width     int    `name:"width" default:"120" help:"Frame width in cells."`
	Height    int    `name:"height" default:"40" help:"Frame height in lines."`
	Light     bool   `name:"light" help:"Use the light theme's colours (default: the configured theme, else dark)."`
	Config    string `name:"config" type:"path" help:"Config file whose theme applies (default: $EALSCOPE_CONFIG, else $XDG_CONFIG_HOME/ealscope/config.toml)."`
}

// open reads the theme and opens the chain; the caller closes the store.
func (f frameFlags) open(ctx context.Context) (store *runs.Store, k tui.ChainKey, dark bool, err error) {
	if dark, err = configuredDark(f.Config, f.Light); err != nil {
		return nil, k, false, err
	}
	store, k, err = openChain(ctx, f.DB, f.RunID, f.Case, f.Condition, f.WriterRun)
	return store, k, dark, err
}
