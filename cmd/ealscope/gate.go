package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/replay"
)

type gateCmd struct {
	Corpus   string `help:"Corpus file holding the case (its domain is read from the file unless --domain names it)."`
	Builtin  bool   `help:"Take the case from the built-in corpus instead of a file."`
	Domain   string `help:"Domain of the corpus (${domains}; default: detected from the file, ${default_domain} for --builtin)."`
	Case     string `name:"case" required:"" help:"Case id."`
	Memory   string `required:"" type:"path" help:"Typed memory payload (JSON object) to gate."`
	Block    *int   `help:"Gate at this block: only turns of blocks up to it are visible (default: the final block; negative: no turn is visible)."`
	AllTurns bool   `name:"all-turns" help:"Gate with every turn of the case visible (EAL-Bench's through_block_index None)."`
	JSON     bool   `name:"json" help:"Print EAL-Bench's SourceAuthorityGateResult JSON (sorted keys, as EAL-Bench writes it)."`
}

func (c *gateCmd) Run(g *Globals) error {
	if c.AllTurns && c.Block != nil {
		return fmt.Errorf("give --block K or --all-turns, not both")
	}
	d, kase, raw, err := caseAndMemory(c.Domain, c.Builtin, c.Corpus, c.Case, c.Memory)
	if err != nil {
		return err
	}
	// The strict parser first, so that a refusal names the file, the line and the field.
	mem, err := replay.ParseMemoryText(d, engine.ArchTyped, c.Memory, engine.VariantFile, raw)
	if err != nil {
		return fmt.Errorf("the %s typed memory parser refuses the memory: %w", d.ID(), err)
	}
	through := c.Block
	if through == nil && !c.AllTurns {
		last := kase.LastBlock()
		through = &last
	}
	res, err := safeguards.GateTypedPayload(d, kase, mem.Payload, through)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Memory, err)
	}
	if c.JSON {
		out, err := res.JSON()
		if err != nil {
			return err
		}
		_, err = io.WriteString(g.Stdout, safetext.EscapeJSON(string(out))+"\n")
		return err
	}
	printGate(g, kase.ID, c.Memory, res)
	return nil
}

// printGate is the short human summary: the counts, then per record kept or removed, its
// reason, and each cited turn with its principal (all untrusted text goes through g.text()).
func printGate(g *Globals, caseID, memory string, res *safeguards.SourceAuthorityGateResult) {
	at := "every turn visible"
	if res.ThroughBlockIndex != nil {
		at = fmt.Sprintf("turns of blocks <= %d visible", *res.ThroughBlockIndex)
	}
	fmt.Fprintf(g.text(), "case %s, memory %s, %s: %d records, %d kept, %d removed\n",
		caseID, memory, at, res.InputRecordCount, res.RetainedRecordCount, res.RemovedRecordCount())
	tw := tabwriter.NewWriter(g.text(), 0, 2, 2, ' ', 0)
	for _, d := range res.Decisions {
		verdict := "removed"
		if d.Passed {
			verdict = "kept"
		}
		var cites []string
		for _, c := range d.Citations {
			who := "not in the case"
			if c.Source != nil {
				who = c.Source.PrincipalID
				if c.Source.AuthorizationCapable {
					who += ", capable"
				}
			}
			cites = append(cites, fmt.Sprintf("%q (%s: %s)", c.SourceTurnID, who, c.Reason))
		}
		if len(cites) == 0 {
			cites = []string{"cites nothing"}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", verdict, d.AuthorizationID, d.Reason, strings.Join(cites, "; "))
	}
	tw.Flush()
}
