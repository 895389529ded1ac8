package runs

import (
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Streaming import: a verified run's rows are read back file by file (rundir.Run.Rows, which
// re-hashes each file and refuses one that changed since verification) and inserted as they
// are read, inside the run's transaction. What is kept across rows is small: each chain's key
// and summary columns, and the ids that attach a later file's rows to a chain (memory ->
// chain, evidence -> chain, attempt -> writer, trial -> oracle block). Derived facts are then
// computed one case at a time from the stored rows (deriveRun), so peak memory follows the
// largest case, not the run.

// chainMeta is what streaming keeps per chain: its row's key, and the columns summarizing all
// its rows, written once every file is read.
type chainMeta struct {
	key         chainKey
	pk          int64
	archs       map[string]bool
	ealChainIDs map[string]bool
	memories    int
}

// caseRunKey finds a chain by case, condition and writer run: faults name no writer.
type caseRunKey struct {
	caseID, condition string
	writerRun         int64
}

type runStreamer struct {
	w     *txWriter
	runPK int64
	run   *rundir.Run
	// chains by key; byCaseRun is the first chain created for a (case, condition, writer run).
	chains    map[chainKey]*chainMeta
	order     []*chainMeta
	byCaseRun map[caseRunKey]*chainMeta
	memories  map[string]*chainMeta
	evidence  map[string]*chainMeta
	// names interns the few distinct writer targets, so per-row maps share their strings.
	names map[string]string
}

func (st *runStreamer) intern(s string) string {
	if v, ok := st.names[s]; ok {
		return v
	}
	st.names[s] = s
	return s
}

// chain returns the chain of a key, inserting its row when it is new (summary columns are
// filled by finish).
func (st *runStreamer) chain(k chainKey) (*chainMeta, error) {
	if c, ok := st.chains[k]; ok {
		return c, nil
	}
	pk, err := st.w.insertID("chains", `INSERT INTO chains (run_pk, case_id, case_pk, condition_id, writer_target, writer_run_id, architecture, eal_chain_ids_json, memory_count, final_memory_id, ffa_cited_turns_json, unauthorized_actions, attributed_memory_induced, needs_annotation, trial_count, unscored_reason) VALUES (?,?,NULL,?,?,?,'none','[]',0,'','[]',0,0,0,0,'')`,
		st.runPK, k.caseID, k.condition, k.writer, k.writerRun)
	if err != nil {
		return nil, err
	}
	c := &chainMeta{key: k, pk: pk, archs: map[string]bool{}, ealChainIDs: map[string]bool{}}
	st.chains[k] = c
	st.order = append(st.order, c)
	ck := caseRunKey{k.caseID, k.condition, k.writerRun}
	if _, ok := st.byCaseRun[ck]; !ok {
		st.byCaseRun[ck] = c
	}
	return c, nil
}

func (st *runStreamer) rowChain(r rundir.Row, writer string, runKey string) (*chainMeta, error) {
	return st.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), st.intern(writer), r.Int(runKey)})
}

// streamedHook, set by tests only, runs when streamRun has stored every row, while what it
// keeps for the whole run (chain keys, the ids rows attach by) is still live.
var streamedHook func()

// streamRun stores every verified row of a run. Files are read in the order that attaches
// rows to chains (memories first, then what points at them), each one pass, except evidence
// and memory attempts, which a first pass reads for the one field that memories and states
// need from them.
func streamRun(w *txWriter, runPK int64, run *rundir.Run) error {
	st := &runStreamer{w: w, runPK: runPK, run: run, chains: map[chainKey]*chainMeta{}, byCaseRun: map[caseRunKey]*chainMeta{},
		memories: map[string]*chainMeta{}, evidence: map[string]*chainMeta{}, names: map[string]string{}}
	evRunByMemory, err := st.evidenceRuns()
	if err != nil {
		return err
	}
	if err := st.streamMemories(evRunByMemory); err != nil {
		return err
	}
	attemptWriter, err := st.attemptWriters()
	if err != nil {
		return err
	}
	if err := st.streamStates(attemptWriter); err != nil {
		return err
	}
	if err := st.streamAttempts(); err != nil {
		return err
	}
	if err := st.streamEvidence(); err != nil {
		return err
	}
	oracleBlocks, err := st.streamExecutorPlan()
	if err != nil {
		return err
	}
	if err := st.streamTrials(oracleBlocks); err != nil {
		return err
	}
	if err := st.streamFaults(); err != nil {
		return err
	}
	st.memories, st.evidence = nil, nil
	if err := insertUnchained(w, runPK, run, st.rows); err != nil {
		return err
	}
	// Derivation reads trials back right after: every chunk is stored first.
	if err := w.flushChunks(); err != nil {
		return err
	}
	if streamedHook != nil {
		streamedHook()
	}
	for _, c := range st.order {
		if _, err := w.exec("", `UPDATE chains SET architecture=?, eal_chain_ids_json=?, memory_count=? WHERE chain_pk=?`,
			ChainArchitecture(c.archs), jsonText(engine.SortedSet(c.ealChainIDs)), c.memories, c.pk); err != nil {
			return err
		}
	}
	return nil
}

