package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// workspace writes a diagnosis row for every false-authorization failure of a workspace run.
func (c *diagnoseCmd) workspace(g *Globals) error {
	var judges []replay.NamedJudge
	if len(c.Judge) > 0 {
		cfg, err := replay.LoadConfig(c.Config)
		if err != nil {
			return err
		}
		models := c.models(cfg)
		for _, name := range c.Judge {
			client, err := models.Judge(name)
			if err != nil {
				return err
			}
			judges = append(judges, replay.NamedJudge{Name: name, Client: client})
		}
	}
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	sum, err := store.Run(ctx, c.RunID)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	rep, err := workbench.DiagnoseRun(ctx, store, sum.RunID, judges, &buf)
	if err != nil {
		return err
	}
	for _, f := range rep.JudgeFailures {
		fmt.Fprintf(g.Stderr, "judge not estimable on a row: %s\n", safetext.Text(f))
	}
	if c.Out == "" {
		_, err = g.Stdout.Write(buf.Bytes())
		return err
	}
	if err := replay.WriteFileAtomic(c.Out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "wrote %d diagnosis rows (%d chains with false authority) to %s\n", rep.Rows, rep.Chains, c.Out)
	return nil
}
