package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

type safeguardsCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Run id (or unique prefix): evaluate every writer chain of the run and print the table per policy and condition. With --case, the run holding the chain."`
	Case  string `name:"case" help:"Case id of one chain to evaluate (with --condition)."`
	chainNameFlags
	Policy []string `name:"policy" help:"Policy id (repeat or comma list; default: every policy: ${policies})."`
	executorFlag
	Seed        int64  `name:"seed" default:"20260821" help:"Executor seed of every arm (both arms of a pair share it)."`
	Blocks      string `name:"blocks" default:"final" enum:"final,every" help:"Blocks whose probes are re-run: final (where EAL-Bench's trials are; the table is measured there) or every block with a memory."`
	Concurrency int    `name:"concurrency" default:"8" help:"Chains evaluated at once (calls in flight); a model's own concurrency setting bounds it further."`
	modelCallFlags
	JSON      bool `name:"json" help:"Print the counts, rates and intervals per policy and condition (and, for --case, the chain's detail) as JSON."`
	Recompute bool `name:"recompute" help:"With --policy audience_bound: evaluate again even when the workspace holds a result for this executor and seed."`
}

func (c *safeguardsCmd) Run(g *Globals) error { return untilStopped(g, c.run) }

func (c *safeguardsCmd) trialBlocks() replay.TrialBlocks {
	if c.Blocks == "every" {
		return replay.TrialsAtEveryBlock
	}
	return replay.TrialsAtFinalBlock
}

// settings are the settings of every arm the command runs, for one chain or a run's chains.
func (c *safeguardsCmd) settings(policies []engine.Policy) workbench.LabSettings {
	return workbench.LabSettings{Policies: policies, Executor: c.Executor, Seed: c.Seed, Blocks: c.trialBlocks(), Workers: c.Concurrency}
}

