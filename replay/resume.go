package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Resume continues a run that stopped (cancelled or failed) after hashing its files. It
// verifies the directory against its manifest, rebuilds the run from the settings stored
// there (same corpus, checked by sha256), keeps every finished writer chain and every
// successful executor call, and makes only the rest: chains without frozen evidence, then the
// planned calls without a successful trial. Trials that ended in a provider error are
// dropped with their contexts and made again; calls.jsonl keeps every earlier row, as
// EAL-Bench's append-only call log does.
//
// A run that was killed (SIGKILL, a full disk) is first recovered with rundir.Recover: its
// files are cut back to the last committed chain or trial.
//
// Writer chains are the unit of resumption: a chain interrupted mid-way was never written,
// so it is produced again from its first update.
func Resume(ctx context.Context, dir string, cfg *Config, retry RetryPolicy, version string, concurrency int, progress func(Progress)) (*Summary, error) {
	// A run killed hard (or stopped by a full disk) still says "running" and lists no
	// files: its journal cuts every file back to the last whole unit first.
	recovered, err := rundir.Recover(dir)
	if err != nil {
		return nil, err
	}
	if recovered != nil {
		slog.Info("run recovered from its journal", "dir", dir, "dropped_bytes", recovered.Dropped)
	}
	run, err := rundir.Open(dir, rundir.Options{AllowIncomplete: true})
	if err != nil {
		return nil, err
	}
	raw, ok := run.Manifest["ealscope_run"]
	if !ok {
		return nil, fmt.Errorf("%s/manifest.json: field ealscope_run: missing (only runs written by `ealscope run` can be resumed)", run.Dir)
	}
	var st Settings
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return nil, fmt.Errorf("%s/manifest.json: field ealscope_run: %v", run.Dir, err)
	}
	opts, err := Prepare(st, cfg, retry, version)
	if err != nil {
		return nil, err
	}
	opts.Out, opts.Concurrency, opts.Progress = run.Dir, concurrency, progress
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s, err := SurfaceOf(opts.Domain)
	if err != nil {
		return nil, err
	}
	if run.Status == rundir.StatusCompleted {
		return Summarize(opts.Domain, opts.Cases, run), nil
	}
	rs := &resumeState{evidence: map[string]rundir.FrozenEvidence{}, done: map[string]bool{}, faults: map[string]int{}, summary: newSummaryBuilder()}
	for _, r := range run.Files[rundir.Evidence] {
		ev, err := evidenceFromRow(r.Tree)
		if err != nil {
			return nil, fmt.Errorf("%s/evidence.jsonl:%d: %v", run.Dir, r.Line, err)
		}
		rs.evidence[chainKey(ev.CaseID, ev.ConditionID, ev.MemoryRunID)] = ev
	}
	for _, r := range run.Files[rundir.Faults] {
		rs.faults[r.Str("family")]++
	}
	plan, _ := run.Manifest["execution_plan"].(map[string]any)
	rs.planned = plan["status"] == "frozen"
	redo := map[string]bool{}
	for _, r := range run.Files[rundir.Trials] {
		callID := trialCallID(r)
		if r.Str("decision") == engine.ProviderError {
			redo[callID] = true
		} else {
			rs.done[callID] = true
		}
	}
	rs.summary.addRun(opts.Domain, opts.Cases, run, redo)
	w, err := rundir.Reopen(run, func(name string, r rundir.Row) bool {
		switch name {
		case rundir.Trials:
			return !redo[trialCallID(r)]
		case rundir.ExecutorPlan:
			return rs.planned
		case rundir.ModelContexts:
			return r.Str("stage") != "executor" || !redo[r.Str("call_id")]
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	resumed, _ := run.Manifest["resumed_at"].([]any)
	w.Set("resumed_at", append(append([]any{}, resumed...), nowLocal()))
	return execute(ctx, &opts, s, w, rs)
}

func trialCallID(r rundir.Row) string {
	meta, _ := r.Tree["metadata"].(map[string]any)
	core, _ := meta["core"].(map[string]any)
	id, _ := core["call_id"].(string)
	return id
}