// rows reads one file of the run row by row (nothing when the run has no such file).
func (st *runStreamer) rows(name string, fn func(rundir.Row) error) error {
	if !st.run.Has(name) {
		return nil
	}
	return st.run.ImportRows(name, fn)
}

// evidenceRuns is each memory's writer run as its first evidence row names it: baseline
// memories carry no writer run.
func (st *runStreamer) evidenceRuns() (map[string]int64, error) {
	evRunByMemory := map[string]int64{}
	err := st.rows(rundir.Evidence, func(r rundir.Row) error {
		if id := r.Str("memory_id"); id != "" {
			if _, seen := evRunByMemory[id]; !seen {
				evRunByMemory[id] = r.Int("memory_run_id")
			}
		}
		return nil
	})
	return evRunByMemory, err
}

// streamMemories stores memories.jsonl, creating the chains they belong to.
func (st *runStreamer) streamMemories(evRunByMemory map[string]int64) error {
	return st.rows(rundir.Memories, func(r rundir.Row) error {
		id := r.Str("memory_id")
		if _, dup := st.memories[id]; dup {
			return nil // an identical repeat (rundir refuses different ones)
		}
		runID := int64(0)
		if p := r.OptInt("writer_run_id"); p != nil {
			runID = *p
		} else if v, ok := evRunByMemory[id]; ok {
			runID = v
		}
		c, err := st.chain(chainKey{r.Str("case_id"), r.Str("condition_id"), st.intern(writerTarget(r.Tree["writer"])), runID})
		if err != nil {
			return err
		}
		st.memories[id] = c
		arch, ealChain := r.Str("architecture"), r.Str("chain_id")
		c.memories++
		c.archs[st.intern(arch)] = true
		if ealChain != "" {
			c.ealChainIDs[ealChain] = true
		}
		return insertMemory(st.w, st.runPK, c.pk, r)
	})
}

// attemptWriters is each attempt's writer: states name attempts, not writers.
func (st *runStreamer) attemptWriters() (map[string]string, error) {
	attemptWriter := map[string]string{}
	err := st.rows(rundir.MemoryAttempts, func(r rundir.Row) error {
		attemptWriter[r.Str("attempt_id")] = st.intern(writerTarget(r.Tree["writer"]))
		return nil
	})
	return attemptWriter, err
}

// streamStates stores memory_states.jsonl: a state joins its current memory's chain; the
// writer of a state without a current memory is its first attempt's.
func (st *runStreamer) streamStates(attemptWriter map[string]string) error {
	return distinctRows(st.rows, rundir.MemoryStates, "state_id", func(id string, r rundir.Row) error {
		var c *chainMeta
		if cur := r.OptStr("current_memory_id"); cur != nil && st.memories[*cur] != nil {
			c = st.memories[*cur]
		} else {
			writer := ""
			if ids, _ := r.Tree["attempt_ids"].([]any); len(ids) > 0 {
				s, _ := ids[0].(string)
				writer = attemptWriter[s]
			}
			var err error
			if c, err = st.rowChain(r, writer, "writer_run_id"); err != nil {
				return err
			}
		}
		if a := r.Str("architecture"); a != "" {
			c.archs[st.intern(a)] = true
		}
		_, err := st.w.insertRaw("states", `INSERT INTO states (run_pk, state_id, chain_pk, block_index, status, current_memory_id, changed, line, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,?,`+rawPlaceholders+`)`, st.runPK, rundir.MemoryStates, r,
			st.runPK, id, c.pk, r.Int("block_index"), r.Str("status"), nullStr(r.OptStr("current_memory_id")), b2i(r.Bool("changed")), r.Line)
		return err
	})
}

