package runs

// Live re-runs: what a re-run needs from the workspace (the chain's case, its
// memory at a block, the imported trials and contexts it mirrors) and the replays table it
// writes, one transaction per finished call, with end-to-end attribution rows recomputed in
// the same transaction. This file knows nothing of how calls are made (replay/ does that);
// it takes plain values so that runs and replay stay independent of each other.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/replayrow"
)

// FindChain resolves a chain by run, case, condition and writer run. runID may be "" when
// exactly one run of the workspace holds such a chain; writerRun nil accepts any writer run
// when exactly one matches. Errors say what was ambiguous or missing.
func (s *Store) FindChain(ctx context.Context, runID, caseID, condition string, writerRun *int64) (ChainRow, error) {
	// Only the runs' ids: a run's summary (Run, Runs) counts its trials and attempts, which a
	// lookup by names does not need.
	var runIDs []string
	var err error
	if runID != "" {
		pk, perr := s.runPK(ctx, runID)
		if perr != nil {
			return ChainRow{}, perr
		}
		runIDs, err = queryAll(ctx, s.db, scanOne[string], `SELECT run_id FROM runs WHERE run_pk = ?`, pk)
	} else {
		runIDs, err = queryAll(ctx, s.db, scanOne[string], `SELECT run_id FROM runs ORDER BY run_id`)
	}
	if err != nil {
		return ChainRow{}, err
	}
	var hits []ChainRow
	for _, id := range runIDs {
		rows, err := s.Chains(ctx, ChainFilter{RunID: id, CaseID: caseID, Condition: condition})
		if err != nil {
			return ChainRow{}, err
		}
		for _, c := range rows {
			if writerRun == nil || c.WriterRunID == *writerRun {
				hits = append(hits, c)
			}
		}
	}
	what := fmt.Sprintf("case %s, condition %s", caseID, condition)
	if writerRun != nil {
		what += fmt.Sprintf(", writer run %d", *writerRun)
	}
	switch len(hits) {
	case 0:
		return ChainRow{}, fmt.Errorf("no chain for %s: %w", what, ErrNotFound)
	case 1:
		return hits[0], nil
	}
	var names []string
	for _, c := range hits {
		names = append(names, fmt.Sprintf("run %s writer %s run %d", c.RunID, c.Writer, c.WriterRunID))
	}
	return ChainRow{}, fmt.Errorf("%d chains match %s (%s): give --run and --writer-run", len(hits), what, strings.Join(names, "; "))
}

// MirrorTrial is an imported executor trial on a chain's memory.
type MirrorTrial struct {
	TrialID        string
	EvidenceID     string
	ExecutorTarget string
	ExecutorRunID  int
	// ContextHash is the executor model context's content_hash ("" when not imported).
	ContextHash string
}

// RerunProbeSource is one probe of the chain's case at the block.
type RerunProbeSource struct {
	Probe engine.Probe
	// RequestAuthorized: the oracle's verdict against the ledger through the block.
	RequestAuthorized bool
	// Formed / FormationEstimable: the written memory at the block forms false authority for
	// this probe (from the formation facts computed at import, which cover annotations).
	Formed             bool
	FormationEstimable bool
	// Mirrors are the imported trials on the written memory at the block with this probe,
	// scored against the same block.
	Mirrors []MirrorTrial
	// ContextUserMessage is the user message of an imported executor context for this case
	// and probe (any memory of the run): it carries EAL-Bench's operational context, if any.
	ContextUserMessage string
}

// RerunSource is everything a re-run of one chain at one block reads from the workspace.
type RerunSource struct {
	Chain  ChainHeader
	Domain engine.Domain
	Case   *engine.Case
	Block  int
	// Architecture is the chain's memory architecture (typed or free_text).
	Architecture string
	// MemoryID and Payload are the chain's written memory at the block ("" / nil before the
	// chain's first memory). Payload is a string for free text, a tree for typed memory.
	MemoryID    string
	Payload     any
	ContentHash string
	Probes      []RerunProbeSource
}