func (c *safeguardsCmd) run(ctx context.Context, g *Globals) error {
	oneChain := c.Case != "" || c.Condition != ""
	switch {
	case oneChain && (c.Case == "" || c.Condition == ""):
		return usageErr("give both --case and --condition (or --run ID for every chain of a run)")
	case !oneChain && c.RunID == "":
		return usageErr("give --run ID, or --case C --condition K")
	}
	policies, err := safeguards.Lookup(splitList(strings.Join(c.Policy, ","))...)
	if err != nil {
		return usageErr("--policy: %v", err)
	}
	if len(policies) == 0 {
		return fmt.Errorf("no safeguard policies are registered")
	}
	aud, err := wantsAudience(policies)
	if err != nil {
		return err
	}
	if aud && oneChain {
		return usageErr("--policy audience_bound is measured over a run: give --run ID")
	}
	cfg, store, err := c.openForRerun(g, c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	if aud {
		return c.runAudience(ctx, g, store, cfg)
	}
	if oneChain {
		return c.runChain(ctx, g, store, cfg, policies)
	}
	return c.runRun(ctx, g, store, cfg, policies)
}

func (c *safeguardsCmd) runChain(ctx context.Context, g *Globals, store *runs.Store, cfg *replay.Config, policies []engine.Policy) error {
	row, err := store.FindChain(ctx, c.RunID, c.Case, c.Condition, c.WriterRun)
	if err != nil {
		return err
	}
	lab := workbench.Lab{Store: store, Models: c.models(cfg)}
	ev, err := lab.EvaluateChain(ctx, row.Key, c.settings(policies), nil)
	if errors.Is(err, workbench.ErrNoMemory) {
		return fmt.Errorf("chain %s/%s writer run %d has no memory at any block: nothing to gate", row.CaseID, row.ConditionID, row.WriterRunID)
	}
	if err != nil {
		return err
	}
	if ev.Cancelled {
		// Half a chain is not a result: nothing is stored.
		return &exitError{code: 130, msg: "safeguards cancelled; nothing was stored for the chain"}
	}
	sum := ev.Summary()
	table := replay.SafeguardTableOf([]replay.SafeguardChainSummary{sum})
	if c.JSON {
		return writeJSON(g.Stdout, chainDoc(row, ev, table))
	}
	w := g.text()
	fmt.Fprintf(w, "chain %s %s/%s writer %s run %d, executor %s, seed %d\n", row.RunID, row.CaseID, row.ConditionID, row.Writer, row.WriterRunID, ev.Executor.TargetID, ev.Seed)
	for _, p := range ev.Policies {
		printPolicyDetail(w, p)
	}
	printTable(w, table)
	return nil
}

func (c *safeguardsCmd) runRun(ctx context.Context, g *Globals, store *runs.Store, cfg *replay.Config, policies []engine.Policy) error {
	run, err := store.Run(ctx, c.RunID)
	if err != nil {
		return err
	}
	errw := g.textErr()
	lab := workbench.Lab{Store: store, Models: c.models(cfg)}
	res, err := lab.EvaluateRun(ctx, run.RunID, c.settings(policies), workbench.RunProgress{Evaluated: func(done, total int) {
		if done == total || done%100 == 0 {
			fmt.Fprintf(errw, "ealscope: safeguards: %d/%d chains\n", done, total)
		}
	}})
	if errors.Is(err, workbench.ErrNoMemory) {
		return fmt.Errorf("run %s has no writer chain with a memory: nothing to gate", run.RunID)
	}
	if err != nil {
		return err
	}
	chains, skipped := res.Planned, res.Skipped
	costs, costErr := store.ModelCallCosts(context.WithoutCancel(ctx), run.RunID)
	if costErr != nil {
		return costErr
	}
	if c.JSON {
		err = writeJSON(g.Stdout, runDoc{RunID: run.RunID, Executor: res.Executor, Seed: c.Seed, TrialBlocks: c.Blocks,
			Chains: len(res.Chains), ChainsPlanned: chains, ChainsWithoutMemory: skipped, Cancelled: res.Cancelled, Bootstrap: bootstrapJSON(), Table: nonNilRows(res.Table),
			ModelCalls: labCosts(costs)})
	} else {
		w := g.text()
		fmt.Fprintf(w, "run %s: %d chains (%d without memory left out), executor %s, seed %d\n", run.RunID, len(res.Chains), skipped, res.Executor, c.Seed)
		printTable(w, res.Table)
		printLabModelCalls(w, costs)
	}
	if err != nil {
		return err
	}
	if res.Cancelled {
		return &exitError{code: 130, msg: fmt.Sprintf("safeguards cancelled; %d of %d chains finished and are stored", len(res.Chains), chains)}
	}
	return nil
}

// bootstrapDoc says how the intervals were drawn.
type bootstrapDoc struct {
	Seed           int    `json:"seed"`
	Draws          int    `json:"draws"`
	ResamplingUnit string `json:"resampling_unit"`
	Interval       string `json:"interval"`
	Generator      string `json:"generator"`
}

func bootstrapJSON() bootstrapDoc {
	return bootstrapDoc{Seed: engine.BootstrapSeed, Draws: engine.BootstrapDraws, ResamplingUnit: "chain (case x writer run) within a policy and condition",
		Interval: "paired percentile 95% (numpy linear) of gated minus un-gated rate", Generator: "Go math/rand/v2 PCG(seed, 0); numpy's draws are not reproduced"}
}

type runDoc struct {
	RunID               string                `json:"run_id"`
	Executor            string                `json:"executor"`
	Seed                int64                 `json:"seed"`
	TrialBlocks         string                `json:"trial_blocks"`
	Chains              int                   `json:"chains"`
	ChainsPlanned       int                   `json:"chains_planned"`
	ChainsWithoutMemory int                   `json:"chains_without_memory"`
	Cancelled           bool                  `json:"cancelled"`
	Bootstrap           bootstrapDoc          `json:"bootstrap"`
	Table               []engine.SafeguardRow `json:"table"`
	// ModelCalls is what the lab's arms on the run cost, per policy and executor.
	ModelCalls []runs.ModelCallCost `json:"model_calls"`
}

// labCosts keeps the lab's rows of a run's model costs ([] when none).
func labCosts(costs []runs.ModelCallCost) []runs.ModelCallCost {
	out := []runs.ModelCallCost{}
	for _, c := range costs {
		if c.Source == "lab" {
			out = append(out, c)
		}
	}
	return out
}

type armDoc struct {
	ReplayID             string               `json:"replay_id"`
	MemoryVariant        string               `json:"memory_variant"`
	MemoryContentHash    string               `json:"memory_content_hash"`
	Decision             string               `json:"decision"`
	RequestedActionTaken bool                 `json:"requested_action_taken"`
	ProviderError        *string              `json:"provider_error"`
	MemoryFormed         bool                 `json:"memory_formed"`
	Gate                 *engine.GateDecision `json:"gate,omitempty"`
}

type pairDoc struct {
	BlockIndex        int     `json:"block_index"`
	ProbeID           string  `json:"probe_id"`
	RequestAuthorized bool    `json:"request_authorized"`
	Effect            string  `json:"effect"`
	Written           armDoc  `json:"written"`
	Gated             *armDoc `json:"gated"`
}

type policyDoc struct {
	replay.PolicyEvaluation
	Pairs []pairDoc `json:"pairs"`
}

type chainDocT struct {
	RunID       string                `json:"run_id"`
	CaseID      string                `json:"case_id"`
	ConditionID string                `json:"condition_id"`
	WriterRunID int64                 `json:"writer_run_id"`
	BatchID     string                `json:"batch_id"`
	Executor    string                `json:"executor"`
	Seed        int64                 `json:"seed"`
	Policies    []policyDoc           `json:"policies"`
	Bootstrap   bootstrapDoc          `json:"bootstrap"`
	Table       []engine.SafeguardRow `json:"table"`
}

func armOf(a *replay.SafeguardArm) armDoc {
	return armDoc{ReplayID: a.ReplayID, MemoryVariant: a.Memory.Variant, MemoryContentHash: a.Memory.ContentHash, Decision: a.Outcome.Decision,
		RequestedActionTaken: a.Outcome.RequestedActionTaken, ProviderError: a.Outcome.ProviderError, MemoryFormed: a.MemoryFormed, Gate: a.Gate}
}

func chainDoc(row runs.ChainRow, ev *replay.ChainEvaluation, table []engine.SafeguardRow) chainDocT {
	d := chainDocT{RunID: row.RunID, CaseID: row.CaseID, ConditionID: row.ConditionID, WriterRunID: row.WriterRunID, BatchID: ev.BatchID,
		Executor: ev.Executor.TargetID, Seed: ev.Seed, Bootstrap: bootstrapJSON(), Table: nonNilRows(table)}
	for _, p := range ev.Policies {
		pd := policyDoc{PolicyEvaluation: p, Pairs: []pairDoc{}}
		if pd.Removed == nil {
			pd.Removed = []replay.RemovedRecord{}
		}
		for _, pr := range p.Pairs {
			x := pairDoc{BlockIndex: pr.BlockIndex, ProbeID: pr.ProbeID, RequestAuthorized: pr.RequestAuthorized, Effect: pr.Effect, Written: armOf(pr.Written)}
			if pr.Gated != nil {
				a := armOf(pr.Gated)
				x.Gated = &a
			}
			pd.Pairs = append(pd.Pairs, x)
		}
		d.Policies = append(d.Policies, pd)
	}
	return d
}

func nonNilRows(rows []engine.SafeguardRow) []engine.SafeguardRow {
	if rows == nil {
		return []engine.SafeguardRow{}
	}
	return rows
}

func blockText(b *int) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprint(*b)
}

