package tui

// The audience lab's rows (docs/SAFEGUARDS.md "Audience-bound admission") as the run's
// safeguards screen and the chain's safeguards pane draw them, read back from the workspace
// (workbench.StoredAudience) or evaluated and stored there (workbench.EvaluateAudience): what
// is shown is what `ealscope safeguards --policy audience_bound` reads.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
)

// AudienceTable is a run's audience lab: one row per arm and writer condition, and the
// identity policies on the unresolved-viewer requests. NotApplicable says why the run has
// none (no audience sidecar); Stored is false until the run was evaluated.
type AudienceTable struct {
	RunID, NotApplicable string
	Stored               bool
	Executor             string
	Seed                 int64
	Chains               int
	ComputedAt           string
	Rows                 []AudienceArmRow
	Identity             []AudienceIdentityRow
}

// AudienceArmRow is one arm under one writer condition: the paper's measures over the
// contexts it assembled, and the lab's rates against the unscoped arm.
type AudienceArmRow struct {
	Arm, Condition string
	// Contexts were assembled and measured; NotEstimable hit a provider error and measure
	// nothing (Estimable is false when no context measured anything).
	Contexts, NotEstimable int
	Estimable              bool
	Exposed                int
	ForbiddenAdmitted      int
	ForbiddenPresent       int
	EntitledKept           int
	EntitledPresent        int
	Substitutions          int
	FailedClosed           int
	// Unauthorized and AuthorizedSuccess are the rates unscoped → arm with the paired
	// bootstrap interval of the difference.
	Unauthorized, AuthorizedSuccess SafeguardRate
}

// AudienceIdentityRow is one identity policy: forbidden items exposed and entitled items lost.
type AudienceIdentityRow struct {
	Policy                    string
	Exposed, ForbiddenPresent int
	Lost, EntitledPresent     int
	NotEstimable              int
}

// presentAudience turns the lab's result into the screen's rows.
func presentAudience(lab workbench.AudienceLab) AudienceTable {
	t := AudienceTable{RunID: lab.RunID, Stored: true, Executor: lab.Executor, Seed: lab.Seed, Chains: lab.Chains, ComputedAt: lab.CreatedAt}
	for _, r := range lab.Rows {
		t.Rows = append(t.Rows, AudienceArmRow{Arm: r.Arm, Condition: r.Condition, Contexts: r.Exposure.Contexts, NotEstimable: r.NotEstimable,
			Estimable: r.Estimable(), Exposed: r.Exposure.ContextsExposed, ForbiddenAdmitted: r.Exposure.ForbiddenAdmitted,
			ForbiddenPresent: r.Exposure.ForbiddenPresent, EntitledKept: r.EntitledRecall.Kept, EntitledPresent: r.EntitledRecall.Present,
			Substitutions: r.Substitutions, FailedClosed: r.FailedClosed,
			Unauthorized: presentRate(r.UnauthorizedAction), AuthorizedSuccess: presentRate(r.AuthorizedSuccess)})
	}
	for _, r := range lab.Identity() {
		t.Identity = append(t.Identity, AudienceIdentityRow{Policy: identityPolicyName(r.Arm), Exposed: r.Exposed, ForbiddenPresent: r.ForbiddenPresent,
			Lost: r.Lost, EntitledPresent: r.EntitledPresent, NotEstimable: r.NotEstimable})
	}
	return t
}

// identityPolicyName is an identity arm as the paper words it.
func identityPolicyName(arm string) string {
	switch arm {
	case replay.ArmFailOpen:
		return "fail open"
	case replay.ArmPublicOnly:
		return "public-only"
	}
	return arm
}

// audienceStore is the workspace's audience storage, when the lab's store has it.
func (l *workspaceLab) audienceStore() (workbench.AudienceStore, error) {
	s, ok := l.lab.Store.(workbench.AudienceStore)
	if !ok {
		return nil, errors.New("this workspace keeps no audience lab")
	}
	return s, nil
}

// StoredAudience is the run's stored audience lab: ok false when it was never evaluated; a
// run without a sidecar is a table that says it is not applicable.
func (l *workspaceLab) StoredAudience(ctx context.Context, runID string) (AudienceTable, bool, error) {
	store, err := l.audienceStore()
	if err != nil {
		return AudienceTable{}, false, err
	}
	lab, ok, err := workbench.StoredAudience(ctx, store, runID)
	switch {
	case errors.Is(err, workbench.ErrNoSidecar):
		return AudienceTable{RunID: runID, NotApplicable: err.Error()}, true, nil
	case err != nil || !ok:
		return AudienceTable{RunID: runID}, false, err
	}
	return presentAudience(lab), true, nil
}

// EvaluateAudience evaluates the run's audience lab with the executor and stores it.
func (l *workspaceLab) EvaluateAudience(ctx context.Context, runID, executor string, progress LabProgress) (AudienceTable, error) {
	store, err := l.audienceStore()
	if err != nil {
		return AudienceTable{}, err
	}
	progress("audience contexts", 0, 1)
	lab, err := workbench.EvaluateAudience(ctx, store, l.lab.Models, runID, executor, workbench.AnalysisSeed)
	switch {
	case errors.Is(err, workbench.ErrNoSidecar):
		return AudienceTable{RunID: runID, NotApplicable: err.Error()}, nil
	case errors.Is(err, workbench.ErrNoMemory):
		return AudienceTable{}, fmt.Errorf("run %s has no writer chain with a memory: nothing to admit", sanitizeLine(runID))
	case err != nil:
		return AudienceTable{}, err
	}
	progress("audience contexts", 1, 1)
	return presentAudience(lab), nil
}