// RerunSource loads a chain's case and memory at a block (block < 0: the final block, where
// the imported trials are).
func (s *Store) RerunSource(ctx context.Context, key ChainKey, block int) (RerunSource, error) {
	h, err := s.Chain(ctx, key)
	if err != nil {
		return RerunSource{}, err
	}
	src := RerunSource{Chain: h, Architecture: h.Architecture}
	d, c, err := s.storedCase(ctx, h)
	if err != nil {
		return src, err
	}
	if block < 0 {
		block = c.LastBlock()
	}
	if block > c.LastBlock() {
		return src, fmt.Errorf("--block %d is outside case %s (blocks 0..%d)", block, c.ID, c.LastBlock())
	}
	src.Domain, src.Case, src.Block = d, c, block
	var runPK int64
	var memID sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT c.run_pk, cb.memory_id FROM chains c LEFT JOIN chain_blocks cb ON cb.chain_pk = c.chain_pk AND cb.block_index = ? WHERE c.chain_pk = ?`,
		block, key).Scan(&runPK, &memID); err != nil {
		return src, err
	}
	var unscored sql.NullString
	if memID.Valid {
		src.MemoryID = memID.String
		var payload, arch string
		if err := s.db.QueryRowContext(ctx, `SELECT payload_json, architecture, content_hash FROM memories WHERE run_pk = ? AND memory_id = ?`, runPK, memID.String).
			Scan(&payload, &arch, &src.ContentHash); err != nil {
			return src, fmt.Errorf("memory %s: %w", memID.String, err)
		}
		if src.Payload, err = pyjson.DecodeTree([]byte(payload)); err != nil {
			return src, fmt.Errorf("memory %s: stored payload: %w", memID.String, err)
		}
		src.Architecture = arch
		_ = s.db.QueryRowContext(ctx, `SELECT unscored_reason FROM memory_scores WHERE run_pk = ? AND memory_id = ? AND block_index = ?`, runPK, memID.String, block).Scan(&unscored)
	}
	index := map[string]int{}
	for _, p := range c.Probes {
		v, err := engine.Oracle(d, c, block, p.Request)
		if err != nil {
			return src, err
		}
		ps := RerunProbeSource{Probe: p, RequestAuthorized: v.Authorized, FormationEstimable: memID.Valid && !unscored.Valid, Mirrors: []MirrorTrial{}}
		index[p.ID] = len(src.Probes)
		src.Probes = append(src.Probes, ps)
	}
	if memID.Valid {
		err := eachRow(ctx, s.db, func(r rowScanner) error {
			var probe string
			var formed int
			if err := r.Scan(&probe, &formed); err != nil {
				return err
			}
			if i, ok := index[probe]; ok {
				src.Probes[i].Formed = formed != 0
			}
			return nil
		}, `SELECT probe_id, formed FROM formation WHERE run_pk = ? AND memory_id = ? AND block_index = ?`, runPK, memID.String, block)
		if err != nil {
			return src, err
		}
		mirrors, err := s.mirrorTrials(ctx, runPK, key, memID.String, block, block == c.LastBlock())
		if err != nil {
			return src, err
		}
		for probe, ms := range mirrors {
			if i, ok := index[probe]; ok {
				src.Probes[i].Mirrors = ms
			}
		}
	}
	// Any executor context of this case and probe carries the operational context EAL-Bench
	// prepared (it depends on the case and probe, not on the memory).
	// INDEXED BY: left to itself the planner searches model_contexts by its primary key's
	// run_pk prefix alone, a scan of the run's contexts per trial (quadratic on large runs).
	err = s.setContextUserMessages(ctx, index, src.Probes, `SELECT t.probe_id, mc.line, `+rawSelect("mc")+` FROM trials t JOIN model_contexts mc INDEXED BY model_contexts_by_trial ON mc.run_pk = t.run_pk AND mc.trial_id = t.trial_id
		WHERE t.run_pk = ? AND t.case_id = ? AND mc.stage = 'executor' ORDER BY t.line`, runPK, h.CaseID)
	return src, err
}

// mirrorTrials lists the imported trials on a memory scored against a block, by probe, with
// their model contexts' content hashes (trials_by_chain, model_contexts_by_trial).
func (s *Store) mirrorTrials(ctx context.Context, runPK int64, key ChainKey, memoryID string, block int, finalBlock bool) (map[string][]MirrorTrial, error) {
	out := map[string][]MirrorTrial{}
	type found struct {
		probe   string
		i       int
		context sql.NullString
	}
	var contexts []found
	err := eachRow(ctx, s.db, func(r rowScanner) error {
		var probe string
		var m MirrorTrial
		var contextID sql.NullString
		if err := r.Scan(&probe, &m.TrialID, &m.EvidenceID, &m.ExecutorTarget, &m.ExecutorRunID, &contextID); err != nil {
			return err
		}
		contexts = append(contexts, found{probe, len(out[probe]), contextID})
		out[probe] = append(out[probe], m)
		return nil
	}, `SELECT t.probe_id, t.trial_id, COALESCE(t.evidence_id, ''), t.executor_target, t.executor_run_id,
		(SELECT mc.context_id FROM model_contexts mc WHERE mc.run_pk = t.run_pk AND mc.trial_id = t.trial_id AND mc.stage = 'executor' LIMIT 1)
		FROM trials t WHERE t.chain_pk = ? AND t.memory_id = ? AND (t.oracle_block_index = ? OR (t.oracle_block_index IS NULL AND ?))
		ORDER BY t.probe_id, t.executor_target, t.executor_run_id, t.line`, key, memoryID, block, finalBlock)
	if err != nil {
		return nil, err
	}
	// Each trial's executor context, read once the query is done (a compressed row reads its
	// chunk), for its content hash.
	rr := newRowReader(s.db)
	for _, f := range contexts {
		if !f.context.Valid {
			continue
		}
		var cols rawCols
		var line int
		if err := s.db.QueryRowContext(ctx, `SELECT line, `+rawSelect("model_contexts")+` FROM model_contexts WHERE run_pk = ? AND context_id = ?`, runPK, f.context.String).
			Scan(append([]any{&line}, cols.dest()...)...); err != nil {
			return nil, err
		}
		row, parsed, err := decodeStored[struct {
			ContentHash string `json:"content_hash"`
		}](ctx, rr, &cols, "model_contexts", line)
		if err != nil {
			return nil, err
		}
		if parsed {
			out[f.probe][f.i].ContextHash = row.ContentHash
		}
	}
	return out, nil
}

// ReplayInput is one finished re-run arm to store: the arm as replay made it (the shared
// row type of runs/replayrow), placed on its chain.
type ReplayInput struct {
	Chain ChainKey
	// WrittenMemoryID is the chain's memory at the block ("" before its first memory).
	WrittenMemoryID string
	// Arm is the arm: its Memory.Variant is written / exact / edited / file (gated in the
	// lab); its Record's Gate is not stored here (the lab's pairs store it).
	replayrow.Arm
	// MirroredTrialID / MirroredContextHash: the imported trial this arm repeats ("" none).
	MirroredTrialID     string
	MirroredContextHash string
}

// responseJSON is the stored raw reply: engine.Response's fields under stable names.
func responseJSON(r engine.Response) string {
	calls := make([]any, 0, len(r.ToolCalls))
	for _, tc := range r.ToolCalls {
		calls = append(calls, map[string]any{"id": tc.ID, "name": tc.Name, "arguments": tc.Arguments})
	}
	var pe *string
	if r.ProviderError != "" {
		pe = &r.ProviderError
	}
	out := map[string]any{"provider_error": pe, "text": r.Text, "tool_calls": calls, "finish_reason": r.FinishReason, "model": r.Model}
	if len(r.Redactions) > 0 {
		// What ealscope removed from the reply before storing it (docs/RELIABILITY.md).
		out["redactions"] = r.Redactions
	}
	return jsonText(out)
}

func optText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// SaveReplay stores one finished arm in its own transaction and recomputes the attribution
// rows of its (chain, block, probe, executor) group in the same transaction, so the two
// never disagree.
func (s *Store) SaveReplay(ctx context.Context, in ReplayInput) error {
	_, err := s.inTx(ctx, func(w *txWriter) error {
		pk, err := s.insertReplay(w, in, nil)
		if err != nil {
			return err
		}
		return s.attributeArm(w, in.Chain, in.BlockIndex, in.ProbeID, in.Executor.TargetID, in.WrittenMemoryID, pk, in.Memory.Variant, in.Repetition)
	})
	return err
}

// labArm marks a replay made by the safeguard lab: a gated arm names its policy, the
// un-gated arm has an empty policy id (migration 0120).
type labArm struct{ policyID, policyVersion string }

// insertReplay inserts one arm in the caller's transaction (lab nil: not the lab's).
func (s *Store) insertReplay(w *txWriter, in ReplayInput, lab *labArm) (int64, error) {
	var policyID, policyVersion any
	if lab != nil {
		policyID, policyVersion = lab.policyID, lab.policyVersion
	}
	if in.ReplayID == "" || in.ProbeID == "" || in.Memory.Variant == "" {
		return 0, errors.New("replay: replay_id, probe_id and memory_variant are required")
	}
	payloadJSON, err := pyjson.CanonicalJSON(in.Memory.Payload)
	if err != nil {
		return 0, fmt.Errorf("replay %s: memory payload: %w", in.ReplayID, err)
	}
	payloadText := payloadJSON
	if t, ok := in.Memory.Payload.(string); ok {
		payloadText = t
	}
	msgs := make([]any, len(in.Messages))
	for i, m := range in.Messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	o := in.Outcome
	var runPK int64
	var caseID, cond, writer string
	var writerRun int64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT run_pk, case_id, condition_id, writer_target, writer_run_id FROM chains WHERE chain_pk = ?`, in.Chain).
		Scan(&runPK, &caseID, &cond, &writer, &writerRun); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("chain %d: %w", in.Chain, ErrNotFound)
		}
		return 0, err
	}
	prompt, completion, counted := usageTokens(in.Usage)
	pk, err := w.insertID("replays", `INSERT INTO replays (replay_id, batch_id, chain_pk, run_pk, case_id, condition_id, writer_target, writer_run_id, block_index, probe_id,
		memory_variant, memory_architecture, memory_source, written_memory_id, memory_payload_json, memory_payload_text, memory_content_hash, memory_formed, formation_estimable,
		executor_target, executor_json, repetition, seed, messages_json, tools_json, request_hash, response_json, usage_json, attempts, latency_ms,
		decision, request_authorized, requested_action_taken, unauthorized_action_taken, action_mismatch, compliant, parseable, provider_error, finish_reason, response_text,
		tool_call_count, terminal_call_count, raw_tool_name, raw_tool_arguments_json, oracle_reason, detail, mirrored_trial_id, mirrored_context_hash, created_at, policy_id, policy_version,
		prompt_tokens, completion_tokens, tokens_counted)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		in.ReplayID, in.BatchID, in.Chain, runPK, caseID, cond, writer, writerRun, in.BlockIndex, in.ProbeID,
		in.Memory.Variant, in.Memory.Architecture, in.Memory.Source, optText(in.WrittenMemoryID), payloadJSON, payloadText, in.Memory.ContentHash, b2i(in.MemoryFormed), b2i(in.FormationEstimable),
		in.Executor.TargetID, jsonText(in.Executor), in.Repetition, in.Seed, jsonText(msgs), jsonText(in.Tools), in.RequestHash, responseJSON(in.Response), jsonText(in.Usage), in.Attempts, in.LatencyMS,
		o.Decision, b2i(o.RequestAuthorized), b2i(o.RequestedActionTaken), b2i(o.UnauthorizedActionTaken), b2i(o.ActionMismatch), b2i(o.Compliant), b2i(o.Parseable),
		nullStr(o.ProviderError), nullStr(o.FinishReason), o.ResponseText, o.ToolCallCount, o.TerminalCallCount, nullStr(o.RawToolName), jsonText(o.RawToolArguments),
		o.OracleReason, o.Detail, optText(in.MirroredTrialID), optText(in.MirroredContextHash), in.CreatedAt.UTC().Format(time.RFC3339Nano), policyID, policyVersion,
		prompt, completion, counted)
	if err != nil {
		return 0, fmt.Errorf("replay %s: %w", in.ReplayID, err)
	}
	return pk, nil
}

// Replay is one stored re-run arm. Field names follow EAL-Bench's trial rows.
type Replay struct {
	ReplayID           string          `json:"replay_id"`
	BatchID            string          `json:"batch_id"`
	ChainKey           ChainKey        `json:"chain_key"`
	CaseID             string          `json:"case_id"`
	ConditionID        string          `json:"condition_id"`
	WriterTarget       string          `json:"writer_target"`
	WriterRunID        int64           `json:"writer_run_id"`
	BlockIndex         int             `json:"block_index"`
	ProbeID            string          `json:"probe_id"`
	MemoryVariant      string          `json:"memory_variant"`
	MemoryArchitecture string          `json:"memory_architecture"`
	MemorySource       string          `json:"memory_source"`
	WrittenMemoryID    string          `json:"written_memory_id"`
	MemoryPayload      string          `json:"memory_payload"`
	MemoryContentHash  string          `json:"memory_content_hash"`
	MemoryFormed       bool            `json:"memory_formed"`
	FormationEstimable bool            `json:"formation_estimable"`
	Executor           string          `json:"executor"`
	ExecutorProvenance json.RawMessage `json:"executor_provenance"`
	Repetition         int             `json:"repetition"`
	Seed               int64           `json:"seed"`
	Messages           json.RawMessage `json:"messages"`
	Tools              json.RawMessage `json:"tools"`
	RequestHash        string          `json:"request_hash"`
	Response           json.RawMessage `json:"response"`
	Usage              json.RawMessage `json:"usage"`
	Attempts           int             `json:"attempts"`
	LatencyMS          int64           `json:"latency_ms"`
	// Outcome is the scored decision, declared once in engine.
	engine.Outcome
	MirroredTrialID     *string `json:"mirrored_trial_id"`
	MirroredContextHash *string `json:"mirrored_context_hash"`
	CreatedAt           string  `json:"created_at"`
}

const replayColumns = `replay_id, batch_id, chain_pk, case_id, condition_id, writer_target, writer_run_id, block_index, probe_id, memory_variant, memory_architecture, memory_source,
	COALESCE(written_memory_id, ''), memory_payload_text, memory_content_hash, memory_formed, formation_estimable, executor_target, executor_json, repetition, seed,
	messages_json, tools_json, request_hash, response_json, usage_json, attempts, latency_ms, decision, request_authorized, requested_action_taken, unauthorized_action_taken,
	action_mismatch, compliant, parseable, provider_error, finish_reason, response_text, tool_call_count, terminal_call_count, raw_tool_name, raw_tool_arguments_json,
	oracle_reason, detail, mirrored_trial_id, mirrored_context_hash, created_at`

func scanReplay(sc rowScanner) (Replay, error) {
	var r Replay
	var formed, estimable int
	var prov, msgs, tools, resp, usage, args string
	var pe, finish, tool, mirror, mirrorHash sql.NullString
	if err := sc.Scan(&r.ReplayID, &r.BatchID, &r.ChainKey, &r.CaseID, &r.ConditionID, &r.WriterTarget, &r.WriterRunID, &r.BlockIndex, &r.ProbeID, &r.MemoryVariant,
		&r.MemoryArchitecture, &r.MemorySource, &r.WrittenMemoryID, &r.MemoryPayload, &r.MemoryContentHash, &formed, &estimable, &r.Executor, &prov, &r.Repetition, &r.Seed,
		&msgs, &tools, &r.RequestHash, &resp, &usage, &r.Attempts, &r.LatencyMS, &r.Decision, &r.RequestAuthorized, &r.RequestedActionTaken, &r.UnauthorizedActionTaken, &r.ActionMismatch, &r.Compliant, &r.Parseable,
		&pe, &finish, &r.ResponseText, &r.ToolCallCount, &r.TerminalCallCount, &tool, &args, &r.OracleReason, &r.Detail, &mirror, &mirrorHash, &r.CreatedAt); err != nil {
		return r, err
	}
	if tree, err := pyjson.DecodeTree([]byte(args)); err == nil {
		r.RawToolArguments = tree
	}
	r.MemoryFormed, r.FormationEstimable = formed != 0, estimable != 0
	r.ExecutorProvenance, r.Messages, r.Tools = json.RawMessage(prov), json.RawMessage(msgs), json.RawMessage(tools)
	r.Response, r.Usage = json.RawMessage(resp), json.RawMessage(usage)
	r.ProviderError, r.FinishReason, r.RawToolName = strPtr(pe), strPtr(finish), strPtr(tool)
	r.MirroredTrialID, r.MirroredContextHash = strPtr(mirror), strPtr(mirrorHash)
	return r, nil
}

func strPtr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

// ReplaysForChain lists a chain's re-run arms, oldest first (replays_arms).
func (s *Store) ReplaysForChain(ctx context.Context, key ChainKey) ([]Replay, error) {
	return s.queryReplays(ctx, `SELECT `+replayColumns+` FROM replays WHERE chain_pk = ? ORDER BY replay_pk`, key)
}

// ReplaysByID returns the given replays, in the order asked (replays.replay_id unique key).
func (s *Store) ReplaysByID(ctx context.Context, ids []string) ([]Replay, error) {
	out := make([]Replay, 0, len(ids))
	for _, id := range ids {
		r, err := s.queryReplays(ctx, `SELECT `+replayColumns+` FROM replays WHERE replay_id = ?`, id)
		if err != nil {
			return nil, err
		}
		if len(r) == 0 {
			return nil, fmt.Errorf("replay %s: %w", id, ErrNotFound)
		}
		out = append(out, r[0])
	}
	return out, nil
}

func (s *Store) queryReplays(ctx context.Context, q string, args ...any) ([]Replay, error) {
	return queryAll(ctx, s.db, scanReplay, q, args...)
}

// ReplayAttribution is one attribution row of re-run arms: EAL-Bench's end-to-end row plus
// where its arms came from.
type ReplayAttribution struct {
	engine.AttributionRow
	ChainKey          ChainKey `json:"chain_key"`
	WriterRunID       int64    `json:"writer_run_id"`
	BlockIndex        int      `json:"block_index"`
	Executor          string   `json:"executor"`
	MemoryVariant     string   `json:"memory_variant"`
	MemoryContentHash string   `json:"memory_content_hash"`
	Repetition        int      `json:"repetition"`
	WrittenReplayID   *string  `json:"written_replay_id"`
	WrittenTrialID    *string  `json:"written_trial_id"`
	ExactReplayID     *string  `json:"exact_replay_id"`
}

// AttributionForChain lists the attribution rows of a chain's re-runs by block, probe,
// executor and arm (replay_attribution primary key).
func (s *Store) AttributionForChain(ctx context.Context, key ChainKey) ([]ReplayAttribution, error) {
	return queryAll(ctx, s.db, scanReplayAttribution, `SELECT a.chain_pk, c.writer_run_id, a.block_index, a.executor_target, a.memory_variant, a.memory_content_hash, a.repetition,
		a.written_replay_id, a.written_trial_id, a.exact_replay_id, a.evidence_id, a.case_id, a.probe_id, a.condition_id, a.writer_target, a.request_authorized, a.memory_formed,
		a.formation_estimable, a.estimable, a.authorized_use, a.exact_authorized_use, a.unauthorized_submission, a.exact_unauthorized_submission, a.attributed, a.reasons_json
		FROM replay_attribution a JOIN chains c ON c.chain_pk = a.chain_pk WHERE a.chain_pk = ? ORDER BY a.block_index, a.probe_id, a.executor_target, a.seq`, key)
}

func scanReplayAttribution(sc rowScanner) (ReplayAttribution, error) {
	var a ReplayAttribution
	var wr, wt, ex, writer sql.NullString
	var auth, formed, fest, est, use, xuse, sub, xsub, attr int
	var reasons string
	if err := sc.Scan(&a.ChainKey, &a.WriterRunID, &a.BlockIndex, &a.Executor, &a.MemoryVariant, &a.MemoryContentHash, &a.Repetition, &wr, &wt, &ex,
		&a.EvidenceID, &a.CaseID, &a.ProbeID, &a.ConditionID, &writer, &auth, &formed, &fest, &est, &use, &xuse, &sub, &xsub, &attr, &reasons); err != nil {
		return a, err
	}
	a.WrittenReplayID, a.WrittenTrialID, a.ExactReplayID, a.WriterTarget = strPtr(wr), strPtr(wt), strPtr(ex), strPtr(writer)
	a.RequestAuthorized, a.MemoryFormed, a.FormationEstimable, a.Estimable = auth != 0, formed != 0, fest != 0, est != 0
	a.AuthorizedUse, a.ExactAuthorizedUse, a.UnauthorizedSubmission, a.ExactUnauthorizedSubmission = use != 0, xuse != 0, sub != 0, xsub != 0
	a.Attributed = attr != 0
	a.Reasons = []string{}
	_ = json.Unmarshal([]byte(reasons), &a.Reasons)
	return a, nil
}

// FormedMemory is one (chain, memory, formed probes) of a run at the final block: the
// written memories a --formed re-run repairs.
type FormedMemory struct {
	Chain        ChainRow
	MemoryID     string
	Estimable    bool
	Formed       bool
	FormedProbes []string
}

// FinalMemories lists every writer chain of a run with its memory at the final block and
// the probes it forms false authority for (chain_blocks primary key): EAL-Bench's
// end-to-end population (written memories x probes).
func (s *Store) FinalMemories(ctx context.Context, runID string) ([]FormedMemory, error) {
	chains, err := s.Chains(ctx, ChainFilter{RunID: runID})
	if err != nil {
		return nil, err
	}
	var out []FormedMemory
	for _, c := range chains {
		if !writerConditions[c.ConditionID] {
			continue
		}
		var mem, unscored sql.NullString
		var forms sql.NullInt64
		var formed string
		err := s.db.QueryRowContext(ctx, `SELECT memory_id, forms_false_authority, formed_probe_ids_json, unscored_reason FROM chain_blocks WHERE chain_pk = ? ORDER BY block_index DESC LIMIT 1`, c.Key).
			Scan(&mem, &forms, &formed, &unscored)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !mem.Valid) {
			continue
		}
		if err != nil {
			return nil, err
		}
		fm := FormedMemory{Chain: c, MemoryID: mem.String, Estimable: !unscored.Valid && forms.Valid, Formed: forms.Valid && forms.Int64 != 0, FormedProbes: []string{}}
		_ = json.Unmarshal([]byte(formed), &fm.FormedProbes)
		out = append(out, fm)
	}
	return out, nil
}
