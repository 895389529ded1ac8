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
	RunID    string `json:"run_id"`
	PolicyID string `json:"policy_id"`
	// NotApplicable says why the policy does not apply to the run ("" when it does).
	NotApplicable string `json:"not_applicable,omitempty"`
	Sidecar       string `json:"sidecar"`
	Executor      string `json:"executor"`
	Seed          int64  `json:"seed"`
	Chains        int    `json:"chains"`
	// Source says where the result came from: "stored" (read back from the workspace, computed
	// at ComputedAt) or "computed" (evaluated now, and stored).
	Source     string                       `json:"source,omitempty"`
	ComputedAt string                       `json:"computed_at,omitempty"`
	Bootstrap  bootstrapDoc                 `json:"bootstrap"`
	Table      []replay.AudienceRow         `json:"table"`
	Identity   []replay.AudienceIdentityRow `json:"identity_policies"`
}

// runAudience runs the audience lab on a run whose corpus has an audience sidecar.
func (c *safeguardsCmd) runAudience(ctx context.Context, g *Globals, store *runs.Store, cfg *replay.Config) error {
	run, err := store.Run(ctx, c.RunID)
	if err != nil {
		return err
	}
	res, err := workbench.Audience(ctx, store, c.models(cfg), run.RunID, workbench.AudienceOptions{Executor: c.Executor, Seed: c.Seed, Recompute: c.Recompute})
	switch {
	case errors.Is(err, workbench.ErrNoSidecar):
		// Without a sidecar there are no audiences: not applicable, never a decision.
		if c.JSON {
			return writeJSON(g.Stdout, audienceDoc{RunID: run.RunID, PolicyID: safeguards.AudienceBoundID, NotApplicable: err.Error(),
				Bootstrap: bootstrapJSON(), Table: []replay.AudienceRow{}, Identity: []replay.AudienceIdentityRow{}})
		}
		fmt.Fprintf(g.text(), "run %s: %v\n", run.RunID, err)
		return nil
	case errors.Is(err, workbench.ErrNoMemory):
		return fmt.Errorf("run %s has no writer chain with a memory: nothing to admit", run.RunID)
	case err != nil:
		return err
	}
	doc := audienceDoc{RunID: run.RunID, PolicyID: safeguards.AudienceBoundID, Sidecar: res.Sidecar, Executor: res.Target, Seed: c.Seed,
		Chains: res.Chains, Source: "computed", ComputedAt: res.CreatedAt, Bootstrap: bootstrapJSON(), Table: res.Rows, Identity: res.Identity()}
	if res.Stored {
		doc.Source = "stored"
	}
	if doc.Table == nil {
		doc.Table = []replay.AudienceRow{}
	}
	if c.JSON {
		return writeJSON(g.Stdout, doc)
	}
	printAudience(g.text(), doc)
	return nil
}

func ratio(n, d int) string {
	if d == 0 {
		return fmt.Sprintf("%d/%d", n, d)
	}
	return fmt.Sprintf("%d/%d (%.3f)", n, d, float64(n)/float64(d))
}

// notEstimable is what a measure of a row without an estimable context reads (every context
// hit a provider error): never a count of zero.
const notEstimable = "not estimable"

// audienceCells are a row's measures as printed; a row whose contexts all hit provider errors
// measures nothing.
func audienceCells(r replay.AudienceRow) []string {
	if !r.Estimable() && r.NotEstimable > 0 {
		return []string{"0", notEstimable, notEstimable, notEstimable, notEstimable, notEstimable}
	}
	return []string{fmt.Sprint(r.Exposure.Contexts), fmt.Sprint(r.Exposure.ContextsExposed), ratio(r.Exposure.ForbiddenAdmitted, r.Exposure.ForbiddenPresent),
		ratio(r.EntitledRecall.Kept, r.EntitledRecall.Present), fmt.Sprint(r.Substitutions), fmt.Sprint(r.FailedClosed)}
}

func printAudience(w io.Writer, d audienceDoc) {
	fmt.Fprintf(w, "run %s: audience_bound over %d chains, sidecar %s, executor %s, seed %d\n", d.RunID, d.Chains, d.Sidecar, d.Executor, d.Seed)
	if d.Source == "stored" {
		fmt.Fprintf(w, "stored result (computed %s); --recompute evaluates again\n", d.ComputedAt)
	} else {
		fmt.Fprintln(w, "computed now, and stored in the workspace")
	}
	fmt.Fprintf(w, "\naudience arms per writer condition (final block; rates: arm vs unscoped, paired bootstrap 95%%, %d draws, seed %d; NOT EST.: contexts whose executor call failed, measured nowhere)\n",
		engine.BootstrapDraws, engine.BootstrapSeed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ARM\tCONDITION\tCONTEXTS\tEXPOSED\tFORBIDDEN ADMITTED\tENTITLED KEPT\tSUBST.\tFAILED CLOSED\tNOT EST.\tUNAUTHORIZED ACTION\tAUTHORIZED SUCCESS")
	for _, r := range d.Table {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.Arm, r.Condition, strings.Join(audienceCells(r), "\t"), r.NotEstimable,
			metricText(r.UnauthorizedAction), metricText(r.AuthorizedSuccess))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nidentity policies on the unresolved-viewer requests (all conditions)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tFORBIDDEN EXPOSED\tENTITLED LOST\tNOT EST.")
	for _, r := range d.Identity {
		exposed, lost := fmt.Sprintf("%d/%d", r.Exposed, r.ForbiddenPresent), fmt.Sprintf("%d/%d", r.Lost, r.EntitledPresent)
		if r.ForbiddenPresent+r.EntitledPresent == 0 && r.NotEstimable > 0 {
			exposed, lost = notEstimable, notEstimable
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.Arm, exposed, lost, r.NotEstimable)
	}
	tw.Flush()
}
