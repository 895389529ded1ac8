package replay

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Writer is a memory writer a run can use: the scripted writer or a model writer.
type Writer interface {
	attemptWriter
}

// Settings are the run's options as given on the command line. They are stored in the
// manifest (key "ealscope_run") so that --resume can rebuild exactly the same plan.
type Settings struct {
	Domain       string   `json:"domain"`
	Corpus       string   `json:"corpus"`
	CorpusSHA256 string   `json:"corpus_sha256"`
	Cases        []string `json:"cases"`
	Conditions   []string `json:"conditions"`
	Writer       string   `json:"writer"`
	Executor     string   `json:"executor"`
	WriterRuns   int      `json:"writer_runs"`
	ExecutorRuns int      `json:"executor_runs"`
	Seed         int64    `json:"seed"`
	FaultRate    float64  `json:"fault_rate"`
	Faults       []string `json:"faults"`
}

// Progress reports how far a run is.
type Progress struct {
	Phase string
	Done  int
	Total int
}

// Options is one run.
type Options struct {
	Domain     engine.Domain
	Cases      []*engine.Case
	Conditions []engine.Condition
	Writer     Writer
	// EventWriter writes the bounded_event_sourced_typed chains (docs/FORMATS.md 8.2).
	EventWriter  Writer
	Executor     Executor
	WriterRuns   int
	ExecutorRuns int
	Seed         int64
	Concurrency  int
	Out          string
	Version      string
	Command      []string
	Settings     Settings
	// Sidecar is the corpus's audience sidecar, written into the run directory as
	// audience.json (nil: none, and nothing is written).
	Sidecar []byte
	// Families are the scripted writer's fault families (for the manifest's fault summary).
	Families []string
	Progress func(Progress)
}

func (o *Options) progress(phase string, done, total int) {
	if o.Progress != nil {
		o.Progress(Progress{Phase: phase, Done: done, Total: total})
	}
}

func (o *Options) validate() error {
	switch {
	case o.Domain == nil:
		return errors.New("run: no domain")
	case len(o.Cases) == 0:
		return errors.New("run: no cases")
	case len(o.Conditions) == 0:
		return errors.New("run: no conditions")
	case o.Writer == nil:
		return errors.New("run: no writer")
	case o.Executor == nil:
		return errors.New("run: no executor")
	case o.WriterRuns < 1 || o.ExecutorRuns < 1:
		return errors.New("run: --writer-runs and --executor-runs must be at least 1")
	case o.Out == "":
		return errors.New("run: no output directory (--out)")
	}
	for _, c := range o.Conditions {
		if c.ID == engine.EventSourcedCondition && o.EventWriter == nil {
			return errors.New("run: condition " + c.ID + " needs an event writer")
		}
	}
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	return nil
}

// Run produces a run directory: writer chains and baseline evidence, the executor plan, one
// trial per (evidence, probe, executor run), and the manifest with every file's sha256 and
// row count. When ctx is cancelled, everything finished is written and hashed and the
// manifest says "cancelled"; the returned error is then ctx's.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s, err := SurfaceOf(opts.Domain)
	if err != nil {
		return nil, err
	}
	manifest, err := initialManifest(&opts, s)
	if err != nil {
		return nil, err
	}
	w, err := rundir.Create(opts.Out, manifest)
	if err != nil {
		return nil, err
	}
	if len(opts.Sidecar) > 0 {
		if err := w.AddFile("audience", "audience.json", opts.Sidecar); err != nil {
			return nil, err
		}
	}
	return execute(ctx, &opts, s, w, &resumeState{evidence: map[string]rundir.FrozenEvidence{}, done: map[string]bool{}, faults: map[string]int{}, summary: newSummaryBuilder()})
}