// streamAttempts stores memory_attempts.jsonl: an attempt joins the chain of the memory it
// accepted, retained or started from, else its own fields' chain.
func (st *runStreamer) streamAttempts() error {
	return distinctRows(st.rows, rundir.MemoryAttempts, "attempt_id", func(id string, r rundir.Row) error {
		var c *chainMeta
		for _, key := range []string{"accepted_memory_id", "retained_memory_id", "parent_memory_id"} {
			if mid := r.OptStr(key); mid != nil && st.memories[*mid] != nil {
				c = st.memories[*mid]
				break
			}
		}
		if c == nil {
			var err error
			if c, err = st.rowChain(r, writerTarget(r.Tree["writer"]), "writer_run_id"); err != nil {
				return err
			}
		}
		_, err := st.w.insertRaw("attempts", `INSERT INTO attempts (run_pk, attempt_id, chain_pk, block_index, attempt_index, status, detail, accepted_memory_id, retained_memory_id, line, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,`+rawPlaceholders+`)`, st.runPK, rundir.MemoryAttempts, r,
			st.runPK, id, c.pk, r.Int("block_index"), r.Int("attempt_index"), r.Str("status"), nullStr(r.OptStr("detail")), nullStr(r.OptStr("accepted_memory_id")), nullStr(r.OptStr("retained_memory_id")), r.Line)
		return err
	})
}

// streamEvidence stores evidence.jsonl: a row joins its memory's chain, else its own fields'.
func (st *runStreamer) streamEvidence() error {
	return st.rows(rundir.Evidence, func(r rundir.Row) error {
		id := r.Str("evidence_id")
		if st.evidence[id] != nil {
			return nil
		}
		var c *chainMeta
		if mid := r.OptStr("memory_id"); mid != nil && st.memories[*mid] != nil {
			c = st.memories[*mid]
		} else {
			var err error
			if c, err = st.rowChain(r, writerTarget(r.Tree["writer"]), "memory_run_id"); err != nil {
				return err
			}
		}
		if a := r.OptStr("architecture"); a != nil {
			c.archs[st.intern(*a)] = true
		}
		st.evidence[id] = c
		_, err := st.w.insertRaw("evidence", `INSERT INTO evidence (run_pk, evidence_id, chain_pk, memory_id, architecture, content_hash, line, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,`+rawPlaceholders+`)`, st.runPK, rundir.Evidence, r,
			st.runPK, id, c.pk, nullStr(r.OptStr("memory_id")), nullStr(r.OptStr("architecture")), r.Str("content_hash"), r.Line)
		return err
	})
}

// streamExecutorPlan stores executor_plan.jsonl and returns each planned trial's oracle block.
func (st *runStreamer) streamExecutorPlan() (map[string]int, error) {
	oracleBlocks := map[string]int{}
	err := st.rows(rundir.ExecutorPlan, func(r rundir.Row) error {
		var ob *int
		if p := r.OptInt("oracle_block_index"); p != nil {
			v := int(*p)
			ob = &v
			oracleBlocks[r.Str("trial_id")] = v
		}
		_, err := st.w.insertRaw("executor_plan", `INSERT INTO executor_plan (run_pk, trial_id, call_id, oracle_block_index, line, `+rawColumns+`) VALUES (?,?,?,?,?,`+rawPlaceholders+`)`, st.runPK, rundir.ExecutorPlan, r,
			st.runPK, r.Str("trial_id"), r.Str("call_id"), nullInt(ob), r.Line)
		return err
	})
	return oracleBlocks, err
}

// streamTrials stores trials.jsonl: a trial joins its evidence's chain, else its memory's,
// else its own fields'.
func (st *runStreamer) streamTrials(oracleBlocks map[string]int) error {
	return st.rows(rundir.Trials, func(r rundir.Row) error {
		var c *chainMeta
		if ev := st.evidence[r.Str("evidence_id")]; ev != nil {
			c = ev
		} else if mid := r.OptStr("memory_id"); mid != nil && st.memories[*mid] != nil {
			c = st.memories[*mid]
		} else {
			var err error
			if c, err = st.rowChain(r, writerTarget(r.Tree["writer"]), "writer_run_id"); err != nil {
				return err
			}
		}
		return insertTrial(st.w, st.runPK, c.pk, r, oracleBlocks)
	})
}

