package replay

// Live re-runs: one executor, one memory variant, some probes of one case at one
// block, N repetitions. Requests are built exactly as the run pipeline builds them
// (engine.ExecutorMessages, engine.ToolsTree), so a re-run of an imported trial with the same
// memory sends the same request and its hash equals the trial's model-context content_hash.
// Results stream on a channel (CONVENTIONS §10) and are handed to a save callback one by one
// as they finish, so a cancelled re-run keeps every arm that completed.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/replayrow"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Mirror is an imported trial on the same memory and probe as a re-run arm.
type Mirror struct {
	TrialID string
	// ContextHash is the trial's executor model-context content_hash ("" when the run has no
	// model context for it).
	ContextHash    string
	ExecutorTarget string
	ExecutorRunID  int
}

// Formation is a stored formation verdict for the arm's memory and probe.
type Formation struct {
	Formed    bool
	Estimable bool
}

// RerunProbe is one probe to re-run.
type RerunProbe struct {
	Probe engine.Probe
	// OperationalContext is EAL-Bench's challenge text for this probe when the imported run
	// had one (see OperationalContextFrom); "" otherwise.
	OperationalContext string
	// Mirrors are the imported trials on this memory and probe (written memory only).
	Mirrors []Mirror
	// Formation overrides the formation computed from the payload: the store's verdict,
	// which also covers free text read through accepted annotations.
	Formation *Formation
}

// RerunSpec is one re-run request.
type RerunSpec struct {
	Domain engine.Domain
	Case   *engine.Case
	// Block is the history block whose memory is shown; the oracle scores against the ledger
	// through the same block.
	Block    int
	Memory   RerunMemory
	Probes   []RerunProbe
	Executor Executor
	// Runs is the number of repetitions; repetition r uses seed Seed + r (EAL-Bench's
	// executor_seed = seed + executor_run_id).
	Runs int
	Seed int64
	// Workers bounds the calls in flight (0: 8). A model's own concurrency setting bounds it
	// further, inside its client.
	Workers int
	// ChainRef names the chain in replay ids (for uniqueness across chains).
	ChainRef string
	// Now stamps created_at and the batch id (nil: time.Now).
	Now func() time.Time
	// Policy is an optional safeguard applied to every arm (see RunTrial).
	Policy *engine.Policy
}

// RerunResult is one finished arm: everything a replay row stores.
type RerunResult struct {
	replayrow.Arm
	CaseID string
	Mirror *Mirror
	// Gated is the policy's transformation of this arm's memory (nil without a policy).
	Gated *engine.GatedMemory
}

// ArmRecord is what a replay row stores of one executor trial, a live re-run's arm or a
// safeguard lab's alike (the shared row type of runs/replayrow).
type ArmRecord = replayrow.Record

// recordArm is the record of a finished trial sent with tools by the executor whose route is
// prov; the response model is taken from the reply when the call succeeded. The formation
// verdict is the caller's to fill in.
func recordArm(tr Trial, tools []any, prov rundir.ModelProvenance) ArmRecord {
	rec := tr.Call
	if rec.Error == nil && rec.Response != nil {
		prov.ResponseModel = rec.Response.Model
	}
	return ArmRecord{Executor: prov, Messages: tr.Messages, Tools: tools, RequestHash: tr.RequestHash,
		Response: rec.EngineResponse(), Usage: rec.Usage, Attempts: rec.Attempts, LatencyMS: rec.LatencyMS,
		Outcome: tr.Outcome, Gate: tr.Gate}
}

// MirrorMismatch reports a written arm whose request differs from its mirrored trial's: the
// one case where the re-run did not send the request EAL-Bench sent.
func (r RerunResult) MirrorMismatch() bool {
	return r.Memory.Variant == engine.VariantWritten && r.Mirror != nil && r.Mirror.ContextHash != "" && r.Mirror.ContextHash != r.RequestHash
}

// EventKind tells events apart.
type EventKind int

const (
	// EventResult carries one finished (and saved) arm.
	EventResult EventKind = iota
	// EventDone is the last event: the re-run finished, was cancelled or a save failed.
	EventDone
)