// ChainAudience is what the audience lab assembled on one chain, for the chain's pane.
type ChainAudience struct {
	// Block is the chain's final block, where the contexts are assembled.
	Block    int
	Contexts []AudienceContextView
}

// AudienceContextView is one assembled context: who asked, the viewer set the sidecar gives
// the request, and each record's fate with its audience and the turns behind it.
type AudienceContextView struct {
	Arm, ProbeID, RequestID, Principal, Channel string
	// Viewers are the request's viewers (principal and channel participants); Unresolved names
	// a requester the sidecar does not list.
	Viewers       []string
	Unresolved    string
	Records       []AudienceRecordView
	ProviderError string
	// Admitted and AdmittedForbidden count the items the executor was shown (every item for
	// the unscoped arm, which decides nothing) and those the ground truth forbids.
	Admitted, AdmittedForbidden int
}

// AudienceRecordView is one record under the arm: kept or excluded, why, its authorized
// audiences, whether the ground truth forbids it to these viewers, and its source turns.
type AudienceRecordView struct {
	AuthorizationID   string
	Kept, Forbidden   bool
	Reason, Audiences string
	Sources           []SourceTurn
	// SourceChannels are the channels the sources were said in (by index; "" unknown).
	SourceChannels []string
	// LeavesOut marks (by index) the sources said where some viewer of the request was not
	// present: under intersection these are the turns that narrow the record's audience.
	LeavesOut []bool
}

// presentChainAudience turns a chain's stored contexts into the pane's rows.
func presentChainAudience(d engine.Domain, c *engine.Case, contexts []replay.AudienceContext) ChainAudience {
	var out ChainAudience
	for _, x := range contexts {
		v := AudienceContextView{Arm: x.Arm, ProbeID: x.ProbeID, RequestID: x.RequestID, Principal: x.Principal, Channel: x.Viewers.Channel,
			Viewers: x.Viewers.Principals, Unresolved: x.Viewers.Unresolved}
		if x.Outcome.ProviderError != nil {
			v.ProviderError = *x.Outcome.ProviderError
		}
		if x.Records == nil {
			for _, f := range x.Forbidden {
				v.Admitted++
				if f {
					v.AdmittedForbidden++
				}
			}
		}
		for _, r := range x.Records {
			if r.Kept {
				v.Admitted++
				if x.Forbidden[r.AuthorizationID] {
					v.AdmittedForbidden++
				}
			}
			rv := AudienceRecordView{AuthorizationID: r.AuthorizationID, Kept: r.Kept, Forbidden: x.Forbidden[r.AuthorizationID], Sources: sourceTurns(d, c, r.Sources),
				SourceChannels: turnChannels(d, c, r.Sources), LeavesOut: turnsLeavingOut(d, c, r.Sources, x.Viewers)}
			if len(r.Reasons) > 0 {
				rv.Reason, rv.Audiences = splitAudienceReason(r.Reasons[0])
			}
			v.Records = append(v.Records, rv)
		}
		out.Contexts = append(out.Contexts, v)
	}
	return out
}

// turnChannels are the channels the turns were said in, from the case's bound sidecar ("" for
// a turn the case or the sidecar does not place).
func turnChannels(d engine.Domain, c *engine.Case, ids []string) []string {
	rules, ok := d.(engine.AudienceRules)
	out := make([]string, len(ids))
	if !ok || c == nil || !rules.HasAudience(c) {
		return out
	}
	for i, id := range ids {
		if t, ok := c.Turn(id); ok {
			out[i] = rules.TurnChannel(c, t)
		}
	}
	return out
}

// turnsLeavingOut marks the turns whose audience (who was present, from the sidecar) does not
// cover every viewer; nil when the case has no audience or the viewers are unresolved.
func turnsLeavingOut(d engine.Domain, c *engine.Case, ids []string, v engine.Viewers) []bool {
	rules, ok := d.(engine.AudienceRules)
	if !ok || c == nil || !rules.HasAudience(c) || v.Unresolved != "" {
		return nil
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		if t, ok := c.Turn(id); ok {
			if a, ok := rules.TurnAudience(c, t); ok {
				out[i] = !v.CoveredBy(a)
			}
		}
	}
	return out
}

// splitAudienceReason reads the policy's reason ("kept audience={…} viewers={…}",
// engine/safeguards/audience_policy.go) into the reason and the audiences; the viewers are
// shown from the sidecar's viewer set instead.
func splitAudienceReason(reason string) (why, audiences string) {
	why, rest, ok := strings.Cut(reason, " audience=")
	if !ok {
		return reason, ""
	}
	audiences, _, _ = strings.Cut(rest, " viewers=")
	return why, audiences
}