// streamFaults stores faults.jsonl. A fault joins its memory's chain when it names one, else
// the first chain of its case, condition and writer run.
func (st *runStreamer) streamFaults() error {
	return st.rows(rundir.Faults, func(r rundir.Row) error {
		writer := ""
		if c := st.memories[r.Str("memory_id")]; c != nil {
			writer = c.key.writer
		} else if c := st.byCaseRun[caseRunKey{r.Str("case_id"), r.Str("condition_id"), r.Int("writer_run_id")}]; c != nil {
			writer = c.key.writer
		}
		if _, err := st.rowChain(r, writer, "writer_run_id"); err != nil {
			return err
		}
		_, err := st.w.insertRaw("faults", `INSERT INTO faults (run_pk, line, family, case_id, condition_id, writer_run_id, block_index, authorization_id, field, memory_id, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,`+rawPlaceholders+`)`, st.runPK, rundir.Faults, r,
			st.runPK, r.Line, r.Str("family"), r.Str("case_id"), r.Str("condition_id"), r.Int("writer_run_id"), r.Int("block_index"), r.Str("authorization_id"), r.Str("field"), r.Str("memory_id"))
		return err
	})
}

// insertMemory stores one memories.jsonl row (and indexes free-text payloads for search).
func insertMemory(w *txWriter, runPK, chainPK int64, r rundir.Row) error {
	payload := r.Tree["payload"]
	payloadJSON, err := pyjson.CanonicalJSON(payload)
	if err != nil {
		return err
	}
	// payload_text is the text shown and searched: a free-text memory's string. Other
	// payloads would repeat payload_json there, so it is left empty and read as payload_json
	// (memoryText).
	text := ""
	if s, ok := payload.(string); ok {
		text = s
	} else if r.Str("architecture") == engine.ArchFreeText {
		text = payloadJSON
	}
	arch := r.Str("architecture")
	raw, err := w.raw(runPK, rundir.Memories, r)
	if err != nil {
		return err
	}
	memPK, err := w.insertID("memories", `INSERT INTO memories (run_pk, memory_id, chain_pk, eal_chain_id, parent_memory_id, block_index, architecture, origin, content_hash, payload_json, payload_text, line, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,`+rawPlaceholders+`)`,
		append([]any{runPK, r.Str("memory_id"), chainPK, r.Str("chain_id"), nullStr(r.OptStr("parent_memory_id")), r.Int("block_index"), arch, r.Str("origin"), r.Str("content_hash"), payloadJSON, text, r.Line}, raw...)...)
	if err != nil {
		return err
	}
	if arch == engine.ArchFreeText {
		if _, err := w.exec("memories_fts", `INSERT INTO memories_fts (rowid, payload_text) VALUES (?,?)`, memPK, text); err != nil {
			return err
		}
	}
	return nil
}

// insertTrial stores one trials.jsonl row as read; its re-score is derived later (rescore),
// once its case is at hand, and until then it says the corpus is missing.
func insertTrial(w *txWriter, runPK, chainPK int64, r rundir.Row, oracleBlocks map[string]int) error {
	md, _ := r.Tree["metadata"].(map[string]any)
	core, _ := md["core"].(map[string]any)
	study, _ := md["study"].(map[string]any)
	trialID, _ := core["trial_id"].(string)
	if trialID == "" {
		trialID = "line:" + itoa(r.Line)
	}
	var oracle *int
	if v, ok := oracleBlocks[trialID]; ok {
		oracle = &v
	} else {
		for _, ns := range []map[string]any{study, core} {
			if v, err := engine.Int("", ns["oracle_block_index"]); err == nil {
				b := int(v)
				oracle = &b
				break
			}
		}
	}
	_, err := w.insertRaw("trials", `INSERT INTO trials (run_pk, chain_pk, line, trial_id, case_id, probe_id, condition_id, evidence_id, memory_id, executor_target, executor_run_id, oracle_block_index, decision, request_authorized, requested_action_taken, unauthorized_action_taken, action_mismatch, compliant, parseable, provider_error, raw_tool_name, raw_tool_arguments_json, rescored_decision, rescore_status, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL,?,`+rawPlaceholders+`)`, runPK, rundir.Trials, r,
		runPK, chainPK, r.Line, trialID, r.Str("case_id"), r.Str("probe_id"), r.Str("condition_id"), nullStr(r.OptStr("evidence_id")), nullStr(r.OptStr("memory_id")),
		writerTarget(r.Tree["executor"]), r.Int("executor_run_id"), nullInt(oracle),
		r.Str("decision"), b2i(r.Bool("request_authorized")), b2i(r.Bool("requested_action_taken")), b2i(r.Bool("unauthorized_action_taken")), b2i(r.Bool("action_mismatch")),
		b2i(r.Bool("compliant")), b2i(r.Bool("parseable")), nullStr(r.OptStr("provider_error")), nullStr(r.OptStr("raw_tool_name")), jsonText(r.Tree["raw_tool_arguments"]),
		RescoreMissingCase)
	return err
}

