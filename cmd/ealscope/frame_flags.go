package main

import (
	"context"

	"github.com/ealscope/ealscope/replay"
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

// withChain reads the theme, opens the workspace (only reads: a missing --db is a typo, not
// a new workspace), resolves the chain by its names and hands them to draw; the store is
// closed after.
func (f frameFlags) withChain(draw func(ctx context.Context, store *runs.Store, k tui.ChainKey, dark bool) error) error {
	ctx := context.Background()
	dark, err := configuredDark(f.Config, f.Light)
	if err != nil {
		return err
	}
	store, err := runs.OpenExisting(f.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	k, err := tui.ResolveChain(ctx, store, f.RunID, f.Case, f.Condition, f.WriterRun)
	if err != nil {
		return err
	}
	return draw(ctx, store, k, dark)
}

// configuredDark is the theme of a frame printed to stdout: --light, else the config file's
// theme, else dark (there is no terminal to ask).
func configuredDark(configPath string, light bool) (bool, error) {
	if light {
		return false, nil
	}
	cfg, err := replay.LoadConfig(configPath)
	if err != nil {
		return false, err
	}
	return cfg.Theme != "light", nil
}
