package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ealscope/ealscope/tui"
)

type exportCmd struct {
	DB        string `name:"db" type:"path" help:"Workspace database (default: $XDG_DATA_HOME/ealscope/workspace.db)."`
	RunID     string `name:"run" help:"Run id (or unique prefix), when the chain is in several runs."`
	Case      string `name:"case" required:"" help:"Case id."`
	Condition string `name:"condition" required:"" help:"Condition id."`
	WriterRun int    `name:"writer-run" default:"0" help:"Writer run."`
	Block     int    `name:"block" default:"-1" help:"Block the story is about (default: the first false-authority block)."`
	Format    string `name:"format" required:"" enum:"md,html,svg" help:"md (Markdown), html (one self-contained page) or svg (one frame per story step)."`
	Out       string `name:"out" required:"" type:"path" help:"Output file (md, html; - for stdout) or directory (svg)."`
	Width     int    `name:"width" default:"120" help:"SVG frame width in cells."`
	Height    int    `name:"height" default:"40" help:"SVG frame height in lines."`
	Light     bool   `name:"light" help:"Light theme (default: the configured theme, else dark)."`
	Config    string `name:"config" type:"path" help:"Config file whose theme applies (default: $EALSCOPE_CONFIG, else $XDG_CONFIG_HOME/ealscope/config.toml)."`
}

// Run writes the chain's story (the steps presentation mode shows) as a document or frames.
func (c *exportCmd) Run(g *Globals) error {
	ctx := context.Background()
	dark, err := configuredDark(c.Config, c.Light)
	if err != nil {
		return err
	}
	store, k, err := openChain(ctx, c.DB, c.RunID, c.Case, c.Condition, c.WriterRun)
	if err != nil {
		return err
	}
	defer store.Close()
	files, err := tui.Export(ctx, tui.ExportOptions{Store: store, Rerun: store, Chain: k, Block: c.Block, Format: c.Format,
		Width: c.Width, Height: c.Height, Dark: dark})
	if err != nil {
		return err
	}
	if c.Format != "svg" {
		if c.Out == "-" {
			_, err = g.Stdout.Write(files[0].Data)
			return err
		}
		if err := os.WriteFile(c.Out, files[0].Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(g.textErr(), "wrote %s\n", c.Out)
		return nil
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(c.Out, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(g.textErr(), "wrote %s\n", p)
	}
	return nil
}
