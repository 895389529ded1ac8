package replay

import (
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ChainFormation is one writer chain's formation verdict: the earliest block whose memory
// grants a probe the ledger at that block denies.
type ChainFormation struct {
	CaseID      string `json:"case_id"`
	ConditionID string `json:"condition_id"`
	WriterRunID int    `json:"writer_run_id"`
	// Estimable is false when some memory of the chain could not be read as records
	// (free text outside the canonical layout).
	Estimable bool `json:"estimable"`
	Formed    bool `json:"formed"`
	// FirstBlock is the first false-authority block (meaningful when Formed).
	FirstBlock int `json:"first_block"`
}

// Summary is what `ealscope run` reports: counts over the whole run directory.
type Summary struct {
	Dir    string `json:"dir"`
	Status string `json:"status"`
	Cases  int    `json:"cases"`
	Trials int    `json:"trials"`
	// Metrics and Conditions are EAL-Bench's aggregates (provider errors in the denominators,
	// docs/FORMATS.md 6.4); Estimable and ConditionsEstimable leave provider-error trials out and
	// are the rates shown to a person.
	Metrics             engine.Metrics                     `json:"metrics"`
	Conditions          map[string]engine.Metrics          `json:"conditions"`
	Estimable           engine.EstimableMetrics            `json:"estimable"`
	ConditionsEstimable map[string]engine.EstimableMetrics `json:"conditions_estimable"`
	// WriterChains, ChainsFormed and FirstBlocks describe false-authority formation.
	WriterChains    int            `json:"writer_chains"`
	ChainsEstimable int            `json:"chains_estimable"`
	ChainsFormed    int            `json:"chains_forming_false_authority"`
	FirstBlocks     map[string]int `json:"first_false_authority_blocks"`
	Faults          map[string]int `json:"faults"`
	// WriterAttempts counts writer calls (memory attempts) and WriterErrors those that
	// failed (status writer_error): a writer failing on every call wrote no memory.
	WriterAttempts int `json:"writer_attempts"`
	WriterErrors   int `json:"writer_errors"`
	// ModelCalls is what each model cost: calls and tokens per task and target.
	ModelCalls []ModelCalls     `json:"model_calls"`
	Chains     []ChainFormation `json:"-"`
}

// summaryBuilder accumulates a summary while a run writes its rows, so a large run is never
// read back just to report on it.
type summaryBuilder struct {
	all    []engine.Outcome
	byCond map[string][]engine.Outcome
	chains []ChainFormation
	faults map[string]int

	writerAttempts, writerErrors int
	calls                        map[callKey]*ModelCalls
}

// attempt counts one writer call by its attempt status.
func (b *summaryBuilder) attempt(status string) {
	b.writerAttempts++
	if status == StatusWriterError {
		b.writerErrors++
	}
}

// WriterFailedEverywhere reports a run whose writer failed on every call it made.
func (s *Summary) WriterFailedEverywhere() bool {
	return s.WriterAttempts > 0 && s.WriterErrors == s.WriterAttempts
}

func newSummaryBuilder() *summaryBuilder {
	return &summaryBuilder{byCond: map[string][]engine.Outcome{}, faults: map[string]int{}}
}

func (b *summaryBuilder) trial(cond string, o engine.Outcome) {
	// Only the fields Aggregate reads are kept.
	slim := engine.Outcome{RequestAuthorized: o.RequestAuthorized, Decision: o.Decision, RequestedActionTaken: o.RequestedActionTaken,
		UnauthorizedActionTaken: o.UnauthorizedActionTaken, ActionMismatch: o.ActionMismatch, ProviderError: o.ProviderError}
	b.all = append(b.all, slim)
	b.byCond[cond] = append(b.byCond[cond], slim)
}

func (b *summaryBuilder) summary(dir, status string, cases int) *Summary {
	s := &Summary{Dir: dir, Status: status, Cases: cases, Trials: len(b.all), Metrics: engine.Aggregate(b.all),
		Conditions: map[string]engine.Metrics{}, Estimable: engine.AggregateEstimable(b.all), ConditionsEstimable: map[string]engine.EstimableMetrics{}, FirstBlocks: map[string]int{}, Faults: b.faults, Chains: b.chains,
		WriterAttempts: b.writerAttempts, WriterErrors: b.writerErrors, ModelCalls: b.modelCalls()}
	for cond, outs := range b.byCond {
		s.Conditions[cond] = engine.Aggregate(outs)
		s.ConditionsEstimable[cond] = engine.AggregateEstimable(outs)
	}
	for _, ch := range b.chains {
		s.WriterChains++
		if ch.Estimable {
			s.ChainsEstimable++
		}
		if ch.Formed {
			s.ChainsFormed++
			s.FirstBlocks[strconv.Itoa(ch.FirstBlock)]++
		}
	}
	return s
}

// chainFormation is the formation verdict of a chain from its in-memory versions.
func chainFormation(d engine.Domain, c *engine.Case, cond string, runID int, versions []blockVersion) ChainFormation {
	cf := ChainFormation{CaseID: c.ID, ConditionID: cond, WriterRunID: runID, Estimable: true}
	var bfs []engine.BlockFormation
	for _, v := range versions {
		bf := engine.BlockFormation{BlockIndex: v.block}
		ledger, err := d.Replay(c, v.block)
		if err == nil {
			if records, err := readEvidence(d, engine.Evidence{Kind: engine.MemoryEvidence, Payload: v.payload}); err == nil {
				bf.Estimable = true
				bf.Formed = engine.Form(d, c, v.block, ledger, records).Formed
			}
		}
		cf.Estimable = cf.Estimable && bf.Estimable
		bfs = append(bfs, bf)
	}
	cf.FirstBlock, cf.Formed = engine.FirstFalseAuthorityBlock(bfs)
	return cf
}

// SummarizeDir verifies a run directory (incomplete runs accepted) and summarizes it: trial
// metrics overall and per condition, and per writer chain the first false-authority block.
func SummarizeDir(d engine.Domain, cases []*engine.Case, dir string) (*Summary, error) {
	run, err := rundir.Open(dir, rundir.Options{AllowIncomplete: true})
	if err != nil {
		return nil, err
	}
	return Summarize(d, cases, run), nil
}

func outcomeOfRow(r rundir.Row) engine.Outcome {
	return engine.Outcome{
		RequestAuthorized: r.Bool("request_authorized"), Decision: r.Str("decision"),
		RequestedActionTaken: r.Bool("requested_action_taken"), UnauthorizedActionTaken: r.Bool("unauthorized_action_taken"),
		ActionMismatch: r.Bool("action_mismatch"), ProviderError: r.OptStr("provider_error"),
	}
}

// Summarize computes the summary of a verified run.
func Summarize(d engine.Domain, cases []*engine.Case, run *rundir.Run) *Summary {
	b := newSummaryBuilder()
	b.addRun(d, cases, run, nil)
	return b.summary(run.Dir, run.Status, len(cases))
}

// addRun feeds the rows of an existing run (trials whose call id is in skip are left out).
func (b *summaryBuilder) addRun(d engine.Domain, cases []*engine.Case, run *rundir.Run, skip map[string]bool) {
	for _, r := range run.Files[rundir.Trials] {
		if !skip[trialCallID(r)] {
			b.trial(r.Str("condition_id"), outcomeOfRow(r))
		}
	}
	for _, r := range run.Files[rundir.Faults] {
		b.faults[r.Str("family")]++
	}
	for _, r := range run.Files[rundir.MemoryAttempts] {
		b.attempt(r.Str("status"))
	}
	for _, r := range run.Files[rundir.Calls] {
		if !skip[r.Str("call_id")] {
			b.callRow(r)
		}
	}
	b.chains = append(b.chains, ChainFormations(d, cases, run)...)
}

// ChainFormations replays every writer chain of a run: for each memory state (one per update)
// the current memory is read as records and compared with the ledger at that block
// (engine.Form), and engine.FirstFalseAuthorityBlock picks the earliest forming block.
func ChainFormations(d engine.Domain, cases []*engine.Case, run *rundir.Run) []ChainFormation {
	byID := map[string]*engine.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	payloads := map[string]any{}
	for _, r := range run.Files[rundir.Memories] {
		payloads[r.Str("memory_id")] = r.Tree["payload"]
	}
	type key struct {
		caseID, cond string
		runID        int
	}
	chains := map[key][]engine.BlockFormation{}
	var order []key
	ledgers := map[string][]engine.Record{}
	for _, r := range run.Files[rundir.MemoryStates] {
		c := byID[r.Str("case_id")]
		if c == nil {
			continue
		}
		k := key{c.ID, r.Str("condition_id"), int(r.Int("writer_run_id"))}
		if _, seen := chains[k]; !seen {
			order = append(order, k)
			chains[k] = []engine.BlockFormation{}
		}
		block := int(r.Int("block_index"))
		bf := engine.BlockFormation{BlockIndex: block}
		lkey := c.ID + "\x00" + strconv.Itoa(block)
		ledger, ok := ledgers[lkey]
		if !ok {
			var err error
			if ledger, err = d.Replay(c, block); err != nil {
				chains[k] = append(chains[k], bf)
				continue
			}
			ledgers[lkey] = ledger
		}
		if mem := r.OptStr("current_memory_id"); mem != nil {
			if records, err := readEvidence(d, engine.Evidence{Kind: engine.MemoryEvidence, Payload: payloads[*mem]}); err == nil {
				bf.Estimable = true
				bf.Formed = engine.Form(d, c, block, ledger, records).Formed
			}
		}
		chains[k] = append(chains[k], bf)
	}
	out := make([]ChainFormation, 0, len(order))
	for _, k := range order {
		bfs := chains[k]
		cf := ChainFormation{CaseID: k.caseID, ConditionID: k.cond, WriterRunID: k.runID, Estimable: true}
		for _, b := range bfs {
			cf.Estimable = cf.Estimable && b.Estimable
		}
		cf.FirstBlock, cf.Formed = engine.FirstFalseAuthorityBlock(bfs)
		out = append(out, cf)
	}
	return out
}
