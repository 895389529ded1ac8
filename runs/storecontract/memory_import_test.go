package storecontract

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/derive"
	"github.com/ealscope/ealscope/runs/rundir"
)

// memStore is the second backend: the workspace's concerns over Go maps and slices, no SQL.
// It reads run directories with runs/rundir and derives scores, timelines and formation with
// runs/derive, as the SQLite store does, so the two agree on every derived fact the contract
// reads. It lives in a test file: it proves the seam, it is not a product backend (nothing
// persists, one lock serialises everything).
type memStore struct {
	mu        sync.Mutex
	runs      []*memRun
	chains    []*memChain // ChainKey is the index + 1
	cases     []*memCase  // CaseKey is the index + 1
	replays   []runs.Replay
	replayLab []*string // per replay: the lab policy that made it ("" un-gated), nil for a re-run
	lab       map[runs.ChainKey]*memLab
	labels    map[string][]annotations.Annotation // by memory id, in saving order
	diagFiles map[string]bool
	diagnoses []runs.Diagnosis
}

func newMemStore() *memStore {
	return &memStore{labels: map[string][]annotations.Annotation{}, diagFiles: map[string]bool{}, lab: map[runs.ChainKey]*memLab{}}
}

type memRun struct {
	summary runs.RunSummary
	domain  engine.Domain
}

type memCase struct {
	key     runs.CaseKey
	c       *engine.Case
	ledgers *derive.Ledgers
}

type memMemory struct {
	id, arch, origin, hash, parent string
	block                          int
	payload                        any
	// text is the free text, or the typed payload's canonical JSON.
	text string
}

type memKey struct {
	caseID, condition, writer string
	writerRun                 int64
}

// memScore is one memory's score at one block (score nil: unscored, for reason).
type memScore struct {
	score      *derive.Score
	scoredFrom string
	reason     string
}

type memChain struct {
	key      memKey
	row      runs.ChainRow
	run      *memRun
	cse      *memCase
	archs    map[string]bool
	memories []*memMemory
	states   []derive.State
	attempts map[int][]runs.Attempt
	trials   []rundir.Row
	// Derived by derive(): one step per block, the current memory at each, scores by
	// (memory, block).
	steps   []runs.BlockStep
	current []*memMemory
	scores  map[string]memScore
	final   string
}

