package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

type exportCmd struct {
	frameFlags
	Block  int    `name:"block" default:"-1" help:"Block the story is about (default: the first false-authority block)."`
	Format string `name:"format" required:"" enum:"md,html,svg" help:"md (Markdown), html (one self-contained page) or svg (one frame per story step; --width and --height size them)."`
	Out    string `name:"out" required:"" type:"path" help:"Output file (md, html; - for stdout) or directory (svg)."`
}

// Run writes the chain's story (the steps presentation mode shows) as a document or frames.
func (c *exportCmd) Run(g *Globals) error {
	var files []tui.ExportFile
	err := c.withChain(func(ctx context.Context, store *runs.Store, k tui.ChainKey, dark bool) (err error) {
		files, err = tui.Export(ctx, tui.ExportOptions{Store: store, Rerun: store, Chain: k, Block: c.Block, Format: c.Format,
			Width: c.Width, Height: c.Height, Dark: dark})
		return err
	})
	if err != nil {
		return err
	}
	write := func(path string, data []byte) error {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(g.textErr(), "wrote %s\n", path)
		return nil
	}
	if c.Format != "svg" {
		if c.Out == "-" {
			_, err = g.Stdout.Write(files[0].Data)
			return err
		}
		return write(c.Out, files[0].Data)
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := write(filepath.Join(c.Out, f.Name), f.Data); err != nil {
			return err
		}
	}
	return nil
}
