package main

import (
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// The flags of the commands that re-run the executor on a stored chain (replay, safeguards),
// said once. Kong flattens an embedded struct where it is embedded, so each group keeps its
// place in the commands' help; the flags whose help differs between the commands (--run,
// --case, --seed, --concurrency) stay the commands' own.

// chainNameFlags are --condition and --writer-run, which with --case name one chain.
type chainNameFlags struct {
	Condition string `name:"condition" help:"Condition id of the chain (e.g. incremental_typed)."`
	WriterRun *int64 `name:"writer-run" help:"Writer run of the chain (default: the only one)."`
}

// executorFlag is the executor the chain's probes are re-run with.
type executorFlag struct {
	Executor string `name:"executor" default:"builtin" help:"Executor: 'builtin' (memory-faithful) or the name of a [models.NAME] config entry."`
}

// modelCallFlags are how often a model call is tried and the config file naming the models.
type modelCallFlags struct {
	MaxAttempts int    `name:"max-attempts" default:"4" help:"Attempts per model call (retries on 429, 5xx and timeouts with exponential backoff)."`
	Config      string `name:"config" type:"path" help:"Config file (default: $EALSCOPE_CONFIG, else $XDG_CONFIG_HOME/ealscope/config.toml)."`
}

// openForRerun loads the models' config and opens the workspace db for writing: what a
// command that re-runs the executor needs before it finds its chains. The caller closes the
// store.
func (f modelCallFlags) openForRerun(g *Globals, db string) (*replay.Config, *runs.Store, error) {
	cfg, err := replay.LoadConfig(f.Config)
	if err != nil {
		return nil, nil, err
	}
	store, err := openForWriting(g, db, runs.OpenExisting)
	if err != nil {
		return nil, nil, err
	}
	return cfg, store, nil
}

// models resolves --executor against the config file, each model call tried at most
// --max-attempts times.
func (f modelCallFlags) models(cfg *replay.Config) replay.Models {
	retry := replay.DefaultRetryPolicy()
	if f.MaxAttempts > 0 {
		retry.MaxAttempts = f.MaxAttempts
	}
	return replay.Models{Config: cfg, Retry: retry}
}