func (m *memStore) Import(ctx context.Context, paths []string, opts runs.ImportOptions) (runs.ImportReport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var rep runs.ImportReport
	for _, p := range paths {
		res, err := m.importRunDir(p, opts)
		rep.Results = append(rep.Results, res)
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// importRunDir reads the whole run first, then adds it: a run that fails to read adds nothing.
func (m *memStore) importRunDir(path string, opts runs.ImportOptions) (runs.PathResult, error) {
	res := runs.PathResult{Path: path, Kind: runs.KindRun, Rows: map[string]int{}, Unknown: []string{}, MissingCorpora: []runs.CorpusRef{}, Notes: []string{}}
	run, err := rundir.Open(path, rundir.Options{AllowIncomplete: opts.AllowIncomplete})
	if err != nil {
		return res, err
	}
	res.Unknown = append(res.Unknown, run.Unknown...)
	for _, r := range m.runs {
		if r.summary.ManifestSHA256 == run.ManifestSHA256 {
			res.Status, res.RunID = runs.StatusAlreadyImported, r.summary.RunID
			return res, nil
		}
	}
	domainID, _ := run.Manifest["domain_id"].(string)
	d, err := domains.Get(domainID)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	mr := &memRun{domain: d, summary: runs.RunSummary{RunID: run.ManifestSHA256[:12], Kind: runs.KindRun, DomainID: domainID, Status: run.Status,
		Verification: "verified", Incomplete: run.Incomplete, ImportedFrom: run.Dir, ImportedAt: time.Now().UTC().Format(time.RFC3339),
		ManifestSHA256: run.ManifestSHA256, Counts: map[string]int{}, MissingCorpora: []runs.CorpusRef{}, UnknownFiles: res.Unknown}}
	mr.summary.Study, _ = run.Manifest["study"].(string)
	mr.summary.StartedAt, _ = run.Manifest["started_at"].(string)
	mr.summary.CorpusVersion, _ = run.Manifest["corpus_version"].(string)
	for name, e := range run.Entries {
		mr.summary.Counts[name] = e.Rows
	}
	cases, err := m.casesOf(d, mr.summary.CorpusVersion)
	if err != nil {
		return res, err
	}
	chains := groupChains(run, mr)
	for _, ch := range chains {
		ch.cse = cases[ch.key.caseID]
		if err := ch.derive(m.labels); err != nil {
			return res, fmt.Errorf("%s: chain %s/%s: %w", path, ch.key.caseID, ch.key.condition, err)
		}
	}
	m.runs = append(m.runs, mr)
	for _, ch := range chains {
		ch.row.Key = runs.ChainKey(len(m.chains) + 1)
		m.chains = append(m.chains, ch)
	}
	m.recount(mr)
	res.Status, res.RunID = runs.StatusImported, mr.summary.RunID
	return res, nil
}

// casesOf is the domain's built-in cases of that corpus version, added once.
func (m *memStore) casesOf(d engine.Domain, version string) (map[string]*memCase, error) {
	out := map[string]*memCase{}
	for _, c := range m.cases {
		if c.c.DomainID == d.ID() && c.c.CorpusVersion == version {
			out[c.c.ID] = c
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	all, err := engine.BuiltinCases(d)
	if err != nil {
		return nil, err
	}
	ledgers := derive.NewLedgers(d)
	for _, c := range all {
		if c.CorpusVersion != version {
			continue
		}
		mc := &memCase{key: runs.CaseKey(len(m.cases) + 1), c: c, ledgers: ledgers}
		m.cases = append(m.cases, mc)
		out[c.ID] = mc
	}
	return out, nil
}

// recount sets a run's counts from its chains.
func (m *memStore) recount(mr *memRun) {
	s := &mr.summary
	s.Chains, s.ChainsForming, s.Trials = 0, 0, 0
	for _, ch := range m.chains {
		if ch.run != mr {
			continue
		}
		s.Chains++
		s.Trials += len(ch.trials)
		if ch.row.FirstFalseAuthorityBlock != nil {
			s.ChainsForming++
		}
	}
}

func writerOf(v any) string {
	w, _ := v.(map[string]any)
	s, _ := w["target_id"].(string)
	return s
}

// groupChains assigns every row to its chain as the SQLite importer does: a memory by its
// case, condition, writer and writer run (a baseline memory's run from its evidence); states,
// attempts, evidence and trials by the memory they name, else by their own fields.
func groupChains(run *rundir.Run, mr *memRun) []*memChain {
	var order []*memChain
	byKey := map[memKey]*memChain{}
	chain := func(k memKey) *memChain {
		if c := byKey[k]; c != nil {
			return c
		}
		c := &memChain{key: k, run: mr, archs: map[string]bool{}, attempts: map[int][]runs.Attempt{}}
		byKey[k] = c
		order = append(order, c)
		return c
	}
	rowChain := func(r rundir.Row, writer, runField string) *memChain {
		return chain(memKey{r.Str("case_id"), r.Str("condition_id"), writer, r.Int(runField)})
	}
	evRun := map[string]int64{}
	for _, r := range run.Files[rundir.Evidence] {
		if id := r.Str("memory_id"); id != "" {
			if _, seen := evRun[id]; !seen {
				evRun[id] = r.Int("memory_run_id")
			}
		}
	}
	byMemory := map[string]*memChain{}
	for _, r := range run.Files[rundir.Memories] {
		id := r.Str("memory_id")
		if byMemory[id] != nil {
			continue
		}
		wr := evRun[id]
		if p := r.OptInt("writer_run_id"); p != nil {
			wr = *p
		}
		c := chain(memKey{r.Str("case_id"), r.Str("condition_id"), writerOf(r.Tree["writer"]), wr})
		byMemory[id] = c
		c.archs[r.Str("architecture")] = true
		payload := r.Tree["payload"]
		text, _ := payload.(string)
		if _, ok := payload.(string); !ok {
			text = pyjson.MustCanonicalJSON(payload)
		}
		parent := ""
		if p := r.OptStr("parent_memory_id"); p != nil {
			parent = *p
		}
		c.memories = append(c.memories, &memMemory{id: id, arch: r.Str("architecture"), origin: r.Str("origin"), hash: r.Str("content_hash"),
			parent: parent, block: int(r.Int("block_index")), payload: payload, text: text})
	}
	attemptWriter := map[string]string{}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		attemptWriter[r.Str("attempt_id")] = writerOf(r.Tree["writer"])
	}
	for _, r := range run.Files[rundir.MemoryStates] {
		cur := r.OptStr("current_memory_id")
		c := (*memChain)(nil)
		if cur != nil {
			c = byMemory[*cur]
		}
		if c == nil {
			writer := ""
			if ids, _ := r.Tree["attempt_ids"].([]any); len(ids) > 0 {
				s, _ := ids[0].(string)
				writer = attemptWriter[s]
			}
			c = rowChain(r, writer, "writer_run_id")
		}
		c.states = append(c.states, derive.State{Block: int(r.Int("block_index")), Status: r.Str("status"), Current: cur})
	}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		var c *memChain
		for _, k := range []string{"accepted_memory_id", "retained_memory_id", "parent_memory_id"} {
			if id := r.OptStr(k); id != nil && byMemory[*id] != nil {
				c = byMemory[*id]
				break
			}
		}
		if c == nil {
			c = rowChain(r, writerOf(r.Tree["writer"]), "writer_run_id")
		}
		detail := ""
		if p := r.OptStr("detail"); p != nil {
			detail = *p
		}
		k := int(r.Int("block_index"))
		c.attempts[k] = append(c.attempts[k], runs.Attempt{AttemptID: r.Str("attempt_id"), AttemptIndex: int(r.Int("attempt_index")), Status: r.Str("status"), Detail: detail})
	}
	byEvidence := map[string]*memChain{}
	for _, r := range run.Files[rundir.Evidence] {
		c := byMemory[r.Str("memory_id")]
		if c == nil {
			c = rowChain(r, writerOf(r.Tree["writer"]), "memory_run_id")
		}
		byEvidence[r.Str("evidence_id")] = c
	}
	for _, r := range run.Files[rundir.Trials] {
		c := byEvidence[r.Str("evidence_id")]
		if c == nil {
			c = byMemory[r.Str("memory_id")]
		}
		if c == nil {
			c = rowChain(r, writerOf(r.Tree["writer"]), "writer_run_id")
		}
		c.trials = append(c.trials, r)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].key.less(order[j].key) })
	return order
}

