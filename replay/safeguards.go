package replay

// The safeguard lab for one chain (docs/SAFEGUARDS.md): every policy is applied to every
// memory version of a writer chain, false-authority formation is recomputed on the gated
// memory exactly as the inspector computes it on the written memory (engine.Form against the
// ledger at the same block), and the executor is re-run behind the gated memory for every
// probe through RunTrial (the one trial path), paired with an un-gated trial of the same
// probe.
//
// The un-gated arm is a fresh trial by the same executor, with the same seed, request path
// and operational context: only the memory differs between the two arms (EAL-Bench's matched
// replay, docs/FORMATS.md 7.3, and its gating study, which "replays original and gated memories on
// the same requests", docs/FORMATS.md 8.1). The run's own trials are not reused as that arm: they
// exist only at the final block and may come from another executor or seed, which would make
// a difference between the arms partly the executor's, not the policy's. One un-gated arm per
// (block, probe) is shared by every policy.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"

	"github.com/ealscope/ealscope/runs/replayrow"
)

// gatedVersion is one policy's transformation of one memory version.
type gatedVersion struct {
	notApplicable string
	gated         *engine.GatedMemory
	memory        RerunMemory
	formation     FormationVerdict
}

type safeguardJob struct {
	block, version int
	probe          engine.Probe
	policy         int // -1: the un-gated arm
	replayID       string
}

// EvaluateChain runs the lab on one chain. Memory transformations and formation are pure and
// computed first (a policy error other than engine.ErrNotApplicable stops the evaluation);
// then every arm runs on one bounded pool (runOrdered). When ctx ends, no new call starts and
// the evaluation returns what finished, with Cancelled set. A provider failure is an arm
// (decision provider_error), never an error.
func EvaluateChain(ctx context.Context, spec SafeguardSpec) (*ChainEvaluation, error) {
	ch := spec.Chain
	if err := checkSafeguardChain(spec); err != nil {
		return nil, err
	}
	now := time.Now
	if spec.Now != nil {
		now = spec.Now
	}
	prov := spec.Executor.Provenance(spec.Seed)
	ev := &ChainEvaluation{
		CaseID: ch.Case.ID, Condition: ch.Condition, Architecture: ch.Architecture, ChainRef: ch.ChainRef,
		WriterTarget: ch.WriterTarget, WriterRunID: ch.WriterRunID, FinalBlock: ch.Case.LastBlock(), Executor: prov, Seed: spec.Seed, CreatedAt: now().UTC(),
	}
	ev.BatchID = pyjson.StableID24("safeguards", ch.ChainRef, ch.Case.ID, ch.Condition, prov.TargetID, strconv.FormatInt(spec.Seed, 10),
		strconv.FormatInt(ev.CreatedAt.UnixNano(), 10))

	pl, err := planWrittenChain(ch)
	if err != nil {
		return nil, err
	}
	ev.FinalFormation = FormationVerdict{FormedProbeIDs: []string{}}
	if last := len(ch.Versions) - 1; ch.Versions[last].Block == ch.Case.LastBlock() {
		ev.FinalFormation = pl.writtenForm[last]
	}
	if err := pl.gate(spec.Policies); err != nil {
		return nil, err
	}
	jobs := pl.armJobs(spec, ev.BatchID)
	arms, all, err := pl.runArms(ctx, spec, jobs, prov, now)
	if err != nil {
		return nil, err
	}
	ev.Cancelled = !all
	pl.assemble(ev, spec.Policies, jobs, arms)
	return ev, nil
}

// checkSafeguardChain refuses a spec the lab cannot evaluate: no domain, case or executor, no
// memory, an unknown architecture, or memory versions out of block order.
func checkSafeguardChain(spec SafeguardSpec) error {
	ch := spec.Chain
	switch {
	case ch.Domain == nil || ch.Case == nil:
		return errors.New("safeguards: no domain or case")
	case spec.Executor == nil:
		return errors.New("safeguards: no executor")
	case len(ch.Versions) == 0:
		return fmt.Errorf("safeguards: chain %s/%s has no memory", ch.Case.ID, ch.Condition)
	case ch.Architecture != engine.ArchTyped && ch.Architecture != engine.ArchFreeText:
		return fmt.Errorf("safeguards: chain %s/%s: unknown architecture %q", ch.Case.ID, ch.Condition, ch.Architecture)
	}
	for i, v := range ch.Versions {
		if v.Block < 0 || v.Block > ch.Case.LastBlock() || (i > 0 && v.Block <= ch.Versions[i-1].Block) {
			return fmt.Errorf("safeguards: chain %s/%s: memory versions must be at increasing blocks within 0..%d (version %d at block %d)",
				ch.Case.ID, ch.Condition, ch.Case.LastBlock(), i, v.Block)
		}
	}
	return nil
}

