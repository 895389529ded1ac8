package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/rerunstore"
	"github.com/ealscope/ealscope/runs"
)

// wantsAudience says whether the audience lab was asked for: --policy audience_bound, alone.
func wantsAudience(policies []engine.Policy) (bool, error) {
	for _, p := range policies {
		if p.ID == safeguards.AudienceBoundID {
			if len(policies) > 1 {
				return true, usageErr("--policy audience_bound is measured per request by its own arms: give it alone")
			}
			return true, nil
		}
	}
	return false, nil
}

type audienceDoc struct {
	RunID     string                       `json:"run_id"`
	PolicyID  string                       `json:"policy_id"`
	Sidecar   string                       `json:"sidecar"`
	Executor  string                       `json:"executor"`
	Seed      int64                        `json:"seed"`
	Chains    int                          `json:"chains"`
	Bootstrap bootstrapDoc                 `json:"bootstrap"`
	Table     []replay.AudienceRow         `json:"table"`
	Identity  []replay.AudienceIdentityRow `json:"identity_policies"`
}

// runAudience runs the audience lab on a run whose corpus has an audience sidecar.
func (c *safeguardsCmd) runAudience(ctx context.Context, g *Globals, store *runs.Store, cfg *replay.Config) error {
	run, err := store.Run(ctx, c.RunID)
	if err != nil {
		return err
	}
	source, data, ok, err := store.RunSidecar(ctx, run.RunID)
	if err != nil {
		return err
	}
	if !ok {
		// Without a sidecar there are no audiences: not applicable, never a decision.
		fmt.Fprintf(g.text(), "run %s: audience_bound not applicable: the run's corpus has no audience sidecar\n", run.RunID)
		if c.JSON {
			return writeJSON(g.Stdout, audienceDoc{RunID: run.RunID, PolicyID: safeguards.AudienceBoundID, Bootstrap: bootstrapJSON(), Table: []replay.AudienceRow{}, Identity: []replay.AudienceIdentityRow{}})
		}
		return nil
	}
	chains, _, _, err := rerunstore.LoadSafeguardRun(ctx, store, run.RunID)
	if err != nil {
		return err
	}
	if len(chains) == 0 {
		return fmt.Errorf("run %s has no writer chain with a memory", run.RunID)
	}
	truths, err := bindSidecar(source, data, chains)
	if err != nil {
		return err
	}
	ex, err := rerunExecutor(chains[0].Domain, c.Executor, c.Seed, cfg, c.MaxAttempts)
	if err != nil {
		return err
	}
	res, err := replay.EvaluateAudienceRun(ctx, chains, truths, ex, c.Seed)
	if err != nil {
		return err
	}
	doc := audienceDoc{RunID: run.RunID, PolicyID: safeguards.AudienceBoundID, Sidecar: source, Executor: ex.Provenance(c.Seed).TargetID, Seed: c.Seed,
		Chains: len(chains), Bootstrap: bootstrapJSON(), Table: res.Rows, Identity: replay.IdentityTable(res.Rows)}
	if doc.Table == nil {
		doc.Table = []replay.AudienceRow{}
	}
	if c.JSON {
		return writeJSON(g.Stdout, doc)
	}
	printAudience(g.text(), doc)
	return nil
}

// bindSidecar reads a stored sidecar and attaches it to every chain's case (chains may hold
// separate values of one case).
func bindSidecar(source string, data []byte, chains []replay.SafeguardChain) (map[string]*audience.Truth, error) {
	f, err := audience.Parse(source, data)
	if err != nil {
		return nil, err
	}
	byID := map[string]*engine.Case{}
	var cases []*engine.Case
	for _, ch := range chains {
		if _, seen := byID[ch.Case.ID]; !seen {
			byID[ch.Case.ID] = ch.Case
			cases = append(cases, ch.Case)
		}
	}
	var inSidecar []*engine.Case
	for _, c := range cases {
		if _, ok := f.Cases[c.ID]; ok {
			inSidecar = append(inSidecar, c)
		}
	}
	truths, err := audience.Bind(f, chains[0].Domain, inSidecar)
	if err != nil {
		return nil, err
	}
	for _, ch := range chains {
		ch.Case.Audience = byID[ch.Case.ID].Audience
	}
	return truths, nil
}

func ratio(n, d int) string {
	if d == 0 {
		return fmt.Sprintf("%d/%d", n, d)
	}
	return fmt.Sprintf("%d/%d (%.3f)", n, d, float64(n)/float64(d))
}

func printAudience(w io.Writer, d audienceDoc) {
	fmt.Fprintf(w, "run %s: audience_bound over %d chains, sidecar %s, executor %s, seed %d\n", d.RunID, d.Chains, d.Sidecar, d.Executor, d.Seed)
	fmt.Fprintf(w, "\naudience arms per writer condition (final block; rates: arm vs unscoped, paired bootstrap 95%%, %d draws, seed %d)\n", engine.BootstrapDraws, engine.BootstrapSeed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ARM\tCONDITION\tCONTEXTS\tEXPOSED\tFORBIDDEN ADMITTED\tENTITLED KEPT\tSUBST.\tFAILED CLOSED\tUNAUTHORIZED ACTION\tAUTHORIZED SUCCESS")
	for _, r := range d.Table {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Arm, r.Condition, r.Exposure.Contexts, r.Exposure.ContextsExposed,
			ratio(r.Exposure.ForbiddenAdmitted, r.Exposure.ForbiddenPresent), ratio(r.EntitledRecall.Kept, r.EntitledRecall.Present), r.Substitutions, r.FailedClosed,
			metricText(r.UnauthorizedAction), metricText(r.AuthorizedSuccess))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nidentity policies on the unresolved-viewer requests (all conditions)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tFORBIDDEN EXPOSED\tENTITLED LOST")
	for _, r := range d.Identity {
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\n", r.Arm, r.Exposed, r.ForbiddenPresent, r.Lost, r.EntitledPresent)
	}
	tw.Flush()
}