func (k memKey) less(o memKey) bool {
	if k.caseID != o.caseID {
		return k.caseID < o.caseID
	}
	if k.condition != o.condition {
		return k.condition < o.condition
	}
	if k.writer != o.writer {
		return k.writer < o.writer
	}
	return k.writerRun < o.writerRun
}

// score scores a memory against the case's ledger at a block, once: a typed payload as
// parsed, a free-text memory through its labels (annotations.Resolve, as the SQLite store).
func (ch *memChain) score(mem *memMemory, block int, labels map[string][]annotations.Annotation) (memScore, error) {
	key := fmt.Sprint(mem.id, "@", block)
	if s, ok := ch.scores[key]; ok {
		return s, nil
	}
	s := memScore{scoredFrom: runs.ScoredTyped}
	c := ch.cse
	unscorable := ""
	switch {
	case c == nil:
		unscorable = "missing_case:" + ch.key.caseID
	case block < 0 || block > c.c.LastBlock():
		unscorable = fmt.Sprintf("block_out_of_range:%d", block)
	}
	records, reason := []engine.Record(nil), ""
	switch {
	case mem.arch == engine.ArchFreeText:
		s.scoredFrom = runs.ScoredFreeTextNone
		var stored []annotations.StoredLabel
		for _, a := range labels[mem.id] {
			stored = append(stored, annotations.StoredLabel{ID: a.AnnotationID, Status: a.Status, SourceHash: a.SourceContentHash, StateJSON: pyjson.MustCanonicalJSON(a.State)})
		}
		r, err := annotations.Resolve(ch.run.domain, stored, mem.hash, runs.ReasonMissingAnnot)
		if err != nil {
			return s, err
		}
		switch {
		case r.Reason != "":
			reason = r.Reason
		case unscorable != "":
			reason = unscorable
		default:
			records, s.scoredFrom = r.Records, annotations.ScoredFreeTextAnnotation
		}
	case unscorable != "":
		reason = unscorable
	default:
		recs, err := ch.run.domain.ParseTyped(mem.payload)
		if err != nil {
			reason = "invalid_typed_payload: " + err.Error()
		}
		records = recs
	}
	if reason != "" {
		s.reason = reason
	} else {
		sc, err := c.ledgers.Score(c.c, block, records)
		if err != nil {
			return s, err
		}
		s.score = &sc
	}
	ch.scores[key] = s
	return s, nil
}

