package workbench

import (
	"context"
	"errors"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/replay"
)

// ErrNoSidecar: the run's corpus has no audience sidecar, so audience-bound admission does
// not apply (never a decision).
var ErrNoSidecar = errors.New("the run's corpus has no audience sidecar: audience_bound not applicable")

// AudienceStore reads what the audience lab needs: the run's writer chains and its sidecar.
type AudienceStore interface {
	SafeguardReader
	RunSidecar(ctx context.Context, runID string) (source string, data []byte, ok bool, err error)
}

// AudienceLab is the audience lab's result on a run.
type AudienceLab struct {
	*replay.AudienceRunResult
	Sidecar  string
	Chains   int
	Executor string
}

// EvaluateAudience runs the audience lab (replay.EvaluateAudienceRun) on every writer chain of
// a run, with the run's audience sidecar attached to its cases. Nothing is stored.
func EvaluateAudience(ctx context.Context, store AudienceStore, models replay.Models, runID, executor string, seed int64) (AudienceLab, error) {
	source, data, ok, err := store.RunSidecar(ctx, runID)
	if err != nil {
		return AudienceLab{}, err
	}
	if !ok {
		return AudienceLab{}, ErrNoSidecar
	}
	chains, _, _, err := LoadSafeguardRun(ctx, store, runID)
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
	return AudienceLab{AudienceRunResult: res, Sidecar: source, Chains: len(chains), Executor: ex.Provenance(seed).TargetID}, nil
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
	truths, err := audience.Bind(f, chains[0].Domain, inSidecar)
	if err != nil {
		return nil, err
	}
	for _, ch := range chains {
		ch.Case.Audience = byID[ch.Case.ID].Audience
	}
	return truths, nil
}
