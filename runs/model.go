package runs

import (
	"sort"
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// The run model groups a verified run's rows into chains before anything is written: one chain
// per case x condition x writer target x writer run. Rows are attached through the ids they
// share (state -> current memory, evidence -> memory, trial -> evidence), so a chain's rows
// agree even where a row type leaves the writer or run id out (baseline memories carry a null
// writer_run_id; states carry no writer).

type chainKey struct {
	caseID, condition, writer string
	writerRun                 int64
}

type chainAcc struct {
	key         chainKey
	pk          int64
	archs       map[string]bool
	ealChainIDs map[string]bool
	memories    []*memRec
	states      []*stateRec
	attempts    []*attemptRec
	evidence    []*evidenceRec
	trials      []*trialRec
	faults      []rundir.Row
	// c is the case when its corpus is in the workspace.
	c      *engine.Case
	casePK int64
}

type memRec struct {
	row      rundir.Row
	id       string
	parent   *string
	ealChain string
	block    int
	arch     string
	origin   string
	hash     string
	payload  any
	chain    *chainAcc
}

type stateRec struct {
	row     rundir.Row
	id      string
	block   int
	status  string
	current *string
	changed bool
}

type attemptRec struct {
	row   rundir.Row
	id    string
	block int
}

type evidenceRec struct {
	row   rundir.Row
	id    string
	chain *chainAcc
}

type trialRec struct {
	row      rundir.Row
	pk       int64
	trialID  string
	probeID  string
	chain    *chainAcc
	memoryID *string
	executor string
	execRun  int64
	// oracleBlock is the executor plan's (or metadata's) oracle block; nil means the final block.
	oracleBlock *int
	// rescored is our scorer's outcome (nil when the case or probe is unavailable).
	rescored *engine.Outcome
}

type runModel struct {
	chains   map[chainKey]*chainAcc
	order    []*chainAcc
	memories map[string]*memRec
}

func writerTarget(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["target_id"].(string)
	return s
}

func (m *runModel) chain(k chainKey) *chainAcc {
	if c, ok := m.chains[k]; ok {
		return c
	}
	c := &chainAcc{key: k, archs: map[string]bool{}, ealChainIDs: map[string]bool{}}
	m.chains[k] = c
	m.order = append(m.order, c)
	return c
}

// buildModel groups the rows of a verified run into chains.
func buildModel(run *rundir.Run) *runModel {
	m := &runModel{chains: map[chainKey]*chainAcc{}, memories: map[string]*memRec{}}
	evRunByMemory := map[string]int64{}
	for _, r := range run.Files[rundir.Evidence] {
		if id := r.Str("memory_id"); id != "" {
			if _, seen := evRunByMemory[id]; !seen {
				evRunByMemory[id] = r.Int("memory_run_id")
			}
		}
	}
	for _, r := range run.Files[rundir.Memories] {
		id := r.Str("memory_id")
		if _, dup := m.memories[id]; dup {
			continue // an identical repeat (rundir refuses different ones)
		}
		runID := int64(0)
		if p := r.OptInt("writer_run_id"); p != nil {
			runID = *p
		} else if v, ok := evRunByMemory[id]; ok {
			runID = v
		}
		c := m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), writerTarget(r.Tree["writer"]), runID})
		mr := &memRec{row: r, id: id, parent: r.OptStr("parent_memory_id"), ealChain: r.Str("chain_id"), block: int(r.Int("block_index")),
			arch: r.Str("architecture"), origin: r.Str("origin"), hash: r.Str("content_hash"), payload: r.Tree["payload"], chain: c}
		m.memories[id] = mr
		c.memories = append(c.memories, mr)
		c.archs[mr.arch] = true
		if mr.ealChain != "" {
			c.ealChainIDs[mr.ealChain] = true
		}
	}
	attemptWriter := map[string]string{}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		attemptWriter[r.Str("attempt_id")] = writerTarget(r.Tree["writer"])
	}
	seenState := map[string]bool{}
	for _, r := range run.Files[rundir.MemoryStates] {
		id := r.Str("state_id")
		if seenState[id] {
			continue
		}
		seenState[id] = true
		var c *chainAcc
		if cur := r.OptStr("current_memory_id"); cur != nil && m.memories[*cur] != nil {
			c = m.memories[*cur].chain
		} else {
			w := ""
			if ids, _ := r.Tree["attempt_ids"].([]any); len(ids) > 0 {
				s, _ := ids[0].(string)
				w = attemptWriter[s]
			}
			c = m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), w, r.Int("writer_run_id")})
		}
		c.states = append(c.states, &stateRec{row: r, id: id, block: int(r.Int("block_index")), status: r.Str("status"), current: r.OptStr("current_memory_id"), changed: r.Bool("changed")})
		if a := r.Str("architecture"); a != "" {
			c.archs[a] = true
		}
	}
	seenAttempt := map[string]bool{}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		id := r.Str("attempt_id")
		if seenAttempt[id] {
			continue
		}
		seenAttempt[id] = true
		var c *chainAcc
		for _, key := range []string{"accepted_memory_id", "retained_memory_id", "parent_memory_id"} {
			if mid := r.OptStr(key); mid != nil && m.memories[*mid] != nil {
				c = m.memories[*mid].chain
				break
			}
		}
		if c == nil {
			c = m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), writerTarget(r.Tree["writer"]), r.Int("writer_run_id")})
		}
		c.attempts = append(c.attempts, &attemptRec{row: r, id: id, block: int(r.Int("block_index"))})
	}
	evidence := map[string]*evidenceRec{}
	for _, r := range run.Files[rundir.Evidence] {
		id := r.Str("evidence_id")
		if evidence[id] != nil {
			continue
		}
		var c *chainAcc
		if mid := r.OptStr("memory_id"); mid != nil && m.memories[*mid] != nil {
			c = m.memories[*mid].chain
		} else {
			c = m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), writerTarget(r.Tree["writer"]), r.Int("memory_run_id")})
		}
		if a := r.OptStr("architecture"); a != nil {
			c.archs[*a] = true
		}
		ev := &evidenceRec{row: r, id: id, chain: c}
		evidence[id] = ev
		c.evidence = append(c.evidence, ev)
	}
	oracleBlocks := map[string]*int{}
	for _, r := range run.Files[rundir.ExecutorPlan] {
		if p := r.OptInt("oracle_block_index"); p != nil {
			v := int(*p)
			oracleBlocks[r.Str("trial_id")] = &v
		}
	}
	for _, r := range run.Files[rundir.Trials] {
		var c *chainAcc
		if ev := evidence[r.Str("evidence_id")]; ev != nil {
			c = ev.chain
		} else if mid := r.OptStr("memory_id"); mid != nil && m.memories[*mid] != nil {
			c = m.memories[*mid].chain
		} else {
			c = m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), writerTarget(r.Tree["writer"]), r.Int("writer_run_id")})
		}
		md, _ := r.Tree["metadata"].(map[string]any)
		core, _ := md["core"].(map[string]any)
		study, _ := md["study"].(map[string]any)
		t := &trialRec{row: r, probeID: r.Str("probe_id"), chain: c, memoryID: r.OptStr("memory_id"),
			executor: writerTarget(r.Tree["executor"]), execRun: r.Int("executor_run_id")}
		t.trialID, _ = core["trial_id"].(string)
		if t.trialID == "" {
			t.trialID = "line:" + itoa(r.Line)
		}
		t.oracleBlock = oracleBlocks[t.trialID]
		if t.oracleBlock == nil {
			for _, ns := range []map[string]any{study, core} {
				if v, err := engine.Int("", ns["oracle_block_index"]); err == nil {
					b := int(v)
					t.oracleBlock = &b
					break
				}
			}
		}
		c.trials = append(c.trials, t)
	}
	for _, r := range run.Files[rundir.Faults] {
		c := m.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), writerTargetOfFault(m, r), r.Int("writer_run_id")})
		c.faults = append(c.faults, r)
	}
	sort.SliceStable(m.order, func(i, j int) bool {
		a, b := m.order[i].key, m.order[j].key
		if a.caseID != b.caseID {
			return a.caseID < b.caseID
		}
		if a.condition != b.condition {
			return a.condition < b.condition
		}
		if a.writer != b.writer {
			return a.writer < b.writer
		}
		return a.writerRun < b.writerRun
	})
	return m
}

// writerTargetOfFault attaches a fault to its memory's chain when it names one.
func writerTargetOfFault(m *runModel, r rundir.Row) string {
	if mr := m.memories[r.Str("memory_id")]; mr != nil {
		return mr.chain.key.writer
	}
	for _, c := range m.order {
		if c.key.caseID == r.Str("case_id") && c.key.condition == r.Str("condition_id") && c.key.writerRun == r.Int("writer_run_id") {
			return c.key.writer
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
