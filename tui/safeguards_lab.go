package tui

// The lab over a workspace: the chain's memory versions read from the store, replay's lab
// (replay.EvaluateChain) run on them with every policy of engine/safeguards, and the answer
// turned into the pane's display rows. Evaluations made in this session are kept per chain,
// so reopening the pane (or stepping blocks) never re-runs the executor.

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// labWorkspace is what the lab reads from the workspace; *runs.Store satisfies it.
type labWorkspace interface {
	ChainBlocks(ctx context.Context, key runs.ChainKey) ([]runs.BlockStep, error)
	RerunSource(ctx context.Context, key runs.ChainKey, block int) (runs.RerunSource, error)
	MemoryAt(ctx context.Context, key runs.ChainKey, block int) (runs.MemoryVersion, error)
	Chain(ctx context.Context, key runs.ChainKey) (runs.ChainHeader, error)
	Chains(ctx context.Context, f runs.ChainFilter) ([]runs.ChainRow, error)
}

var _ labWorkspace = (*runs.Store)(nil)

// labSeed is the executor seed of every lab arm (EAL-Bench's analysis seed, as the re-run
// panel's): both arms of a pair share it, so they differ only in memory.
const labSeed = 20260821

// workspaceLab implements SafeguardLab over a workspace.
type workspaceLab struct {
	ws     labWorkspace
	models *replay.Config

	mu     sync.Mutex
	chains map[runs.ChainKey]SafeguardChain
	// runs holds, per run, the summaries of the chains a run evaluation finished (by chain
	// ref), so a cancelled batch keeps them and the next one adds to them.
	runs map[string]map[string]replay.SafeguardChainSummary
	// skipped are the chains of a run the lab could not evaluate, with why.
	skipped map[string][]string
}

// newWorkspaceLab is the lab over store, or nil when store is no workspace.
func newWorkspaceLab(store Store, models *replay.Config) SafeguardLab {
	ws, ok := store.(labWorkspace)
	if !ok {
		return nil
	}
	return &workspaceLab{ws: ws, models: models, chains: map[runs.ChainKey]SafeguardChain{},
		runs: map[string]map[string]replay.SafeguardChainSummary{}, skipped: map[string][]string{}}
}

func (l *workspaceLab) StoredChain(ctx context.Context, key ChainKey) (SafeguardChain, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.chains[key.ID]
	return c, ok, nil
}

// executor builds the named executor for a domain: the built-in one, or a configured model.
func (l *workspaceLab) executor(d engine.Domain, name string) (replay.Executor, error) {
	if name == "" || name == "builtin" {
		return replay.NewBuiltinExecutor(d, labSeed), nil
	}
	if l.models == nil {
		return nil, fmt.Errorf("no model %q is configured (the config file's [models] table)", name)
	}
	m, ok := l.models.Models[name]
	if !ok {
		return nil, fmt.Errorf("no model %q is configured (the config file's [models] table)", name)
	}
	return replay.NewModelExecutor(d, replay.NewModelClient(m, replay.DefaultRetryPolicy(), nil)), nil
}

// caseSource is a parsed case with its domain and EAL-Bench's operational context per probe.
type caseSource struct {
	domain   engine.Domain
	c        *engine.Case
	contexts map[string]string
}

// chainSource reads a chain's memory after every block that has one, with the formation
// verdicts computed at import (they cover free text read through accepted annotations). The
// case, its domain and the operational contexts are read once (at the final block).
//
// cases, when not nil, keeps each case read (with its operational contexts) by run and case
// id: the chains of a run share their cases, and parsing one is most of a chain's cost.
func chainSource(ctx context.Context, ws labWorkspace, key ChainKey, cases map[string]caseSource) (replay.SafeguardChain, error) {
	steps, err := ws.ChainBlocks(ctx, key.ID)
	if err != nil {
		return replay.SafeguardChain{}, err
	}
	h, err := ws.Chain(ctx, key.ID)
	if err != nil {
		return replay.SafeguardChain{}, err
	}
	ck := h.RunID + "\x00" + h.CaseID
	cs, ok := cases[ck]
	if !ok {
		src, err := ws.RerunSource(ctx, key.ID, -1)
		if err != nil {
			return replay.SafeguardChain{}, err
		}
		cs = caseSource{domain: src.Domain, c: src.Case, contexts: map[string]string{}}
		for _, p := range src.Probes {
			if oc := replay.OperationalContextFrom(src.Domain, p.Probe, p.ContextUserMessage); oc != "" {
				cs.contexts[p.Probe.ID] = oc
			}
		}
		if cases != nil {
			cases[ck] = cs
		}
	}
	ch := replay.SafeguardChain{Domain: cs.domain, Case: cs.c, Condition: h.ConditionID,
		Architecture: h.Architecture, ChainRef: chainRef(h.RunID, key.ID),
		WriterTarget: h.Writer, WriterRunID: h.WriterRunID, OperationalContext: cs.contexts}
	payloads := map[string]any{} // a no_change block repeats its memory: decode it once
	for _, st := range steps {
		if st.MemoryID == "" {
			continue
		}
		m, err := ws.MemoryAt(ctx, key.ID, st.BlockIndex)
		if err != nil {
			return ch, err
		}
		payload, ok := payloads[m.MemoryID]
		if !ok {
			payload = m.Payload
			if m.Architecture == engine.ArchTyped {
				if payload, err = pyjson.DecodeTree([]byte(m.Payload)); err != nil {
					return ch, fmt.Errorf("memory %s: stored payload: %w", sanitizeLine(m.MemoryID), err)
				}
			}
			payloads[m.MemoryID] = payload
		}
		if ch.Architecture == "" {
			ch.Architecture = m.Architecture
		}
		var f *replay.FormationVerdict
		if m.FormsFalseAuthority != nil {
			f = &replay.FormationVerdict{Estimable: true, Formed: *m.FormsFalseAuthority, FormedProbeIDs: append([]string{}, m.FormedProbeIDs...)}
		}
		ch.Versions = append(ch.Versions, replay.SafeguardVersion{Block: st.BlockIndex, MemoryID: m.MemoryID, Payload: payload, Formation: f})
	}
	if len(ch.Versions) == 0 {
		return ch, fmt.Errorf("chain %s/%s has no memory version to evaluate", sanitizeLine(key.CaseID), sanitizeLine(key.ConditionID))
	}
	return ch, nil
}

