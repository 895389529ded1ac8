package main

import (
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
)

// maxVerifyBound caps --bound: the state count grows about threefold per step (bound 7 is
// about 1.0 million states in 9 s, bound 8 about 3.2 million in 40 s on two cores).
const maxVerifyBound = 10

type verifyCmd struct {
	Memtx verifyMemtxCmd `cmd:"" name:"memtx" help:"Check MemTX's invariants I1 and I2 over random protocol traces and a bounded exhaustive enumeration of protocol states."`
}

type verifyMemtxCmd struct {
	Traces      int    `default:"10000" help:"Random traces to run."`
	TraceLength int    `name:"trace-length" default:"40" help:"Operations per random trace."`
	Bound       int    `default:"7" help:"Depth of the exhaustive enumeration (operations from the empty store, 0 to 10)."`
	Seed        uint64 `default:"20260821" help:"Seed of the random traces."`
	JSON        bool   `name:"json" help:"Print the report as JSON."`
}

func (c *verifyMemtxCmd) Run(g *Globals) error {
	if c.Bound < 0 || c.Bound > maxVerifyBound {
		return fmt.Errorf("verify memtx: --bound must be between 0 and %d, got %d", maxVerifyBound, c.Bound)
	}
	if c.Traces < 0 || c.TraceLength < 1 {
		return fmt.Errorf("verify memtx: --traces must be at least 0 and --trace-length at least 1")
	}
	// The default check takes about 15 s: its progress goes to stderr as it runs.
	progress := newProgress(g.Stderr)
	rep := safeguards.VerifyMemTX(safeguards.MemTXVerifyConfig{Traces: c.Traces, TraceLength: c.TraceLength, Bound: c.Bound, Seed: c.Seed,
		Progress: func(phase string, done, total int) {
			progress.update(replay.Progress{Phase: phase, Done: done, Total: total})
		}})
	progress.done()
	if c.JSON {
		if err := writeJSON(g.Stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(g.Stdout, "MemTX invariants I1 and I2\n  traces run:        %d (%d operations)\n  states enumerated: %d (bound %d)\n  actions checked:   %d\n  violations:        %d\n",
			rep.Traces, rep.TraceSteps, rep.StatesEnumerated, rep.Bound, rep.ActionsChecked, rep.Violations)
		for _, e := range rep.Examples {
			fmt.Fprintln(g.Stdout, "  e.g. "+e)
		}
	}
	if rep.Violations > 0 {
		var by []string
		for k, n := range rep.ByInvariant {
			by = append(by, fmt.Sprintf("%s %d", k, n))
		}
		return &exitError{code: 1, msg: "verify memtx: invariant violations: " + strings.Join(by, ", ")}
	}
	return nil
}
