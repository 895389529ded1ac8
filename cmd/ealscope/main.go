// Command ealscope is the terminal inspector and workbench for authorization-memory runs.
// This file only parses the command line and maps results to exit codes; every subcommand
// lives in its own file.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/engine/safetext"
)

// Globals are handed to every subcommand's Run.
type Globals struct {
	Stdout io.Writer `kong:"-"`
	Stderr io.Writer `kong:"-"`
}

// CLI is the command tree.
type CLI struct {
	Version  kong.VersionFlag `name:"version" help:"Print the version (module version and VCS revision from the build info) and exit."`
	LogLevel string           `name:"log-level" default:"info" enum:"debug,info,warn,error,off" help:"Log to $XDG_STATE_HOME/ealscope/ealscope.log (never the screen) at this level: debug, info, warn, error or off."`

	Check      checkCmd      `cmd:"" help:"Validate a corpus and print each probe's oracle verdict at the final block."`
	Gen        genCmd        `cmd:"" help:"Generate a seeded synthetic corpus of valid cases (for scale tests)."`
	Fidelity   fidelityCmd   `cmd:"" help:"Score one typed memory payload against the ledger at a block."`
	Gate       gateCmd       `cmd:"" help:"Apply EAL-Bench's cited-source authority gate to one typed memory and print its SourceAuthorityGateResult."`
	Run        runCmd        `cmd:"" help:"Produce a run directory: writer chains, frozen evidence and executor trials (built-in parts or OpenAI-compatible models)."`
	Import     importCmd     `cmd:"" help:"Verify and import run directories, corpora and writer-memories files into the workspace."`
	Summary    summaryCmd    `cmd:"" help:"Summarise the runs, chains and memories of the workspace."`
	Demo       demoCmd       `cmd:"" help:"Build the demo run (built-in corpus, no network), import it and open the most instructive chain."`
	Open       openCmd       `cmd:"" help:"Import run directories (if given) and open the inspector, optionally at an exact chain and block."`
	Render     renderCmd     `cmd:"" help:"Print one frame of the chain view (or one pane, or a presentation step) to stdout."`
	Export     exportGroup   `cmd:"" help:"Write a chain's story (Markdown, HTML or SVG frames) or the analysis tables (export tables: Parquet or CSV)."`
	Replay     replayCmd     `cmd:"" help:"Re-run the executor on a chain's case with written, oracle-exact, edited or file memory; store, score and attribute every arm."`
	Bench      benchCmd      `cmd:"" help:"Benchmarks: bench import times the import against a plain reference loader."`
	Annotate   annotateCmd   `cmd:"" help:"Label free-text memories as typed states: the annotation screen, set, agreement, export and import of EAL-Bench annotation child runs."`
	Reduce     reduceCmd     `cmd:"" help:"Apply one event batch with the bounded event-sourcing reducer and print the events, the reduced state or the rejection."`
	Verify     verifyCmd     `cmd:"" help:"Machine-check a safeguard's invariants (memtx: I1 and I2 over random traces and an exhaustive bounded enumeration)."`
	Diagnose   diagnoseCmd   `cmd:"" help:"Write EAL-Bench diagnosis rows with ealscope's rule-based judgement (why false authority formed), or compare it with the judges of a file."`
	Why        whyCmd        `cmd:"" help:"Why false authority formed in a chain: the cause in EAL-Bench's taxonomy, the turns behind it ranked with evidence, optionally confirmed by removing each turn (--ablate)."`
	Safeguards safeguardsCmd `cmd:"" help:"The safeguard lab: apply each policy to a chain's memory versions (or every chain of a run), re-run the executor behind the gated memory, and report what it stops and what it refuses."`
}

// exitError carries a specific exit code (e.g. "some cases are invalid") without printing
// a usage error.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	var cli CLI
	exitCode := -1
	parser, err := kong.New(&cli,
		kong.Name("ealscope"),
		kong.Description("Inspect and re-run authorization-memory (EAL-Bench) runs in the terminal."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exitCode = code }),
		kong.UsageOnError(),
		kong.Vars{"version": versionText(), "domains": strings.Join(domains.IDs(), ", "), "default_domain": domains.Default, "policies": strings.Join(safeguards.IDs(), ", ")},
	)
	if err != nil {
		fmt.Fprintln(stderr, "ealscope:", safetext.Text(err.Error()))
		return 2
	}
	ctx, err := parser.Parse(args)
	if exitCode >= 0 { // --help
		return exitCode
	}
	if err != nil {
		fmt.Fprintln(stderr, "ealscope:", safetext.Text(err.Error()))
		return 2
	}
	logFile, err := setupLogging(cli.LogLevel)
	if err != nil {
		fmt.Fprintln(stderr, "ealscope:", err)
		return 2
	}
	defer logFile.Close()
	slog.Info("command", "command", ctx.Command())
	err = ctx.Run(&Globals{Stdout: stdout, Stderr: stderr})
	if err != nil {
		slog.Error("command failed", "command", ctx.Command(), "error", err.Error())
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "ealscope:", safetext.Text(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "ealscope:", safetext.Text(err.Error()))
	return 1
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
