package replay

import (
	"context"

	"github.com/ealscope/ealscope/engine"
)

// ScriptedRun describes a run made entirely by ealscope's own pipeline, as `ealscope run
// --builtin` makes one: the scripted writer with every seeded fault family at
// DefaultFaultRate, the built-in executor, one writer and one executor run per trial, no model
// endpoint. The import benchmark (`ealscope bench import`) and the store's tests and
// benchmarks generate their runs with it.
type ScriptedRun struct {
	Domain, Corpus string
	// Cases are the corpus's cases to run (all when empty).
	Cases []string
	// Conditions is a comma list of condition ids, or "all".
	Conditions string
	Seed       int64
	// Version is the ealscope version the manifest records.
	Version string
	// Out is the run directory to write; Concurrency the trials run at once.
	Out         string
	Concurrency int
}

// Make writes the run and returns its summary.
func (r ScriptedRun) Make(ctx context.Context) (*Summary, error) {
	conds, err := engine.ParseConditions(r.Conditions)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(conds))
	for i, c := range conds {
		ids[i] = c.ID
	}
	st := Settings{Domain: r.Domain, Corpus: r.Corpus, Cases: r.Cases, Conditions: ids, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: r.Seed, FaultRate: DefaultFaultRate, Faults: append([]string(nil), FaultFamilies...)}
	opts, err := Prepare(st, &Config{Models: map[string]Model{}}, DefaultRetryPolicy(), r.Version)
	if err != nil {
		return nil, err
	}
	opts.Out, opts.Concurrency = r.Out, r.Concurrency
	return Run(ctx, opts)
}