func initialManifest(opts *Options, s Surface) (map[string]any, error) {
	d := opts.Domain
	caseIDs := pyjson.ListOf(opts.Cases, func(c *engine.Case) any { return c.ID })
	conds := pyjson.ListOf(opts.Conditions, func(c engine.Condition) any { return c.ID })
	capacity, err := capacitySection(d, opts.Cases, reftoken.Reference())
	if err != nil {
		return nil, err
	}
	settings, err := pyjson.ToTree(opts.Settings)
	if err != nil {
		return nil, err
	}
	corpusVersion := ""
	if len(opts.Cases) > 0 {
		corpusVersion = opts.Cases[0].CorpusVersion
	}
	writerProv := opts.Writer.provenance(opts.Seed)
	execProv := opts.Executor.Provenance(opts.Seed)
	command := stringTrees(opts.Command)
	return map[string]any{
		"started_at": nowLocal(), "domain_id": d.ID(), "domain_adapter_version": d.AdapterVersion(),
		"corpus_version": corpusVersion, "corpus_provenance": map[string]any{"corpus": opts.Settings.Corpus, "sha256": opts.Settings.CorpusSHA256},
		"case_ids": caseIDs, "conditions": conds, "study": StudyID,
		"memory_implementation_id": s.MemoryImplementationID, "memory_implementation_hash": s.MemoryImplementationHash,
		"presentation": s.Presentation, "presentation_hash": s.PresentationHash,
		"artifact_schema_versions": artifactSchemaVersions(d),
		"writer": routeSection(true, "writer", writerProv, opts.WriterRuns, map[string]any{
			"max_attempts": opts.Writer.maxAttempts(), "memory_implementation_id": s.MemoryImplementationID,
			"memory_implementation_hash": s.MemoryImplementationHash,
			"profile_schema":             map[string]any{"free_text": FreeTextProfileSchemaID, "typed": s.TypedProfileSchemaID, "typed_payload_schema_id": d.PayloadSchemaID()},
		}),
		"executor":       routeSection(true, "executor", execProv, opts.ExecutorRuns, nil),
		"capacity_tier":  "primary",
		"capacity":       capacity,
		"seed":           opts.Seed,
		"versions":       map[string]any{"ealscope": opts.Version},
		"command":        command,
		"runtime":        runtimeSection(),
		"ealscope_run":   settings,
		"fault_summary":  faultSummary(opts.Families, nil),
		"resumed_at":     []any{},
		"execution_plan": map[string]any{"status": "pending"},
	}, nil
}

// resumeState is what an earlier invocation finished: frozen evidence by chain key,
// successful executor calls, injected faults; plan says whether executor_plan.jsonl exists.
type resumeState struct {
	evidence map[string]rundir.FrozenEvidence
	done     map[string]bool
	faults   map[string]int
	planned  bool
	// summary already holds what the earlier invocation finished.
	summary *summaryBuilder
}

func chainKey(caseID, condID string, runID int) string {
	return caseID + "\x00" + condID + "\x00" + strconv.Itoa(runID)
}

type chainSpec struct {
	caseIndex int
	cond      engine.Condition
	runID     int
}

type chainResult struct {
	out     *chainOutput
	resumed bool
	err     error
}

type jobResult struct {
	out trialOutput
	err error
}

// execution is one invocation of a run across its three phases: the writer phase (chains
// and baselines), the frozen plan of executor calls, and the executor phase.
type execution struct {
	ctx  context.Context
	opts *Options
	s    Surface
	w    *rundir.Writer
	rs   *resumeState
}

// stopped is why a phase ended the run early: the status the manifest records and the error
// the run returns.
type stopped struct {
	status string
	err    error
}

func execute(ctx context.Context, opts *Options, s Surface, w *rundir.Writer, rs *resumeState) (*Summary, error) {
	x := &execution{ctx: ctx, opts: opts, s: s, w: w, rs: rs}
	items, stop := x.writerPhase()
	if stop != nil {
		return x.finish(stop.status, stop.err)
	}
	todo, stop := x.planPhase(items)
	if stop != nil {
		return x.finish(stop.status, stop.err)
	}
	if stop := x.executorPhase(todo); stop != nil {
		return x.finish(stop.status, stop.err)
	}
	return x.finish(rundir.StatusCompleted, nil)
}