// Event is one progress event of a re-run.
type Event struct {
	Kind        EventKind
	Done, Total int
	Result      *RerunResult
	// Err (EventDone) is the error that stopped the re-run (scoring), else the first save
	// error, or nil.
	Err error
	// SaveErr (EventResult) says the arm finished but could not be saved (e.g. the workspace
	// stayed locked): the result is still delivered, and listed in EventDone's Unsaved.
	SaveErr error
	// Unsaved (EventDone) are the finished arms save refused, to be saved again: a result a
	// user waited for is never dropped because the database was busy.
	Unsaved []RerunResult
	// Cancelled (EventDone): ctx ended before every arm finished; Done arms were kept.
	Cancelled bool
}

// SaveFunc stores one finished arm. It runs on a single goroutine, in plan order.
type SaveFunc func(ctx context.Context, r RerunResult) error

type rerunJob struct {
	probe    RerunProbe
	rep      int
	seed     int64
	replayID string
	mirror   *Mirror
}

// plan validates the spec and builds every request before anything runs, so a bad spec
// fails whole and at once.
func (s *RerunSpec) plan() ([]rerunJob, []any, string, error) {
	switch {
	case s.Domain == nil || s.Case == nil:
		return nil, nil, "", errors.New("re-run: no domain or case")
	case s.Executor == nil:
		return nil, nil, "", errors.New("re-run: no executor")
	case len(s.Probes) == 0:
		return nil, nil, "", errors.New("re-run: no probes")
	case s.Runs < 1:
		return nil, nil, "", fmt.Errorf("re-run: --runs must be at least 1, got %d", s.Runs)
	case s.Block < 0 || s.Block > s.Case.LastBlock():
		return nil, nil, "", fmt.Errorf("re-run: block %d is outside case %s (blocks 0..%d)", s.Block, s.Case.ID, s.Case.LastBlock())
	case s.Memory.Payload == nil:
		return nil, nil, "", errors.New("re-run: the memory has no payload")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	prov := s.Executor.Provenance(s.Seed)
	// The batch id carries the start instant so that re-running the same arms again keeps
	// both batches instead of overwriting the first.
	batch := pyjson.StableID24("rerun", s.ChainRef, s.Case.ID, strconv.Itoa(s.Block), s.Memory.Variant, s.Memory.ContentHash,
		prov.TargetID, strconv.FormatInt(s.Seed, 10), strconv.FormatInt(now().UnixNano(), 10))
	tools := engine.ToolsTree(s.Domain)
	var jobs []rerunJob
	for _, p := range s.Probes {
		// Build each request once up front so a probe the domain cannot render fails the whole
		// re-run before any call; RunTrial builds the same request again for each arm.
		msgs, err := engine.ExecutorMessages(s.Domain, s.Case, p.Probe, memoryEvidence(s.Memory, p.OperationalContext))
		if err != nil {
			return nil, nil, "", fmt.Errorf("re-run: probe %s: %w", p.Probe.ID, err)
		}
		if _, err := engine.RequestHash(msgs, tools); err != nil {
			return nil, nil, "", fmt.Errorf("re-run: probe %s: %w", p.Probe.ID, err)
		}
		for r := 0; r < s.Runs; r++ {
			j := rerunJob{probe: p, rep: r, seed: s.Seed + int64(r),
				replayID: pyjson.StableID64("replay", batch, p.Probe.ID, strconv.Itoa(r))}
			if s.Memory.Variant == engine.VariantWritten {
				j.mirror = pickMirror(p.Mirrors, prov.TargetID, r)
			}
			jobs = append(jobs, j)
		}
	}
	return jobs, tools, batch, nil
}

// pickMirror prefers the trial of the same executor and run index, then the same run index,
// then any: the request (and so the hash) does not depend on the executor.
func pickMirror(ms []Mirror, target string, rep int) *Mirror {
	var sameRun, first *Mirror
	for i := range ms {
		m := &ms[i]
		if m.ExecutorRunID == rep && m.ExecutorTarget == target {
			return m
		}
		if m.ExecutorRunID == rep && sameRun == nil {
			sameRun = m
		}
		if first == nil {
			first = m
		}
	}
	if sameRun != nil {
		return sameRun
	}
	return first
}

// StartRerun validates the spec, then runs every (probe, repetition) arm on a bounded pool
// and returns the event channel: one EventResult per arm, after save stored it, then one
// EventDone, then the channel closes. Arms run in parallel and are saved in plan order. When
// ctx ends no new call starts, calls in flight are abandoned (not recorded: they did not
// finish), and every arm that finished is still saved. A provider failure is a finished arm
// (decision provider_error), never dropped.
func StartRerun(ctx context.Context, spec RerunSpec, save SaveFunc) (<-chan Event, error) {
	jobs, tools, batch, err := spec.plan()
	if err != nil {
		return nil, err
	}
	now := time.Now
	if spec.Now != nil {
		now = spec.Now
	}
	workers := spec.Workers
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	workers = min(workers, len(jobs))
	events := make(chan Event, 1)
	type done struct {
		res RerunResult
		err error
	}
	go func() {
		defer close(events)
		// Saving must outlive the caller's cancellation: what finished is kept.
		saveCtx := context.WithoutCancel(ctx)
		total, finished := len(jobs), 0
		// The same bounded pool as the run pipeline's: arms are made in parallel and saved in
		// plan order from this goroutine; a cancelled re-run still saves every arm that
		// finished. An arm whose save fails is still delivered and kept in Unsaved.
		var saveErr error
		var unsaved []RerunResult
		_, stop := runOrdered(ctx, len(jobs), workers,
			func(ctx context.Context, i int) (done, bool) {
				res, ok, err := spec.runArm(ctx, jobs[i], tools, batch, now)
				return done{res: res, err: err}, ok
			},
			func(i int, d done) error {
				if d.err != nil {
					return d.err
				}
				finished++
				r := d.res
				ev := Event{Kind: EventResult, Done: finished, Total: total, Result: &r}
				if err := save(saveCtx, d.res); err != nil {
					ev.SaveErr = fmt.Errorf("saving replay %s: %w", d.res.ReplayID, err)
					if saveErr == nil {
						saveErr = ev.SaveErr
					}
					unsaved = append(unsaved, d.res)
				}
				events <- ev
				return nil
			})
		if stop == nil {
			stop = saveErr
		}
		events <- Event{Kind: EventDone, Done: finished, Total: total, Err: stop, Unsaved: unsaved, Cancelled: stop == nil && finished < total}
	}()
	return events, nil
}

// runArm makes one call and scores it. ok is false when ctx cut the call short.
func (s *RerunSpec) runArm(ctx context.Context, j rerunJob, tools []any, batch string, now func() time.Time) (RerunResult, bool, error) {
	callID := pyjson.StableID64("call", j.replayID, "executor")
	tr, ok, err := RunTrial(ctx, s.Executor, TrialSpec{
		Domain: s.Domain, Case: s.Case, Probe: j.probe.Probe, Evidence: memoryEvidence(s.Memory, j.probe.OperationalContext),
		OracleBlock: s.Block, Tools: tools, Seed: j.seed, CallID: callID, Policy: s.Policy,
	})
	if !ok {
		return RerunResult{}, false, nil
	}
	if err != nil {
		return RerunResult{}, true, err
	}
	res := RerunResult{
		Arm: replayrow.Arm{ReplayID: j.replayID, BatchID: batch, BlockIndex: s.Block, ProbeID: j.probe.Probe.ID, Repetition: j.rep, Seed: j.seed,
			Memory: s.Memory, Record: recordArm(tr, tools, s.Executor.Provenance(j.seed)), CreatedAt: now().UTC()},
		CaseID: s.Case.ID, Mirror: j.mirror, Gated: tr.Gated,
	}
	switch {
	case j.probe.Formation != nil:
		res.MemoryFormed, res.FormationEstimable = j.probe.Formation.Formed, j.probe.Formation.Estimable
	default:
		res.MemoryFormed, res.FormationEstimable = MemoryForms(s.Domain, s.Case, s.Block, s.Memory, j.probe.Probe)
	}
	return res, true, nil
}

// Rerun runs a spec to the end and returns the arms that finished (in plan order),
// whether ctx cut it short, and the error that stopped it.
func Rerun(ctx context.Context, spec RerunSpec, save SaveFunc) ([]RerunResult, bool, error) {
	events, err := StartRerun(ctx, spec, save)
	if err != nil {
		return nil, false, err
	}
	var out []RerunResult
	for ev := range events {
		switch ev.Kind {
		case EventResult:
			out = append(out, *ev.Result)
		case EventDone:
			return out, ev.Cancelled, ev.Err
		}
	}
	return out, false, errors.New("re-run: event stream ended without a done event")
}
