package replay

// The safeguard lab over a run (docs/SAFEGUARDS.md): every chain evaluated as in
// EvaluateChain, reduced to one engine.SafeguardOutcome per (chain, policy) at the final
// block, and the table per policy and condition with paired bootstrap intervals
// (engine.SafeguardTable). Chains are evaluated on one bounded pool (runOrdered) and handed
// to a save callback one by one, in plan order, so a cancelled batch keeps every chain that
// finished whole.

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ealscope/ealscope/engine"
)

// EventSourcedCondition is EAL-Bench's bounded event-sourcing writer condition (docs/FORMATS.md
// 8.2), and IncrementalTypedCondition the baseline its trials are paired with.
const (
	EventSourcedCondition     = "bounded_event_sourced_typed"
	IncrementalTypedCondition = "incremental_typed"
)

// EventSourcingRowID names the table row pairing event-sourced chains with incremental_typed
// ones: it sits where a policy id goes, with the baseline condition as its condition.
const EventSourcingRowID = "bounded_event_sourcing"

// Unit is the resampling unit's key of a chain: its case and writer run.
func (e *ChainEvaluation) Unit() string {
	return e.CaseID + "\x00" + e.WriterTarget + "\x00" + strconv.FormatInt(e.WriterRunID, 10)
}

// Outcomes reduces an evaluation to the table's input: one outcome per policy, at the final
// block.
func (e *ChainEvaluation) Outcomes() []engine.SafeguardOutcome {
	out := make([]engine.SafeguardOutcome, 0, len(e.Policies))
	for _, p := range e.Policies {
		c := p.FinalCounts
		o := engine.SafeguardOutcome{
			PolicyID: p.PolicyID, PolicyVersion: p.PolicyVersion, Condition: e.Condition, CaseID: e.CaseID, Unit: e.Unit(),
			NotEstimable: c.NotEstimable, DeniedPairs: c.UnauthorizedWritten.Denominator, UnauthorizedWritten: c.UnauthorizedWritten.Numerator,
			UnauthorizedGated: c.UnauthorizedGated.Numerator, AuthorizedPairs: c.AuthorizedWritten.Denominator, AuthorizedWritten: c.AuthorizedWritten.Numerator,
			AuthorizedGated: c.AuthorizedGated.Numerator, Prevented: c.Prevented, Refused: c.Refused,
			FormationEstimable: p.FinalWritten.Estimable && p.FinalGated.Estimable, FormedWritten: p.FinalWritten.Formed, FormedGated: p.FinalGated.Formed,
		}
		// A policy that applies to no pair at the final block (nor to its memory) says nothing
		// about this chain.
		o.NotApplicable = c.Pairs > 0 && c.NotApplicable == c.Pairs
		if c.Pairs == 0 && len(p.Blocks) > 0 && p.Blocks[len(p.Blocks)-1].NotApplicable != "" {
			o.NotApplicable = true
		}
		out = append(out, o)
	}
	return out
}

// SafeguardChainSummary is what a run keeps of an evaluated chain once it is saved: its
// outcomes, and the un-gated final-block arms that event-sourcing pairs read.
type SafeguardChainSummary struct {
	CaseID, Condition, WriterTarget string
	WriterRunID                     int64
	Outcomes                        []engine.SafeguardOutcome
	FinalFormation                  FormationVerdict
	// FinalArms are the un-gated outcomes at the final block, by probe id.
	FinalArms map[string]engine.Outcome
}

// Summary keeps what the run table needs of an evaluation.
func (e *ChainEvaluation) Summary() SafeguardChainSummary {
	s := SafeguardChainSummary{CaseID: e.CaseID, Condition: e.Condition, WriterTarget: e.WriterTarget, WriterRunID: e.WriterRunID,
		Outcomes: e.Outcomes(), FinalFormation: e.FinalFormation, FinalArms: map[string]engine.Outcome{}}
	for _, a := range e.Baseline {
		if a.BlockIndex == e.FinalBlock {
			s.FinalArms[a.ProbeID] = a.Outcome
		}
	}
	return s
}