// distinctRows calls fn with the first row of each idField value of the named file, read
// through rows: a repeated id is an identical repeat (rundir refuses different ones), stored
// once.
func distinctRows(rows func(string, func(rundir.Row) error) error, name, idField string, fn func(id string, r rundir.Row) error) error {
	seen := map[string]bool{}
	return rows(name, func(r rundir.Row) error {
		id := r.Str(idField)
		if seen[id] {
			return nil
		}
		seen[id] = true
		return fn(id, r)
	})
}

// insertUnchained stores the artifacts not tied to a chain: model contexts, calls and,
// verbatim, every other listed artifact.
func insertUnchained(w *txWriter, runPK int64, run *rundir.Run, rows func(string, func(rundir.Row) error) error) error {
	handled := map[string]bool{rundir.Memories: true, rundir.MemoryAttempts: true, rundir.MemoryStates: true, rundir.Evidence: true,
		rundir.Trials: true, rundir.ExecutorPlan: true, rundir.Faults: true, rundir.ModelContexts: true}
	if err := distinctRows(rows, rundir.ModelContexts, "context_id", func(id string, r rundir.Row) error {
		_, err := w.insertRaw("model_contexts", `INSERT INTO model_contexts (run_pk, context_id, call_id, stage, trial_id, memory_attempt_id, line, `+rawColumns+`) VALUES (?,?,?,?,?,?,?,`+rawPlaceholders+`)`, runPK, rundir.ModelContexts, r,
			runPK, id, r.Str("call_id"), r.Str("stage"), nullStr(r.OptStr("trial_id")), nullStr(r.OptStr("memory_attempt_id")), r.Line)
		return err
	}); err != nil {
		return err
	}
	for _, name := range []string{rundir.Calls, "writer_calls"} {
		if err := rows(name, func(r rundir.Row) error {
			_, err := w.insertRaw("calls", `INSERT INTO calls (run_pk, artifact, line, call_id, task, error, `+rawColumns+`) VALUES (?,?,?,?,?,?,`+rawPlaceholders+`)`, runPK, name, r,
				runPK, name, r.Line, r.Str("call_id"), nullStr(r.OptStr("task")), nullStr(r.OptStr("error")))
			if err != nil {
				return err
			}
			prompt, completion, counted := usageTokens(r.Tree["usage"])
			_, err = w.exec("", `INSERT OR IGNORE INTO call_tokens (run_pk, call_id, task, target_id, failed, prompt_tokens, completion_tokens, counted) VALUES (?,?,?,?,?,?,?,?)`,
				runPK, r.Str("call_id"), nullStr(r.OptStr("task")), nullStr(r.OptStr("target_id")), b2i(r.OptStr("error") != nil), prompt, completion, counted)
			return err
		}); err != nil {
			return err
		}
		handled[name] = true
	}
	for _, name := range run.Artifacts() {
		if handled[name] {
			continue
		}
		if err := rows(name, func(r rundir.Row) error {
			_, err := w.insertRaw("extra_rows", `INSERT INTO extra_rows (run_pk, artifact, line, `+rawColumns+`) VALUES (?,?,?,`+rawPlaceholders+`)`, runPK, name, r, runPK, name, r.Line)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// ChainArchitecture names a chain's memory architecture from the set its rows name: one, the
// sorted ones joined by "+", or "none" (every backend names chains alike).
func ChainArchitecture(set map[string]bool) string {
	archs := engine.SortedSet(set)
	switch len(archs) {
	case 0:
		return "none"
	case 1:
		return archs[0]
	}
	return strings.Join(archs, "+")
}
