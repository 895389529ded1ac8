package workbench

// Why false authority formed, for a workspace chain: load the chain's case, memories, attempt
// statuses and writer, run the cause rules (engine/cause) and, for the scripted writer, turn
// ablation (replay). Documented in docs/CAUSES.md.

import (
	"context"
	"fmt"
	"slices"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// WhyStore is what explaining a workspace chain's failure reads.
type WhyStore interface {
	WhySource(ctx context.Context, key runs.ChainKey) (runs.SafeguardSource, error)
	AttemptStatuses(ctx context.Context, key runs.ChainKey) (map[int][]string, error)
	ChainWriter(ctx context.Context, key runs.ChainKey) (runs.ChainWriter, error)
}

// WhyQuery names one failure: a chain, the block (< 0: its first false-authority block) and
// the probe ("": the first probe that forms there).
type WhyQuery struct {
	Key   runs.ChainKey
	Block int
	Probe string
	// Ablate re-runs the writer without each of the first AblateTop ranked turns.
	Ablate    bool
	AblateTop int
}

// Why is one failure explained.
type Why struct {
	RunID       string            `json:"run_id"`
	CaseID      string            `json:"case_id"`
	ConditionID string            `json:"condition_id"`
	WriterRunID int64             `json:"writer_run_id"`
	Block       int               `json:"block"`
	Probe       string            `json:"probe_id"`
	Attribution cause.Attribution `json:"attribution"`
	// Support is how the first cause is supported ("confirmed by ablation", "rule-based").
	Support string `json:"support"`
	// Ablation says what turn ablation did ("" when not asked): run with the scripted writer,
	// or why it was not.
	Ablation string `json:"ablation,omitempty"`
}

// WhyChain is the loaded chain, reused across its failures.
type WhyChain struct {
	src      runs.SafeguardSource
	attempts map[int][]string
	writer   runs.ChainWriter
	key      runs.ChainKey
	cache    *cause.Cache
}

// LoadWhyChain reads a chain's case, memories, attempt statuses and writer.
func LoadWhyChain(ctx context.Context, store WhyStore, key runs.ChainKey) (*WhyChain, error) {
	src, err := store.WhySource(ctx, key)
	if err != nil {
		return nil, err
	}
	att, err := store.AttemptStatuses(ctx, key)
	if err != nil {
		return nil, err
	}
	w, err := store.ChainWriter(ctx, key)
	if err != nil {
		return nil, err
	}
	return &WhyChain{src: src, attempts: att, writer: w, key: key, cache: cause.NewCache(src.Case)}, nil
}

// FirstFalse is the chain's first false-authority block (-1: none).
func (wc *WhyChain) FirstFalse() int {
	if b := wc.src.Chain.FirstFalseAuthorityBlock; b != nil {
		return *b
	}
	return -1
}

// FormedAt are the probes whose request the memory wrongly authorizes at block.
func (wc *WhyChain) FormedAt(block int) []string {
	for _, v := range wc.src.Versions {
		if v.Block == block {
			return v.Formation.FormedProbeIDs
		}
	}
	return nil
}

// memoryAt are the typed records after block (nil, false before the chain's first memory).
func (wc *WhyChain) memoryAt(block int) ([]engine.Record, bool, error) {
	for _, v := range wc.src.Versions {
		if v.Block != block {
			continue
		}
		recs, err := replay.MemoryRecords(wc.src.Domain, v.Payload)
		if err != nil {
			return nil, false, fmt.Errorf("memory %s at block %d: %w", v.MemoryID, block, err)
		}
		return recs, true, nil
	}
	return nil, false, nil
}

// Explain attributes one failure of the chain.
func (wc *WhyChain) Explain(q WhyQuery) (Why, error) {
	h := wc.src.Chain
	out := Why{RunID: h.RunID, CaseID: h.CaseID, ConditionID: h.ConditionID, WriterRunID: h.WriterRunID, Block: q.Block, Probe: q.Probe}
	if out.Block < 0 {
		out.Block = wc.FirstFalse()
		if out.Block < 0 {
			return out, fmt.Errorf("chain %s · %s forms no false authority", h.CaseID, h.ConditionID)
		}
	}
	formed := wc.FormedAt(out.Block)
	if out.Probe == "" {
		if len(formed) == 0 {
			return out, fmt.Errorf("block %d of chain %s · %s forms no false authority (first false-authority block: %d)", out.Block, h.CaseID, h.ConditionID, wc.FirstFalse())
		}
		out.Probe = formed[0]
	} else if !slices.Contains(formed, out.Probe) {
		return out, fmt.Errorf("probe %s does not form false authority at block %d (forming there: %v)", out.Probe, out.Block, formed)
	}
	d, c := wc.src.Domain, wc.src.Case
	p, ok := c.Probe(out.Probe)
	if !ok {
		return out, fmt.Errorf("case %s has no probe %s", c.ID, out.Probe)
	}
	after, have, err := wc.memoryAt(out.Block)
	if err != nil {
		return out, err
	}
	if !have {
		return out, fmt.Errorf("chain %s · %s has no memory at block %d", h.CaseID, h.ConditionID, out.Block)
	}
	before, haveBefore, err := wc.memoryAt(out.Block - 1)
	if err != nil {
		return out, err
	}
	in := cause.Input{Domain: d, Case: c, Block: out.Block, Request: p.Request, Probe: p.ID, RequestKind: "submitted",
		Attempts: wc.attempts[out.Block], HaveMemory: true, Before: before, After: after, HaveBefore: haveBefore, Cache: wc.cache}
	a, err := cause.Attribute(in)
	if err != nil {
		return out, err
	}
	if q.Ablate {
		out.Ablation = wc.ablate(&a, out.Block, p, q.AblateTop)
	}
	out.Attribution, out.Support = a, a.Support()
	return out, nil
}

// ablate runs turn ablation with the chain's writer when it can be re-run here.
func (wc *WhyChain) ablate(a *cause.Attribution, block int, p engine.Probe, top int) string {
	if top <= 0 {
		top = 3
	}
	params, scripted, err := replay.ScriptedParamsOf(wc.writer.Writer, wc.writer.EALChainID, wc.writer.Seed)
	switch {
	case err != nil:
		return "not estimable: " + err.Error()
	case !scripted:
		for i := range a.Causes {
			if i < top {
				a.Causes[i].Ablation = &cause.Ablation{Status: cause.AblationNotEstimable,
					Detail: "the chain's writer is " + wc.writer.Writer.RequestedModel + ", which is not re-run here"}
			}
		}
		return "not estimable: the chain's writer (" + wc.writer.Writer.RequestedModel + ") is a model; only the scripted writer is re-run"
	}
	replay.AblateScripted(wc.src.Domain, wc.src.Case, params, block, p.Request, a, top)
	a.Confirm()
	return fmt.Sprintf("scripted writer re-run without each of the first %d ranked turns", min(top, len(a.Causes)))
}

// Turn finds a turn of the chain's case.
func (wc *WhyChain) Turn(id string) (engine.Turn, bool) { return wc.src.Case.Turn(id) }