// printPolicyDetail prints one policy's verdict on a chain: formation before and after, the
// records it removed with the turns they cite, and the probes whose outcome changed. Turn
// text is corpus text: w is the sanitising writer.
func printPolicyDetail(w io.Writer, p replay.PolicyEvaluation) {
	fmt.Fprintf(w, "\npolicy %s %s\n", p.PolicyID, p.PolicyVersion)
	if p.NotApplicable != "" {
		fmt.Fprintf(w, "  not applicable: %s\n", p.NotApplicable)
		return
	}
	removed := "no"
	if p.FormationRemoved {
		removed = "yes"
	}
	fmt.Fprintf(w, "  first false-authority block: %s written, %s gated (formation removed: %s)\n", blockText(p.FirstFalseAuthorityBefore), blockText(p.FirstFalseAuthorityAfter), removed)
	c := p.Counts
	fmt.Fprintf(w, "  unauthorized actions prevented: %d; authorized requests refused: %d; not estimable: %d; not applicable: %d\n", c.Prevented, c.Refused, c.NotEstimable, c.NotApplicable)
	for _, r := range p.Removed {
		fmt.Fprintf(w, "  removed %s (from block %d): %s\n", r.AuthorizationID, r.FirstBlock, strings.Join(r.Reasons, ", "))
		for _, t := range r.Cited {
			if !t.Known {
				fmt.Fprintf(w, "    cites %s: no such turn\n", t.TurnID)
				continue
			}
			capable := "not authority-capable"
			if t.AuthorityCapable {
				capable = "authority-capable"
			}
			fmt.Fprintf(w, "    cites %s (block %d, %s, %s): %s\n", t.TurnID, t.BlockIndex, t.Principal, capable, truncate(t.Content, 100))
		}
	}
	for _, pr := range p.Pairs {
		if pr.Effect == replay.EffectUnchanged || pr.Effect == replay.EffectNotApplicable {
			continue
		}
		gated := "-"
		if pr.Gated != nil {
			gated = pr.Gated.Outcome.Decision
		}
		fmt.Fprintf(w, "  block %d probe %s: %s -> %s (%s)\n", pr.BlockIndex, pr.ProbeID, pr.Written.Outcome.Decision, gated, pr.Effect)
	}
}

