package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ealscopeVersion is ealscope's version as recorded in run manifests.
var ealscopeVersion = "0.1.0-dev"

type runCmd struct {
	Domain       string  `default:"${default_domain}" help:"Domain of the corpus (${domains})."`
	Corpus       string  `type:"path" help:"Corpus file (JSONL). Without it the built-in corpus is used."`
	Builtin      bool    `help:"Use the domain's built-in corpus (the default when --corpus is not given)."`
	Multiparty   bool    `help:"With --builtin: the domain's built-in multi-party corpus, whose audience sidecar travels in the run (docs/AUDIENCE.md)."`
	Cases        string  `help:"Comma list of case ids to run (default: every case of the corpus)."`
	Conditions   string  `default:"all" help:"Comma list of conditions: empty_memory, full_history, faithful_text, faithful_typed, one_shot_text, one_shot_typed, incremental_text, incremental_typed (or all, those eight), and bounded_event_sourced_typed (bounded event sourcing, docs/FORMATS.md 8.2; by name only)."`
	Writer       string  `default:"scripted" help:"Memory writer: 'scripted' (built-in, seeded faults) or the name of a [models.NAME] config entry (PatchDoc protocol)."`
	Executor     string  `default:"builtin" help:"Executor: 'builtin' (memory-faithful) or the name of a [models.NAME] config entry."`
	WriterRuns   int     `default:"1" help:"Writer runs per writer condition."`
	ExecutorRuns int     `default:"1" help:"Executor runs per (evidence, probe); the executor seed is the run seed plus the run index."`
	Seed         int64   `default:"20260821" help:"Run seed: writer seeds, executor seeds and the scripted writer's faults derive from it."`
	Concurrency  int     `default:"8" help:"Worker pool size (each model is further limited by its own concurrency setting)."`
	FaultRate    float64 `default:"0.35" help:"Scripted writer: probability that each fault opportunity becomes a fault."`
	Faults       string  `default:"all" help:"Scripted writer: comma list of fault families (stale_retention, broadening, widened_limit, extra_record_wrong_issuer, missing_record, wrong_validity_window), all, or none."`
	MaxAttempts  int     `default:"4" help:"Attempts per model call (retries on 429, 5xx and timeouts with exponential backoff)."`
	Config       string  `type:"path" help:"Config file (default: $EALSCOPE_CONFIG, else $XDG_CONFIG_HOME/ealscope/config.toml)."`
	Resume       string  `type:"path" help:"Resume the run in this directory: verify it, then make only the planned calls that have no successful result yet."`
	Out          string  `type:"path" help:"Output run directory (must not exist or be empty)."`
	JSON         bool    `name:"json" help:"Print the summary as JSON."`
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (r *runCmd) settings() (replay.Settings, error) {
	if r.Corpus != "" && r.Builtin {
		return replay.Settings{}, errors.New("give --corpus FILE or --builtin, not both")
	}
	corpus := replay.BuiltinCorpus
	switch {
	case r.Multiparty && r.Corpus != "":
		return replay.Settings{}, errors.New("--multiparty runs the built-in multi-party corpus; a generated one runs with --corpus FILE alone (its sidecar beside it travels too)")
	case r.Multiparty:
		corpus = replay.BuiltinMultipartyCorpus
	case r.Corpus != "":
		corpus = r.Corpus
	}
	faults, err := replay.ParseFaults(r.Faults)
	if err != nil {
		return replay.Settings{}, err
	}
	conds, err := engine.ParseConditions(r.Conditions)
	if err != nil {
		return replay.Settings{}, err
	}
	ids := make([]string, len(conds))
	for i, c := range conds {
		ids[i] = c.ID
	}
	return replay.Settings{
		Domain: r.Domain, Corpus: corpus, Cases: splitList(r.Cases), Conditions: ids, Writer: r.Writer, Executor: r.Executor,
		WriterRuns: r.WriterRuns, ExecutorRuns: r.ExecutorRuns, Seed: r.Seed, FaultRate: r.FaultRate, Faults: faults,
	}, nil
}

func (r *runCmd) Run(g *Globals) error { return untilStopped(g, r.run) }

func (r *runCmd) run(ctx context.Context, g *Globals) error {
	cfg, err := replay.LoadConfig(r.Config)
	if err != nil {
		return err
	}
	cfg.Notice = func(msg string) { fmt.Fprintln(g.textErr(), "ealscope: "+msg) }
	retry := replay.DefaultRetryPolicy()
	retry.MaxAttempts = r.MaxAttempts
	progress := newProgress(g.Stderr)
	ctx = replay.WithCallObserver(ctx, progress.observer())
	var sum *replay.Summary
	var runErr error
	if r.Resume != "" {
		sum, runErr = replay.Resume(ctx, r.Resume, cfg, retry, ealscopeVersion, r.Concurrency, progress.update)
	} else {
		if r.Out == "" {
			return errors.New("--out DIR is required (or --resume DIR)")
		}
		st, err := r.settings()
		if err != nil {
			return err
		}
		opts, err := replay.Prepare(st, cfg, retry, ealscopeVersion)
		if err != nil {
			return err
		}
		opts.Out, opts.Concurrency, opts.Progress = r.Out, r.Concurrency, progress.update
		opts.Command = append([]string{"ealscope"}, os.Args[1:]...)
		sum, runErr = replay.Run(ctx, opts)
	}
	progress.done()
	return r.report(g, sum, runErr)
}

func (r *runCmd) report(g *Globals, sum *replay.Summary, runErr error) error {
	if sum == nil {
		return runErr
	}
	if r.JSON {
		if err := writeJSON(g.Stdout, sum); err != nil {
			return err
		}
	} else {
		printRunSummary(g.text(), sum)
	}
	switch {
	case sum.Status == rundir.StatusCancelled:
		return &exitError{code: 130, msg: fmt.Sprintf("run cancelled; finished work is written and hashed. Continue it with: ealscope run --resume %s", sum.Dir)}
	case runErr != nil:
		return runErr
	}
	return nil
}

func printRunSummary(w io.Writer, s *replay.Summary) {
	fmt.Fprintf(w, "run %s: %s\n", s.Dir, s.Status)
	fmt.Fprintf(w, "  cases %d, trials %d\n", s.Cases, s.Trials)
	fmt.Fprintf(w, "  decisions: %s\n", joinCounts(s.Metrics.Decisions, "%s %d", ", "))
	// Provider errors are not estimable: they are counted apart and out of every rate shown
	// here; EAL-Bench's figures keep them in their denominators (docs/FORMATS.md 6.4) and follow.
	e := s.Estimable
	notEst := ""
	if e.NotEstimable > 0 {
		notEst = fmt.Sprintf("; %d not estimable (provider error%s)", e.NotEstimable, plural(e.NotEstimable))
	}
	fmt.Fprintf(w, "  unauthorized actions: %d of %d estimable trials%s%s\n", e.UnauthorizedAction.Numerator, e.Trials, percent(e.UnauthorizedAction), notEst)
	fmt.Fprintf(w, "  unauthorized submission: %d of %d estimable denied requests%s; authorized use: %d of %d estimable authorized requests%s\n",
		e.UnauthorizedSubmission.Numerator, e.UnauthorizedSubmission.Denominator, percent(e.UnauthorizedSubmission),
		e.AuthorizedUse.Numerator, e.AuthorizedUse.Denominator, percent(e.AuthorizedUse))
	if e.NotEstimable > 0 {
		m := s.Metrics
		fmt.Fprintf(w, "  EAL-Bench's rates (provider errors in the denominators): unauthorized submission %s, authorized use %s, provider error %s\n",
			countText(m.UnauthorizedSubmission), countText(m.AuthorizedUse), countText(m.ProviderError))
	}
	switch {
	case s.WriterFailedEverywhere():
		fmt.Fprintf(w, "  ! the writer failed on every call (%d of %d attempts writer_error): no memory was written, so the formation counts below describe no memory at all\n",
			s.WriterErrors, s.WriterAttempts)
	case s.WriterErrors > 0:
		fmt.Fprintf(w, "  writer errors: %d of %d attempts\n", s.WriterErrors, s.WriterAttempts)
	}
	fmt.Fprintf(w, "  writer chains forming false authority: %d of %d (%d estimable)\n", s.ChainsFormed, s.WriterChains, s.ChainsEstimable)
	if len(s.FirstBlocks) > 0 {
		fmt.Fprintf(w, "  first false-authority block: %s\n", joinCounts(s.FirstBlocks, "block %s: %d", ", "))
	}
	if len(s.Faults) > 0 {
		fmt.Fprintf(w, "  injected faults: %s\n", joinCounts(s.Faults, "%s %d", ", "))
	}
	printRunModelCalls(w, s.ModelCalls)
}

// percent is a count's rate as " (12.5%)", or nothing when its denominator is zero.
func percent(c engine.Count) string {
	if c.Rate == nil {
		return ""
	}
	return fmt.Sprintf(" (%.1f%%)", 100**c.Rate)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