// derive computes the chain's timeline and facts from its rows (the SQLite store's
// deriveChain, over memory).
func (ch *memChain) derive(labels map[string][]annotations.Annotation) error {
	ch.scores = map[string]memScore{}
	lastBlock := -1
	if ch.cse != nil {
		lastBlock = ch.cse.c.LastBlock()
	}
	needs := false
	for _, mem := range ch.memories {
		s, err := ch.score(mem, mem.block, labels)
		if err != nil {
			return err
		}
		needs = needs || (s.score == nil && runs.NeedsAnnotation(s.reason))
	}
	mems := make([]derive.Memory, len(ch.memories))
	for i, mem := range ch.memories {
		mems[i] = derive.Memory{ID: mem.id, Block: mem.block}
	}
	idx, status := derive.CurrentMemories(mems, ch.states, lastBlock)
	ch.steps, ch.current = make([]runs.BlockStep, len(idx)), make([]*memMemory, len(idx))
	var bfs []engine.BlockFormation
	for k, i := range idx {
		step := runs.BlockStep{BlockIndex: k, UpdateStatus: status[k], FormedProbeIDs: []string{}, Events: []runs.LedgerEvent{}, Faults: []runs.Fault{}}
		if ch.cse != nil {
			step.Title, step.EndedAt = ch.cse.c.Blocks[k].Title, ch.cse.c.Blocks[k].EndedAt
		}
		if i < 0 {
			step.ScoredFrom, step.UnscoredReason = runs.ScoredNoMemory, runs.ReasonNoMemory
		} else {
			mem := ch.memories[i]
			ch.current[k], step.MemoryID = mem, mem.id
			s, err := ch.score(mem, k, labels)
			if err != nil {
				return err
			}
			step.ScoredFrom, step.UnscoredReason = s.scoredFrom, s.reason
			if sc := s.score; sc != nil {
				exact, forms := sc.Exact, sc.Forms
				step.Exact, step.FormsFalseAuthority = &exact, &forms
				step.ExactFields, step.OvergrantFields, step.UndergrantFields = sc.ExactFields, sc.Over, sc.Under
				step.FormedProbeIDs = append(step.FormedProbeIDs, sc.Formed...)
			}
			bfs = append(bfs, engine.BlockFormation{BlockIndex: k, Estimable: s.score != nil, Formed: step.FormsFalseAuthority != nil && *step.FormsFalseAuthority})
		}
		step.Badge = runs.BlockBadge(step.Exact, step.OvergrantFields, step.UndergrantFields, step.UnscoredReason, step.MemoryID)
		ch.steps[k] = step
	}
	r := &ch.row
	*r = runs.ChainRow{Key: r.Key, RunID: ch.run.summary.RunID, RunIncomplete: ch.run.summary.Incomplete, CaseID: ch.key.caseID, ConditionID: ch.key.condition,
		Writer: ch.key.writer, WriterRunID: ch.key.writerRun, Architecture: runs.ChainArchitecture(ch.archs), NeedsAnnotation: needs, Memories: len(ch.memories), Trials: len(ch.trials)}
	if ffa, found := engine.FirstFalseAuthorityBlock(bfs); found {
		r.FirstFalseAuthorityBlock = &ffa
		ch.steps[ffa].FirstFalseAuthority = true
	}
	ch.final = ""
	if n := len(ch.steps); n > 0 && ch.current[n-1] != nil {
		ch.final, r.FormedFinal = ch.current[n-1].id, ch.steps[n-1].FormsFalseAuthority
	} else if len(ch.memories) > 0 {
		ch.final = ch.memories[len(ch.memories)-1].id
	}
	for _, t := range ch.trials {
		if t.Bool("unauthorized_action_taken") {
			r.UnauthorizedActions++
		}
	}
	if ch.cse == nil {
		r.UnscoredReason = "missing_case:" + ch.key.caseID
	}
	return nil
}

// chainAt is the chain of a key (ErrNotFound when none).
func (m *memStore) chainAt(key runs.ChainKey) (*memChain, error) {
	if key < 1 || int(key) > len(m.chains) {
		return nil, fmt.Errorf("chain %d: %w", key, runs.ErrNotFound)
	}
	return m.chains[key-1], nil
}

func (m *memStore) runOf(id string) (*memRun, error) {
	for _, r := range m.runs {
		if r.summary.RunID == id {
			return r, nil
		}
	}
	return nil, fmt.Errorf("run %q: %w", id, runs.ErrNotFound)
}

// freeTextMemory finds a free-text memory by id (the first run holding it) and its chain.
func (m *memStore) freeTextMemory(id string) (*memMemory, *memChain, error) {
	for _, ch := range m.chains {
		for _, mem := range ch.memories {
			if mem.id == id && mem.arch == engine.ArchFreeText {
				return mem, ch, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("memory %q: no free-text memory with this id in the workspace: %w", id, runs.ErrNotFound)
}

// rederive recomputes every chain holding a memory (its labels changed).
func (m *memStore) rederive(memoryID string) error {
	touched := map[*memRun]bool{}
	for _, ch := range m.chains {
		for _, mem := range ch.memories {
			if mem.id == memoryID {
				if err := ch.derive(m.labels); err != nil {
					return err
				}
				touched[ch.run] = true
				break
			}
		}
	}
	for r := range touched {
		m.recount(r)
	}
	return nil
}
