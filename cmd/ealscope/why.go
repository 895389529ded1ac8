package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// whyCmd says why false authority formed in one chain at one block (docs/CAUSES.md).
type whyCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Run id (or unique prefix); optional when one run holds the chain."`
	Case  string `name:"case" required:"" help:"Case id of the chain."`
	chainNameFlags
	Block  int    `name:"block" default:"-1" help:"Block where the error entered (default: the chain's first false-authority block)."`
	Probe  string `name:"probe" help:"Probe whose request the memory wrongly authorizes (default: the first that forms at the block)."`
	Ablate bool   `name:"ablate" help:"Re-run the chain's writer without each of the top ranked turns and say whether the failure still forms."`
	Top    int    `name:"top" default:"3" help:"With --ablate: how many ranked turns to remove, one at a time."`
	JSON   bool   `name:"json" help:"Print the attribution as JSON."`
}

func (c *whyCmd) Run(g *Globals) error {
	if c.Condition == "" {
		return usageErr("give --case and --condition (and --writer-run when the chain has several)")
	}
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	chain, err := store.FindChain(ctx, c.RunID, c.Case, c.Condition, c.WriterRun)
	if err != nil {
		return err
	}
	wc, err := workbench.LoadWhyChain(ctx, store, chain.Key)
	if err != nil {
		return err
	}
	w, err := wc.Explain(workbench.WhyQuery{Key: chain.Key, Block: c.Block, Probe: c.Probe, Ablate: c.Ablate, AblateTop: c.Top})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(g.Stdout, w)
	}
	printWhy(g.Stdout, w)
	return nil
}

// printWhy writes the attribution for people; corpus text is sanitised.
func printWhy(w io.Writer, y workbench.Why) {
	a := y.Attribution
	s := safetext.Text
	fmt.Fprintf(w, "%s · %s · writer run %d · block %d · probe %s\n", s(y.CaseID), s(y.ConditionID), y.WriterRunID, y.Block, s(y.Probe))
	fmt.Fprintf(w, "cause: %s (%s; from the %s)\n", a.Class, y.Support, a.Basis)
	if a.EnteredHere {
		fmt.Fprintf(w, "entered at block %d\n", y.Block)
	} else {
		fmt.Fprintf(w, "carried into block %d from an earlier block\n", y.Block)
	}
	fmt.Fprintf(w, "%s\n", s(a.Explanation))
	if len(a.Changes) > 0 {
		fmt.Fprintln(w, "\nwhat the memory grants that the ledger does not")
		for _, ch := range a.Changes {
			fmt.Fprintf(w, "  %s\n", s(ch.Text()))
		}
	}
	fmt.Fprintln(w, "\nranked causes")
	if len(a.Causes) == 0 {
		fmt.Fprintln(w, "  none: the cause is unknown")
	}
	for _, c := range a.Causes {
		fmt.Fprintf(w, "  %d. %s · turn %s · %s · block %d\n", c.Rank, c.Role, s(c.TurnID), s(c.Speaker), c.Block)
		for _, e := range c.Evidence {
			fmt.Fprintf(w, "       - %s\n", s(e.Text))
		}
		if c.Ablation != nil {
			fmt.Fprintf(w, "       ablation: %s (%s)\n", strings.ReplaceAll(c.Ablation.Status, "_", " "), s(c.Ablation.Detail))
		}
	}
	if a.Joint != nil {
		fmt.Fprintf(w, "\njoint ablation of %s: %s (%s)\n", s(strings.Join(a.Joint.TurnIDs, ", ")),
			strings.ReplaceAll(a.Joint.Ablation.Status, "_", " "), s(a.Joint.Ablation.Detail))
	}
	if len(a.Ignored) > 0 {
		fmt.Fprintln(w, "\nledger events the memory did not apply")
		for _, ig := range a.Ignored {
			field := ""
			if ig.Field != "" {
				field = " (" + ig.Field + ")"
			}
			fmt.Fprintf(w, "  %s of %s%s at block %d, from %s\n", ig.Type, s(ig.AuthorizationID), s(field), ig.Block, s(strings.Join(ig.SourceTurnIDs, ", ")))
		}
	}
	if y.Ablation != "" {
		fmt.Fprintf(w, "\nablation: %s\n", s(y.Ablation))
	}
}