// finish records the run's end in the manifest and returns its summary.
func (x *execution) finish(status string, runErr error) (*Summary, error) {
	extra := map[string]any{"finished_at": nowLocal(), "fault_summary": faultSummary(x.opts.Families, x.rs.faults)}
	if runErr != nil && status == rundir.StatusFailed {
		extra["error"] = runErr.Error()
	}
	if err := x.w.Finish(status, extra); err != nil {
		return nil, errors.Join(runErr, err)
	}
	return x.rs.summary.summary(x.w.Dir(), status, len(x.opts.Cases)), runErr
}

// halt is the early end of a phase that failed with err or was cancelled.
func (x *execution) halt(err error) *stopped {
	status := rundir.StatusCompleted
	switch {
	case x.ctx.Err() != nil:
		status = rundir.StatusCancelled
	case err != nil:
		status = rundir.StatusFailed
	}
	return &stopped{status: status, err: firstErr(err, x.ctx.Err())}
}

// chainSpecs are the writer phase's chains and baselines in the order they are emitted:
// case, then condition, then writer run.
func (x *execution) chainSpecs() []chainSpec {
	var specs []chainSpec
	for ci := range x.opts.Cases {
		for _, cond := range x.opts.Conditions {
			runs := 1
			if cond.Writer {
				runs = x.opts.WriterRuns
			}
			for r := 0; r < runs; r++ {
				specs = append(specs, chainSpec{caseIndex: ci, cond: cond, runID: r})
			}
		}
	}
	return specs
}

// writerPhase builds every chain and baseline (or takes its frozen evidence from an earlier
// invocation) and writes them in spec order; it returns the evidence the executor reads.
func (x *execution) writerPhase() ([]evidenceItem, *stopped) {
	specs := x.chainSpecs()
	tokens := reftoken.Reference()
	var items []evidenceItem
	// Each phase announces itself before its first item: the model calls counted while it
	// runs belong to it (cmd/ealscope progress).
	x.opts.progress("writer", 0, len(specs))
	all, err := runOrdered(x.ctx, len(specs), x.opts.Concurrency,
		func(ctx context.Context, i int) (chainResult, bool) {
			return x.buildChain(ctx, specs[i], tokens)
		},
		func(i int, r chainResult) error {
			sp := specs[i]
			if r.err != nil {
				return fmt.Errorf("case %s, condition %s: %w", x.opts.Cases[sp.caseIndex].ID, sp.cond.ID, r.err)
			}
			if !r.resumed {
				if err := x.recordChain(sp, r.out); err != nil {
					return err
				}
			}
			items = append(items, evidenceItem{caseIndex: sp.caseIndex, condition: sp.cond, row: r.out.evidence})
			x.opts.progress("writer", len(items), len(specs))
			return nil
		})
	if err != nil || !all {
		return nil, x.halt(err)
	}
	return items, nil
}

// buildChain is one chain or baseline of the writer phase; false when cancelled mid-chain.
func (x *execution) buildChain(ctx context.Context, sp chainSpec, tokens reftoken.Counter) (chainResult, bool) {
	d, c := x.opts.Domain, x.opts.Cases[sp.caseIndex]
	if ev, ok := x.rs.evidence[chainKey(c.ID, sp.cond.ID, sp.runID)]; ok {
		return chainResult{out: &chainOutput{evidence: ev}, resumed: true}, true
	}
	if !sp.cond.Writer {
		out, err := baselineChain(d, x.s, c, sp.cond, tokens)
		if err == nil {
			err = out.encode()
		}
		return chainResult{out: out, err: err}, true
	}
	events := sp.cond.ID == engine.EventSourcedCondition
	writer := x.opts.Writer
	if events {
		writer = x.opts.EventWriter
	}
	ch := newChain(d, x.s, c, sp.cond, sp.runID, x.opts.Seed+int64(sp.runID), writer, x.opts.Version)
	if events {
		markEventChain(ch)
	}
	out, ok := runChain(ctx, ch, writer)
	if !ok {
		return chainResult{}, false
	}
	if events {
		extra, err := eventChainRows(ch, out)
		if err != nil {
			return chainResult{err: err}, true
		}
		out.extra = extra
	}
	return chainResult{out: out, err: out.encode()}, true
}