func safeguardCount(c engine.Count) string {
	if c.Rate == nil {
		return fmt.Sprintf("%d/%d", c.Numerator, c.Denominator)
	}
	return fmt.Sprintf("%d/%d (%.3f)", c.Numerator, c.Denominator, *c.Rate)
}

func metricText(m engine.SafeguardMetric) string {
	s := safeguardCount(m.Written) + " -> " + safeguardCount(m.Gated)
	if m.Difference == nil {
		return s + ", difference n/a"
	}
	s += fmt.Sprintf(", %+.3f", *m.Difference)
	if m.Interval != nil {
		s += fmt.Sprintf(" [%+.3f, %+.3f]", m.Interval.Low, m.Interval.High)
	}
	return s
}

// printTable prints the run table: one row per policy and condition, each metric as
// un-gated -> gated with the paired difference and its 95% bootstrap interval.
func printTable(w io.Writer, rows []engine.SafeguardRow) {
	fmt.Fprintf(w, "\nsafeguards per policy and condition (final block; difference gated - un-gated, paired bootstrap 95%%, %d draws, seed %d, chains resampled)\n",
		engine.BootstrapDraws, engine.BootstrapSeed)
	if len(rows) == 0 {
		fmt.Fprintln(w, "  no rows")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tCONDITION\tCHAINS\tN/A\tSTOPPED\tREFUSED\tNOT EST.\tUNAUTHORIZED ACTION\tAUTHORIZED SUCCESS\tFORMATION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d (%d)\t%d (%d)\t%d\t%s\t%s\t%s\n", r.PolicyID, r.Condition, r.Chains, r.NotApplicable, r.ChainsStopped, r.Prevented,
			r.ChainsRefused, r.Refused, r.NotEstimable, metricText(r.UnauthorizedAction), metricText(r.AuthorizedSuccess), metricText(r.Formation))
	}
	tw.Flush()
	fmt.Fprintln(w, "  STOPPED/REFUSED: chains (requests) where the policy prevented an unauthorized action / refused an authorized request")
}