// EventSourcingOutcomes pairs every bounded_event_sourced_typed chain with the
// incremental_typed chain of the same case and writer run (docs/FORMATS.md 8.2 keys the pairs by
// domain, case, writer target and seed, route, presentation, executor and probe: the lab's
// executor, route and presentation are one for the whole batch), probe by probe at the final
// block: the incremental_typed arm is the "written" side, the event-sourced arm the "gated"
// one. Chains without a partner are left out.
func EventSourcingOutcomes(chains []SafeguardChainSummary) []engine.SafeguardOutcome {
	type key struct {
		caseID, writer string
		run            int64
	}
	base := map[key]*SafeguardChainSummary{}
	for i := range chains {
		c := &chains[i]
		if c.Condition == IncrementalTypedCondition {
			base[key{c.CaseID, c.WriterTarget, c.WriterRunID}] = c
		}
	}
	var out []engine.SafeguardOutcome
	for i := range chains {
		es := &chains[i]
		if es.Condition != EventSourcedCondition {
			continue
		}
		b := base[key{es.CaseID, es.WriterTarget, es.WriterRunID}]
		if b == nil {
			continue
		}
		o := engine.SafeguardOutcome{PolicyID: EventSourcingRowID, PolicyVersion: "bounded_event_sourcing_v1", Condition: IncrementalTypedCondition, CaseID: es.CaseID,
			Unit:               es.CaseID + "\x00" + es.WriterTarget + "\x00" + strconv.FormatInt(es.WriterRunID, 10),
			FormationEstimable: b.FinalFormation.Estimable && es.FinalFormation.Estimable, FormedWritten: b.FinalFormation.Formed, FormedGated: es.FinalFormation.Formed}
		for probe, w := range b.FinalArms {
			g, ok := es.FinalArms[probe]
			if !ok {
				continue
			}
			addPair(&o, w, g)
		}
		out = append(out, o)
	}
	return out
}

// SafeguardTableOf is the run table of chain summaries: every policy's rows, then the
// event-sourcing row when the run has event-sourced chains paired with incremental_typed.
func SafeguardTableOf(chains []SafeguardChainSummary) []engine.SafeguardRow {
	var outcomes []engine.SafeguardOutcome
	for _, c := range chains {
		outcomes = append(outcomes, c.Outcomes...)
	}
	outcomes = append(outcomes, EventSourcingOutcomes(chains)...)
	return engine.SafeguardTable(outcomes, engine.BootstrapSeed, engine.BootstrapDraws)
}

// SafeguardRunSpec is the lab over many chains: the same arm settings for all.
type SafeguardRunSpec struct {
	Chains []SafeguardChain
	SafeguardArmSettings
	// Workers bounds the chains evaluated at once (0: DefaultConcurrency); each chain's arms
	// run one after the other, so Workers also bounds the calls in flight.
	Workers int
	// Progress, when set, is called after each chain is saved (done of total chains).
	Progress func(done, total int)
	// Save stores one evaluated chain (one transaction per chain); it runs on one goroutine,
	// in chain order, and may be nil.
	Save func(ctx context.Context, ev *ChainEvaluation) error
}

// SafeguardRunResult is a run's lab: the summaries of the chains that finished whole, and the
// table over them.
type SafeguardRunResult struct {
	Chains []SafeguardChainSummary
	Table  []engine.SafeguardRow
	// Cancelled: ctx ended first; the table covers the chains that finished.
	Cancelled bool
}

// EvaluateRun evaluates every chain and builds the table. A chain cut short by ctx is
// neither saved nor counted. A policy error, a save error or a scoring error stops the run.
func EvaluateRun(ctx context.Context, spec SafeguardRunSpec) (*SafeguardRunResult, error) {
	if spec.Executor == nil {
		return nil, errors.New("safeguards: no executor")
	}
	workers := spec.Workers
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	workers = max(1, min(workers, len(spec.Chains)))
	saveCtx := context.WithoutCancel(ctx)
	res := &SafeguardRunResult{}
	type done struct {
		ev  *ChainEvaluation
		err error
	}
	all, err := runOrdered(ctx, len(spec.Chains), workers,
		func(ctx context.Context, i int) (done, bool) {
			ev, err := EvaluateChain(ctx, SafeguardSpec{Chain: spec.Chains[i], SafeguardArmSettings: spec.SafeguardArmSettings, Workers: 1})
			if err != nil {
				return done{err: err}, true
			}
			return done{ev: ev}, !ev.Cancelled
		},
		func(i int, d done) error {
			if d.err != nil {
				return d.err
			}
			if spec.Save != nil {
				if err := spec.Save(saveCtx, d.ev); err != nil {
					return fmt.Errorf("safeguards: saving chain %s/%s: %w", d.ev.CaseID, d.ev.Condition, err)
				}
			}
			res.Chains = append(res.Chains, d.ev.Summary())
			if spec.Progress != nil {
				spec.Progress(len(res.Chains), len(spec.Chains))
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	res.Cancelled = !all
	res.Table = SafeguardTableOf(res.Chains)
	return res, nil
}