// recordChain writes one newly built chain, commits it, and counts its faults, attempts and
// (for a writer chain) its formation in the summary.
func (x *execution) recordChain(sp chainSpec, out *chainOutput) error {
	rs := x.rs
	if err := writeChain(x.w, out, rs.summary); err != nil {
		return err
	}
	if err := x.w.Commit(); err != nil {
		return err
	}
	for _, f := range out.faults {
		rs.faults[f.Family]++
		rs.summary.faults[f.Family]++
	}
	for _, a := range out.attempts {
		rs.summary.attempt(a.Status)
	}
	if sp.cond.Writer {
		c := x.opts.Cases[sp.caseIndex]
		rs.summary.chains = append(rs.summary.chains, chainFormation(x.opts.Domain, c, sp.cond.ID, sp.runID, out.versions))
	}
	return nil
}

// planPhase lists every (evidence, probe, executor run), writes the plan before any executor
// call unless an earlier invocation froze it, and returns the calls still to make.
func (x *execution) planPhase(items []evidenceItem) ([]job, *stopped) {
	d, opts := x.opts.Domain, x.opts
	var jobs []job
	for _, ev := range items {
		jobs = append(jobs, planJobs(d, x.s, opts.Executor, ev, opts.Cases[ev.caseIndex], opts.ExecutorRuns, opts.Seed)...)
	}
	if !x.rs.planned {
		if stop := x.writePlan(jobs); stop != nil {
			return nil, stop
		}
	}
	var callIDs []any
	for _, j := range jobs {
		callIDs = append(callIDs, j.callID)
	}
	x.w.Set("execution_plan", map[string]any{
		"status": "frozen", "executor_calls": len(jobs), "executor_call_ids_sha256": pyjson.MustContentHash(callIDs),
	})
	var todo []job
	for _, j := range jobs {
		if !x.rs.done[j.callID] {
			todo = append(todo, j)
		}
	}
	return todo, nil
}

// writePlan writes executor_plan.jsonl. A plan cut short by cancellation is never "frozen" in
// the manifest, and --resume rewrites it.
func (x *execution) writePlan(jobs []job) *stopped {
	d := x.opts.Domain
	type planLine struct {
		line []byte
		err  error
	}
	all, err := runOrdered(x.ctx, len(jobs), x.opts.Concurrency,
		func(ctx context.Context, i int) (planLine, bool) {
			msgs, err := jobs[i].messages(d)
			if err != nil {
				return planLine{err: err}, true
			}
			line, err := pyjson.RowLine(jobs[i].planRow(msgs))
			return planLine{line: line, err: err}, true
		},
		func(i int, p planLine) error {
			if p.err != nil {
				return fmt.Errorf("plan of trial %s: %w", jobs[i].trialID, p.err)
			}
			return x.w.AppendRaw(rundir.ExecutorPlan, p.line)
		})
	if err != nil || !all {
		return x.halt(err)
	}
	if err := x.w.Commit(); err != nil {
		return &stopped{status: rundir.StatusFailed, err: err}
	}
	return nil
}