func (l *workspaceLab) EvaluateChain(ctx context.Context, key ChainKey, executor string, progress LabProgress) (SafeguardChain, error) {
	ch, err := chainSource(ctx, l.ws, key, nil)
	if err != nil {
		return SafeguardChain{}, err
	}
	ex, err := l.executor(ch.Domain, executor)
	if err != nil {
		return SafeguardChain{}, err
	}
	// The pane steps through blocks, so it re-runs at every block that has a memory.
	ev, err := replay.EvaluateChain(ctx, replay.SafeguardSpec{Chain: ch, Policies: safeguards.All(), Executor: ex, Seed: labSeed,
		Blocks: replay.TrialsAtEveryBlock, Progress: func(done, total int) { progress("trials", done, total) }})
	if err != nil {
		return SafeguardChain{}, err
	}
	if ev.Cancelled {
		return SafeguardChain{}, context.Canceled
	}
	out := presentSafeguards(ch, ev, executor)
	l.mu.Lock()
	l.chains[key.ID] = out
	l.mu.Unlock()
	return out, nil
}

// chainRef names a chain in the lab's ids and in the run's summaries.
func chainRef(runID string, key runs.ChainKey) string { return fmt.Sprintf("%s/%d", runID, int64(key)) }

// labTableNote says how the run table's intervals are drawn (engine/bootstrap.go).
var labTableNote = fmt.Sprintf("at each chain's final block; paired bootstrap of the difference, chains (case, writer, writer run) resampled, seed %d, %d draws",
	engine.BootstrapSeed, engine.BootstrapDraws)

func (l *workspaceLab) StoredRun(ctx context.Context, runID string) (SafeguardTable, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	done := l.runs[runID]
	if len(done) == 0 {
		return SafeguardTable{}, false, nil
	}
	return l.tableLocked(runID), true, nil
}

// tableLocked builds the run's table from the finished chains, in chain-ref order (l.mu held).
func (l *workspaceLab) tableLocked(runID string) SafeguardTable {
	done := l.runs[runID]
	refs := make([]string, 0, len(done))
	for r := range done {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	sums := make([]replay.SafeguardChainSummary, len(refs))
	for i, r := range refs {
		sums[i] = done[r]
	}
	t := presentSafeguardTable(replay.SafeguardTableOf(sums))
	t.RunID, t.Chains, t.Note = runID, len(sums), labTableNote
	t.Skipped = append([]string(nil), l.skipped[runID]...)
	return t
}

// EvaluateRun evaluates every chain of the run with a memory (conditions without a writer
// have none: they are listed as skipped), at the final block, keeping each chain as it
// finishes.
func (l *workspaceLab) EvaluateRun(ctx context.Context, runID, executor string, progress LabProgress) (SafeguardTable, error) {
	rows, err := l.ws.Chains(ctx, runs.ChainFilter{RunID: runID})
	if err != nil {
		return SafeguardTable{}, err
	}
	var chains []replay.SafeguardChain
	cases := map[string]caseSource{}
	skips := map[string]int{}
	for i, r := range rows {
		progress("reading chains", i, len(rows))
		k := presentChain(r).Key
		if r.Memories == 0 {
			skips["no memory ("+r.ConditionID+")"]++
			continue
		}
		ch, err := chainSource(ctx, l.ws, k, cases)
		if err != nil {
			if ctx.Err() != nil {
				return SafeguardTable{}, ctx.Err()
			}
			skips[err.Error()]++
			continue
		}
		chains = append(chains, ch)
	}
	var skipped []string
	for why, n := range skips {
		skipped = append(skipped, fmt.Sprintf("%d chains: %s", n, why))
	}
	sort.Strings(skipped)
	if len(chains) == 0 {
		return SafeguardTable{}, fmt.Errorf("run %s has no chain with a memory to evaluate", sanitizeLine(runID))
	}
	ex, err := l.executor(chains[0].Domain, executor)
	if err != nil {
		return SafeguardTable{}, err
	}
	l.mu.Lock()
	if l.runs[runID] == nil {
		l.runs[runID] = map[string]replay.SafeguardChainSummary{}
	}
	l.skipped[runID] = skipped
	l.mu.Unlock()
	res, err := replay.EvaluateRun(ctx, replay.SafeguardRunSpec{Chains: chains, Policies: safeguards.All(), Executor: ex, Seed: labSeed,
		Blocks: replay.TrialsAtFinalBlock, Progress: func(done, total int) { progress("chains", done, total) },
		Save: func(_ context.Context, ev *replay.ChainEvaluation) error {
			l.mu.Lock()
			l.runs[runID][ev.ChainRef] = ev.Summary()
			l.mu.Unlock()
			return nil
		}})
	if err != nil {
		return SafeguardTable{}, err
	}
	if res.Cancelled {
		return SafeguardTable{}, context.Canceled
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tableLocked(runID)
	t.Executor = executor
	return t, nil
}
