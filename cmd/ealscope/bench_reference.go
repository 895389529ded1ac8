package main

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/runs"
)

// benchReferenceCmd runs runs.RunReferenceLoader alone, so that it can be timed as a whole
// process beside `ealscope import` (paired runs by an outside timer, A B A B). The database is
// replaced: the reference loads into a fresh one, as the import it is compared with does.
type benchReferenceCmd struct {
	DB     string `name:"db" required:"" type:"path" help:"Database to load into (removed first, with its WAL)."`
	RunDir string `arg:"" name:"run" type:"existingdir" help:"Run directory."`
}

func (c *benchReferenceCmd) Run(g *Globals) error {
	removeDB(c.DB)
	ref, err := runs.RunReferenceLoader(context.Background(), c.RunDir, c.DB)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.text(), "reference loader: %d files, %d rows, %.1f MB in %.2f s; database %.1f MB\n",
		ref.Files, ref.Rows, float64(ref.Bytes)/1e6, ref.Elapsed.Seconds(), float64(databaseBytes(c.DB))/1e6)
	return nil
}
