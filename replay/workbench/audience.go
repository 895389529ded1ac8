package workbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// ErrNoSidecar: the run's corpus has no audience sidecar, so audience-bound admission does
// not apply (never a decision).
var ErrNoSidecar = errors.New("the run's corpus has no audience sidecar: audience_bound not applicable")

// AudienceStore reads what the audience lab needs (the run's writer chains and its sidecar)
// and stores its results (runs/audience_lab.go).
type AudienceStore interface {
	SafeguardReader
	RunSidecar(ctx context.Context, runID string) (source string, data []byte, ok bool, err error)
	runs.AudienceLabResults
}

// AudienceLab is the audience lab's result on a run, computed now or read back.
type AudienceLab struct {
	RunID   string
	Rows    []replay.AudienceRow
	Sidecar string
	Chains  int
	// Executor is the executor as asked (a name for replay.Models), Target what it resolved to.
	Executor, Target string
	Seed             int64
	// Stored: read back from the workspace, not recomputed; CreatedAt is when it was computed.
	Stored    bool
	CreatedAt string
}

// Identity is the identity-policy table of the unresolved-viewer requests.
func (l AudienceLab) Identity() []replay.AudienceIdentityRow { return replay.IdentityTable(l.Rows) }

// AudienceOptions say how to get a run's audience lab.
type AudienceOptions struct {
	Executor string
	Seed     int64
	// Recompute evaluates even when a stored result for this executor and seed exists.
	Recompute bool
}

// Audience is a run's audience lab: the stored result for the executor and seed when there is
// one and Recompute is off, else evaluated now and stored. ErrNoSidecar: not applicable.
func Audience(ctx context.Context, store AudienceStore, models replay.Models, runID string, o AudienceOptions) (AudienceLab, error) {
	if !o.Recompute {
		lab, ok, err := StoredAudience(ctx, store, runID)
		if err != nil {
			return AudienceLab{}, err
		}
		if ok && lab.Executor == o.Executor && lab.Seed == o.Seed {
			return lab, nil
		}
	}
	return EvaluateAudience(ctx, store, models, runID, o.Executor, o.Seed)
}

// StoredAudience reads a run's stored audience lab; ok is false when it was never evaluated.
// A run without a sidecar is ErrNoSidecar, stored or not.
func StoredAudience(ctx context.Context, store AudienceStore, runID string) (AudienceLab, bool, error) {
	if _, _, ok, err := store.RunSidecar(ctx, runID); err != nil || !ok {
		if err == nil {
			err = ErrNoSidecar
		}
		return AudienceLab{}, false, err
	}
	s, ok, err := store.StoredAudienceLab(ctx, runID)
	if err != nil || !ok {
		return AudienceLab{}, false, err
	}
	lab := AudienceLab{RunID: s.RunID, Sidecar: s.SidecarSource, Chains: s.Chains, Executor: s.Executor, Target: s.ExecutorTarget, Seed: s.Seed, Stored: true, CreatedAt: s.CreatedAt}
	if err := json.Unmarshal(s.Rows, &lab.Rows); err != nil {
		return AudienceLab{}, false, fmt.Errorf("run %s: stored audience lab rows: %w", s.RunID, err)
	}
	return lab, true, nil
}

// EvaluateAudience runs the audience lab (replay.EvaluateAudienceRun) on every writer chain of
// a run, with the run's audience sidecar attached to its cases, and stores the result and its
// contexts in one transaction that ctx's end does not interrupt.
func EvaluateAudience(ctx context.Context, store AudienceStore, models replay.Models, runID, executor string, seed int64) (AudienceLab, error) {
	source, data, ok, err := store.RunSidecar(ctx, runID)
	if err != nil {
		return AudienceLab{}, err
	}
	if !ok {
		return AudienceLab{}, ErrNoSidecar
	}
	chains, keys, _, err := LoadSafeguardRun(ctx, store, runID)
	if err != nil {
		return AudienceLab{}, err
	}
	if len(chains) == 0 {
		return AudienceLab{}, ErrNoMemory
	}
	truths, err := BindSidecar(source, data, chains)
	if err != nil {
		return AudienceLab{}, err
	}
	ex, err := models.Executor(chains[0].Domain, executor, seed)
	if err != nil {
		return AudienceLab{}, err
	}
	res, err := replay.EvaluateAudienceRun(ctx, chains, truths, ex, seed)
	if err != nil {
		return AudienceLab{}, err
	}
	lab := AudienceLab{RunID: runID, Rows: res.Rows, Sidecar: source, Chains: len(chains), Executor: executor, Target: ex.Provenance(seed).TargetID, Seed: seed,
		CreatedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	b := runs.AudienceLabBatch{RunID: runID, AudienceLabInfo: runs.AudienceLabInfo{PolicyVersion: safeguards.AudienceBoundVersion, SidecarSource: source,
		SidecarSHA256: pyjson.SHA256Hex(data), Executor: executor, ExecutorTarget: lab.Target, Seed: seed, Chains: lab.Chains}, Rows: lab.Rows, CreatedAt: time.Now()}
	for _, c := range res.Contexts {
		b.Contexts = append(b.Contexts, runs.AudienceLabContext{Chain: keys[chains[c.Chain].ChainRef], Arm: c.Arm, ConditionID: c.Condition, CaseID: c.CaseID,
			ProbeID: c.ProbeID, RequestID: c.RequestID, Detail: c})
	}
	if err := store.SaveAudienceLab(context.WithoutCancel(ctx), b); err != nil {
		return AudienceLab{}, err
	}
	return lab, nil
}

// ChainAudienceContexts are the stored contexts the audience lab assembled on one chain.
func ChainAudienceContexts(ctx context.Context, store AudienceStore, key runs.ChainKey) ([]replay.AudienceContext, error) {
	stored, err := store.AudienceLabContexts(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]replay.AudienceContext, 0, len(stored))
	for _, s := range stored {
		var c replay.AudienceContext
		if err := json.Unmarshal(s.Detail, &c); err != nil {
			return nil, fmt.Errorf("stored audience context %s/%s/%s: %w", s.Arm, s.ProbeID, s.RequestID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// BindSidecar reads a stored sidecar and attaches it to every chain's case (chains may hold
// separate values of one case); it returns the hidden truths by case id.
func BindSidecar(source string, data []byte, chains []replay.SafeguardChain) (map[string]*audience.Truth, error) {
	f, err := audience.Parse(source, data)
	if err != nil {
		return nil, err
	}
	byID := map[string]*engine.Case{}
	var inSidecar []*engine.Case
	for _, ch := range chains {
		if _, seen := byID[ch.Case.ID]; seen {
			continue
		}
		byID[ch.Case.ID] = ch.Case
		if _, ok := f.Cases[ch.Case.ID]; ok {
			inSidecar = append(inSidecar, ch.Case)
		}
	}
	// Only the entries of the chains' cases are bound: the chains may cover part of the
	// corpus (cases whose chains have no memory, or one chain's case for its pane).
	order := f.Order[:0:0]
	for _, id := range f.Order {
		if _, ok := byID[id]; ok {
			order = append(order, id)
		}
	}
	f.Order = order
	truths, err := audience.Bind(f, chains[0].Domain, inSidecar)
	if err != nil {
		return nil, err
	}
	for _, ch := range chains {
		ch.Case.Audience = byID[ch.Case.ID].Audience
	}
	return truths, nil
}