// executorPhase makes the calls still to make on a bounded pool and writes their rows in
// plan order.
func (x *execution) executorPhase(todo []job) *stopped {
	d := x.opts.Domain
	tools := engine.ToolsTree(d)
	finished := 0
	x.opts.progress("executor", 0, len(todo))
	all, err := runOrdered(x.ctx, len(todo), x.opts.Concurrency,
		func(ctx context.Context, i int) (jobResult, bool) {
			j := todo[i]
			tr, ok, err := RunTrial(ctx, x.opts.Executor, TrialSpec{
				Domain: d, Case: j.c, Probe: j.probe, Evidence: j.ev.engineEvidence(), OracleBlock: j.oracleAt,
				Tools: tools, Seed: j.seed, CallID: j.callID,
			})
			if !ok {
				return jobResult{}, false
			}
			if err != nil {
				return jobResult{err: err}, true
			}
			out, err := scoreJob(d, x.s, j, tools, tr)
			if err == nil {
				err = out.encode()
			}
			return jobResult{out: out, err: err}, true
		},
		func(i int, r jobResult) error {
			if r.err != nil {
				return fmt.Errorf("trial %s: %w", todo[i].trialID, r.err)
			}
			if err := x.writeTrial(r.out); err != nil {
				return err
			}
			x.rs.summary.trial(todo[i].ev.condition.ID, r.out.outcome)
			finished++
			x.opts.progress("executor", finished, len(todo))
			return nil
		})
	if err != nil || !all {
		return x.halt(err)
	}
	return nil
}

// writeTrial appends one trial's call, model context and trial rows and commits them: a
// trial is the unit a run killed hard resumes from (rundir.Recover).
func (x *execution) writeTrial(out trialOutput) error {
	if err := x.w.AppendRaw(rundir.Calls, out.callLine); err != nil {
		return err
	}
	x.rs.summary.callLine(out.callLine)
	if err := x.w.AppendRaw(rundir.ModelContexts, out.contextLine); err != nil {
		return err
	}
	if err := x.w.AppendRaw(rundir.Trials, out.trialLine); err != nil {
		return err
	}
	return x.w.Commit()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// writeChain appends one chain's pre-encoded rows; the evidence comes last so that an
// evidence row implies its chain is complete.
func writeChain(w *rundir.Writer, out *chainOutput, sb *summaryBuilder) error {
	for _, l := range out.lines {
		if err := w.AppendRaw(l.file, l.line); err != nil {
			return err
		}
		if l.file == rundir.Calls {
			sb.callLine(l.line)
		}
	}
	return nil
}

type fileLine struct {
	file string
	line []byte
}

// encode serialises the chain's rows (in the workers, so the single writer goroutine only
// copies bytes), file by file in write order.
func (out *chainOutput) encode() error {
	var rows []extraRow
	rows = appendFileRows(rows, rundir.Memories, out.memories)
	rows = appendFileRows(rows, rundir.MemoryAttempts, out.attempts)
	rows = appendFileRows(rows, rundir.MemoryStates, out.states)
	rows = appendFileRows(rows, rundir.Faults, out.faults)
	if err := out.encodeRows(rows); err != nil {
		return err
	}
	for _, line := range out.calls { // encoded when the call was made
		out.lines = append(out.lines, fileLine{rundir.Calls, line})
	}
	rows = appendFileRows(nil, rundir.ModelContexts, out.contexts)
	rows = append(append(rows, out.extra...), extraRow{rundir.Evidence, out.evidence})
	return out.encodeRows(rows)
}

// appendFileRows appends rows of one file to list.
func appendFileRows[T any](list []extraRow, file string, rows []T) []extraRow {
	for _, r := range rows {
		list = append(list, extraRow{file, r})
	}
	return list
}

func (out *chainOutput) encodeRows(rows []extraRow) error {
	for _, r := range rows {
		line, err := pyjson.RowLine(r.row)
		if err != nil {
			return fmt.Errorf("%s row: %w", r.file, err)
		}
		out.lines = append(out.lines, fileLine{r.file, line})
	}
	return nil
}