// chainPlan is what EvaluateChain computed before any call: the written memories, their
// formation and their history as engine memory versions, every policy's transformation of
// every version, and the versions trialled.
type chainPlan struct {
	ch            SafeguardChain
	written       []RerunMemory
	writtenForm   []FormationVerdict
	mversions     []engine.MemoryVersion
	gated         [][]gatedVersion
	trialVersions []int
}

// planWrittenChain reads every written memory version of the chain and its formation (the
// stored verdict when the chain carries one, else computed as the inspector computes it).
func planWrittenChain(ch SafeguardChain) (*chainPlan, error) {
	pl := &chainPlan{
		ch:          ch,
		written:     make([]RerunMemory, len(ch.Versions)),
		writtenForm: make([]FormationVerdict, len(ch.Versions)),
		mversions:   make([]engine.MemoryVersion, len(ch.Versions)),
	}
	for i, v := range ch.Versions {
		m, err := WrittenMemory(ch.Architecture, v.Payload, v.MemoryID)
		if err != nil {
			return nil, fmt.Errorf("safeguards: chain %s/%s block %d: %w", ch.Case.ID, ch.Condition, v.Block, err)
		}
		pl.written[i] = m
		pl.mversions[i] = engine.MemoryVersion{Block: v.Block, Evidence: memoryEvidence(m, "")}
		if v.Formation != nil {
			pl.writtenForm[i] = *v.Formation
		} else if pl.writtenForm[i], err = formationOf(ch.Domain, ch.Case, v.Block, m); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// gate applies every policy to every memory version, policy by policy, and computes the
// formation on each gated memory.
func (pl *chainPlan) gate(policies []engine.Policy) error {
	ch := pl.ch
	pl.gated = make([][]gatedVersion, len(policies))
	for pi := range policies {
		p := &policies[pi]
		pl.gated[pi] = make([]gatedVersion, len(ch.Versions))
		for vi, v := range ch.Versions {
			gv, err := transformVersion(ch, p, v.Block, pl.written[vi], pl.mversions[:vi+1])
			if err != nil {
				return err
			}
			switch {
			case gv.notApplicable != "":
				gv.formation = FormationVerdict{FormedProbeIDs: []string{}}
			case gv.gated == nil:
				gv.formation = pl.writtenForm[vi]
			default:
				if gv.formation, err = formationOf(ch.Domain, ch.Case, v.Block, gv.memory); err != nil {
					return err
				}
			}
			pl.gated[pi][vi] = gv
		}
	}
	return nil
}

// armJobs are the arms to run: one un-gated per (trial block, probe) and one per policy
// applicable there, at the final block or, with TrialsAtEveryBlock, at every version.
func (pl *chainPlan) armJobs(spec SafeguardSpec, batchID string) []safeguardJob {
	ch := pl.ch
	pl.trialVersions = []int{len(ch.Versions) - 1}
	if spec.Blocks == TrialsAtEveryBlock {
		pl.trialVersions = pl.trialVersions[:0]
		for i := range ch.Versions {
			pl.trialVersions = append(pl.trialVersions, i)
		}
	}
	var jobs []safeguardJob
	for _, vi := range pl.trialVersions {
		block := ch.Versions[vi].Block
		for _, p := range ch.Case.Probes {
			jobs = append(jobs, safeguardJob{block: block, version: vi, probe: p, policy: -1,
				replayID: pyjson.StableID64("replay", batchID, "written", strconv.Itoa(block), p.ID)})
			for pi := range spec.Policies {
				if pl.gated[pi][vi].notApplicable != "" {
					continue
				}
				jobs = append(jobs, safeguardJob{block: block, version: vi, probe: p, policy: pi,
					replayID: pyjson.StableID64("replay", batchID, spec.Policies[pi].ID, spec.Policies[pi].Version, strconv.Itoa(block), p.ID)})
			}
		}
	}
	return jobs
}

// runArms runs every arm on one bounded pool and marks each with the formation of the memory
// it read; false when ctx ended first (the arms not run are nil).
func (pl *chainPlan) runArms(ctx context.Context, spec SafeguardSpec, jobs []safeguardJob, prov rundir.ModelProvenance, now func() time.Time) ([]*SafeguardArm, bool, error) {
	ch := pl.ch
	tools := engine.ToolsTree(ch.Domain)
	workers := spec.Workers
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	workers = max(1, min(workers, len(jobs)))
	arms := make([]*SafeguardArm, len(jobs))
	type armResult struct {
		arm *SafeguardArm
		err error
	}
	done := 0
	all, stop := runOrdered(ctx, len(jobs), workers,
		func(ctx context.Context, i int) (armResult, bool) {
			j := jobs[i]
			var pol *engine.Policy
			if j.policy >= 0 {
				pol = &spec.Policies[j.policy]
			}
			a, ok, err := runSafeguardArm(ctx, spec, ch, j, pol, pl.written[j.version], pl.mversions[:j.version+1], tools, prov, now)
			return armResult{arm: a, err: err}, ok
		},
		func(i int, r armResult) error {
			if r.err != nil {
				return r.err
			}
			j := jobs[i]
			a := r.arm
			f := pl.writtenForm[j.version]
			if j.policy >= 0 {
				gv := pl.gated[j.policy][j.version]
				a.Memory = gv.memory
				f = gv.formation
			}
			a.FormationEstimable, a.MemoryFormed = f.Estimable, f.Estimable && contains(f.FormedProbeIDs, j.probe.ID)
			arms[i] = a
			done++
			if spec.Progress != nil {
				spec.Progress(done, len(jobs))
			}
			return nil
		})
	return arms, all, stop
}

// assemble files the finished arms into the evaluation: baseline arms by (block, probe),
// then each policy's evaluation against them.
func (pl *chainPlan) assemble(ev *ChainEvaluation, policies []engine.Policy, jobs []safeguardJob, arms []*SafeguardArm) {
	baseline := map[armKey]*SafeguardArm{}
	gatedArms := make([]map[armKey]*SafeguardArm, len(policies))
	for pi := range gatedArms {
		gatedArms[pi] = map[armKey]*SafeguardArm{}
	}
	for i, j := range jobs {
		if arms[i] == nil {
			continue
		}
		k := armKey{j.block, j.probe.ID}
		if j.policy < 0 {
			baseline[k] = arms[i]
			ev.Baseline = append(ev.Baseline, arms[i])
		} else {
			gatedArms[j.policy][k] = arms[i]
		}
	}
	for pi := range policies {
		ev.Policies = append(ev.Policies, pl.policyEvaluation(pi, policies[pi], baseline, gatedArms[pi]))
	}
}

// armKey names an arm of a chain: a block and a probe.
type armKey struct {
	block int
	probe string
}

// policyEvaluation assembles one policy's verdict on the chain from the plan and the
// finished arms (a pair missing an arm, cut short by cancellation, is left out).
func (pl *chainPlan) policyEvaluation(pi int, p engine.Policy, baseline, gatedArms map[armKey]*SafeguardArm) PolicyEvaluation {
	ch, written, writtenForm, gated, trialVersions := pl.ch, pl.written, pl.writtenForm, pl.gated, pl.trialVersions
	pe := PolicyEvaluation{PolicyID: p.ID, PolicyVersion: p.Version, Description: p.Description}
	var before, after []engine.BlockFormation
	applicable := false
	removed := map[string]int{}
	for vi, v := range ch.Versions {
		gv := gated[pi][vi]
		b := SafeguardBlock{BlockIndex: v.Block, MemoryID: v.MemoryID, WrittenHash: written[vi].ContentHash, Written: writtenForm[vi],
			NotApplicable: gv.notApplicable, Gated: gv.gated, Records: []engine.RecordDecision{}}
		before = append(before, engine.BlockFormation{BlockIndex: v.Block, Estimable: b.Written.Estimable, Formed: b.Written.Formed})
		if gv.notApplicable == "" {
			applicable = true
			b.GatedPayload, b.GatedHash = gv.memory.Payload, gv.memory.ContentHash
			f := gv.formation
			b.GatedFormation = f
			if gv.gated != nil {
				b.Records = gv.gated.Records
			}
			after = append(after, engine.BlockFormation{BlockIndex: v.Block, Estimable: f.Estimable, Formed: f.Formed})
			for _, r := range b.Records {
				if r.Kept {
					continue
				}
				if _, seen := removed[r.AuthorizationID]; !seen {
					removed[r.AuthorizationID] = len(pe.Removed)
					pe.Removed = append(pe.Removed, RemovedRecord{AuthorizationID: r.AuthorizationID, FirstBlock: v.Block,
						Reasons: append([]string{}, r.Reasons...), State: r.State, Trust: r.Trust, Cited: citedTurns(ch.Domain, ch.Case, r.Sources)})
				}
			}
		} else {
			b.GatedFormation = FormationVerdict{FormedProbeIDs: []string{}}
		}
		pe.Blocks = append(pe.Blocks, b)
	}
	if !applicable {
		pe.NotApplicable = gated[pi][0].notApplicable
	}
	if blk, ok := engine.FirstFalseAuthorityBlock(before); ok {
		pe.FirstFalseAuthorityBefore = &blk
	}
	if blk, ok := engine.FirstFalseAuthorityBlock(after); ok {
		pe.FirstFalseAuthorityAfter = &blk
	}
	last := pe.Blocks[len(pe.Blocks)-1]
	pe.FinalWritten = last.Written
	if last.BlockIndex != ch.Case.LastBlock() {
		// The chain has no memory at the final block: nothing is measured there.
		pe.FinalWritten = FormationVerdict{FormedProbeIDs: []string{}}
	}
	pe.FinalGated = FormationVerdict{FormedProbeIDs: []string{}}
	if last.NotApplicable == "" && last.BlockIndex == ch.Case.LastBlock() {
		pe.FinalGated = last.GatedFormation
	}
	pe.FormationRemoved = applicable && pe.FirstFalseAuthorityBefore != nil && pe.FirstFalseAuthorityAfter == nil && allEstimable(after)
	for _, vi := range trialVersions {
		block := ch.Versions[vi].Block
		for _, pr := range ch.Case.Probes {
			k := armKey{block, pr.ID}
			w := baseline[k]
			if w == nil {
				continue
			}
			pair := SafeguardPair{BlockIndex: block, ProbeID: pr.ID, RequestAuthorized: w.Outcome.RequestAuthorized, Written: w}
			if gated[pi][vi].notApplicable != "" {
				pair.Effect = EffectNotApplicable
			} else {
				g := gatedArms[k]
				if g == nil {
					continue
				}
				pair.Gated = g
				pair.Effect = pairEffect(w, g)
			}
			pe.Pairs = append(pe.Pairs, pair)
		}
	}
	pe.Counts = CountPairs(pe.Pairs)
	var final []SafeguardPair
	for _, p := range pe.Pairs {
		if p.BlockIndex == ch.Case.LastBlock() {
			final = append(final, p)
		}
	}
	pe.FinalCounts = CountPairs(final)
	return pe
}

// transformVersion applies a policy's memory transformation to one version.
func transformVersion(ch SafeguardChain, p *engine.Policy, block int, m RerunMemory, versions []engine.MemoryVersion) (gatedVersion, error) {
	if p.Memory == nil {
		return gatedVersion{memory: m}, nil
	}
	g, err := p.Memory.TransformMemory(engine.MemoryInput{Domain: ch.Domain, Case: ch.Case, Block: block, Evidence: memoryEvidence(m, ""),
		Condition: ch.Condition, Versions: versions})
	if errors.Is(err, engine.ErrNotApplicable) {
		return gatedVersion{notApplicable: err.Error(), memory: m}, nil
	}
	if err != nil {
		return gatedVersion{}, fmt.Errorf("safeguards: policy %s on %s/%s block %d: %w", p.ID, ch.Case.ID, ch.Condition, block, err)
	}
	if g.Evidence.Kind != engine.MemoryEvidence {
		return gatedVersion{}, fmt.Errorf("safeguards: policy %s on %s/%s block %d: the gated memory is not a memory payload", p.ID, ch.Case.ID, ch.Condition, block)
	}
	payload := g.Evidence.Payload
	if _, isText := payload.(string); !isText {
		tree, err := pyjson.Retree(payload)
		if err != nil {
			return gatedVersion{}, fmt.Errorf("safeguards: policy %s on %s/%s block %d: gated payload: %w", p.ID, ch.Case.ID, ch.Condition, block, err)
		}
		payload = tree
	}
	gm, err := newRerunMemory(engine.VariantGated, ch.Architecture, payload, p.ID+"@"+p.Version)
	if err != nil {
		return gatedVersion{}, err
	}
	g.Evidence.Payload = payload
	return gatedVersion{gated: &g, memory: gm}, nil
}

// runSafeguardArm makes one trial through RunTrial: with the policy for a gated arm, without
// for the un-gated one.
func runSafeguardArm(ctx context.Context, spec SafeguardSpec, ch SafeguardChain, j safeguardJob, pol *engine.Policy, mem RerunMemory,
	versions []engine.MemoryVersion, tools []any, prov rundir.ModelProvenance, now func() time.Time) (*SafeguardArm, bool, error) {
	tr, ok, err := RunTrial(ctx, spec.Executor, TrialSpec{
		Domain: ch.Domain, Case: ch.Case, Probe: j.probe, Evidence: memoryEvidence(mem, ch.OperationalContext[j.probe.ID]),
		OracleBlock: j.block, Tools: tools, Seed: spec.Seed, CallID: pyjson.StableID64("call", j.replayID, "executor"),
		Policy: pol, Condition: ch.Condition, Versions: versions,
	})
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return &SafeguardArm{replayrow.Arm{
		ReplayID: j.replayID, BlockIndex: j.block, ProbeID: j.probe.ID, Seed: spec.Seed, Memory: mem,
		Record: recordArm(tr, tools, prov), CreatedAt: now().UTC(),
	}}, true, nil
}
