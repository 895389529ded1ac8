package runs

// Queries for the TUI and the headless commands. Each returns plain Go values for one screen
// (or one page of one) and is served by an index: the comment on each says which.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RunSummary is one imported run as the runs screen lists it.
type RunSummary struct {
	RunID          string         `json:"run_id"`
	Kind           string         `json:"kind"`
	DomainID       string         `json:"domain_id"`
	Study          string         `json:"study"`
	Status         string         `json:"status"`
	Verification   string         `json:"verification"`
	Incomplete     bool           `json:"incomplete"`
	ImportedFrom   string         `json:"imported_from"`
	ImportedAt     string         `json:"imported_at"`
	StartedAt      string         `json:"started_at"`
	CorpusVersion  string         `json:"corpus_version"`
	ManifestSHA256 string         `json:"manifest_sha256"`
	Counts         map[string]int `json:"counts"`
	MissingCorpora []CorpusRef    `json:"missing_corpora"`
	UnknownFiles   []string       `json:"unknown_files"`
	// RescoreDisagreements counts trials whose stored decision our scorer does not reproduce.
	RescoreDisagreements int `json:"rescore_disagreements"`
	Chains               int `json:"chains"`
	ChainsForming        int `json:"chains_forming"`
	Trials               int `json:"trials"`
	// TrialsNotEstimable counts the trials whose provider call failed: no decision was made.
	TrialsNotEstimable int `json:"trials_not_estimable"`
	// WriterAttempts and WriterErrors count the run's writer calls and those that failed
	// (attempt status writer_error, docs/FORMATS.md §4.4): a writer that failed on every call
	// wrote no memory, whatever the formation counts say.
	WriterAttempts int `json:"writer_attempts"`
	WriterErrors   int `json:"writer_errors"`
	// Writers and Executors are the manifest's writer and executor targets, comma-separated.
	Writers   string `json:"writers"`
	Executors string `json:"executors"`
	// WriterTokens and ExecutorTokens are the prompt and completion tokens of the run's own
	// model calls (ModelCallCosts has the detail).
	WriterTokens   int64 `json:"writer_tokens"`
	ExecutorTokens int64 `json:"executor_tokens"`
}

// WriterFailedEverywhere reports a run whose writer failed on every call it made.
func (r RunSummary) WriterFailedEverywhere() bool {
	return r.WriterAttempts > 0 && r.WriterErrors == r.WriterAttempts
}

const runColumns = `r.run_id, r.kind, r.domain_id, r.study, r.status, r.verification, r.incomplete, r.imported_from, r.imported_at, r.started_at, r.corpus_version, r.manifest_sha256, r.counts_json, r.missing_corpora_json, r.unknown_files_json, r.rescore_disagreements,
	(SELECT COUNT(*) FROM chains c WHERE c.run_pk = r.run_pk),
	(SELECT COUNT(*) FROM chains c WHERE c.run_pk = r.run_pk AND c.first_false_authority_block IS NOT NULL),
	(SELECT COUNT(*) FROM trials t WHERE t.run_pk = r.run_pk),
	(SELECT COUNT(*) FROM trials t WHERE t.run_pk = r.run_pk AND t.provider_error IS NOT NULL),
	(SELECT COUNT(*) FROM attempts a JOIN chains c ON a.chain_pk = c.chain_pk WHERE c.run_pk = r.run_pk),
	(SELECT COUNT(*) FROM attempts a JOIN chains c ON a.chain_pk = c.chain_pk WHERE c.run_pk = r.run_pk AND a.status = 'writer_error'),
	COALESCE((SELECT group_concat(value, ',') FROM json_each(r.manifest_json, '$.writer.targets')), ''),
	COALESCE((SELECT group_concat(value, ',') FROM json_each(r.manifest_json, '$.executor.targets')), ''),
	` + runTokensSQL + `'writer'` + runTokensEnd + `, ` + runTokensSQL + `'executor'` + runTokensEnd

// runTokensSQL ... runTokensEnd sums a run's tokens for the task between them, through the
// call_tokens_usage partial index.
const (
	runTokensSQL = `(SELECT COALESCE(SUM(COALESCE(u.prompt_tokens, 0) + COALESCE(u.completion_tokens, 0)), 0) FROM call_tokens u
	WHERE u.run_pk = r.run_pk AND u.task = `
	runTokensEnd = ` AND (u.prompt_tokens IS NOT NULL OR u.completion_tokens IS NOT NULL))`
)

func scanRun(sc rowScanner) (RunSummary, error) {
	var r RunSummary
	var incomplete int
	var counts, missing, unknown string
	if err := sc.Scan(&r.RunID, &r.Kind, &r.DomainID, &r.Study, &r.Status, &r.Verification, &incomplete, &r.ImportedFrom, &r.ImportedAt, &r.StartedAt,
		&r.CorpusVersion, &r.ManifestSHA256, &counts, &missing, &unknown, &r.RescoreDisagreements, &r.Chains, &r.ChainsForming, &r.Trials, &r.TrialsNotEstimable,
		&r.WriterAttempts, &r.WriterErrors, &r.Writers, &r.Executors, &r.WriterTokens, &r.ExecutorTokens); err != nil {
		return r, err
	}
	r.Incomplete = incomplete != 0
	r.Counts = map[string]int{}
	_ = json.Unmarshal([]byte(counts), &r.Counts)
	r.MissingCorpora = []CorpusRef{}
	_ = json.Unmarshal([]byte(missing), &r.MissingCorpora)
	r.UnknownFiles = []string{}
	_ = json.Unmarshal([]byte(unknown), &r.UnknownFiles)
	return r, nil
}

// Runs lists every run, by run id (runs.run_id unique index; the counts use the chains_by_ffa
// and trials_by_run indexes).
func (s *Store) Runs(ctx context.Context) ([]RunSummary, error) {
	return queryAll(ctx, s.db, scanRun, `SELECT `+runColumns+` FROM runs r ORDER BY r.run_id`)
}

// Run returns one run by id or unique id prefix.
func (s *Store) Run(ctx context.Context, id string) (RunSummary, error) {
	pk, err := s.runPK(ctx, id)
	if err != nil {
		return RunSummary{}, err
	}
	return scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs r WHERE r.run_pk = ?`, pk))
}

// runPK resolves a run id, a unique prefix of one, or a full manifest sha256.
func (s *Store) runPK(ctx context.Context, id string) (int64, error) {
	if id == "" {
		return 0, fmt.Errorf("run id: %w", ErrNotFound)
	}
	pks, err := queryAll(ctx, s.db, scanOne[int64], `SELECT run_pk FROM runs WHERE run_id >= ? AND run_id < ? UNION SELECT run_pk FROM runs WHERE manifest_sha256 = ?`, id, id+"\uffff", id)
	if err != nil {
		return 0, err
	}
	switch len(pks) {
	case 0:
		return 0, fmt.Errorf("run %q: %w", id, ErrNotFound)
	case 1:
		return pks[0], nil
	}
	return 0, fmt.Errorf("run id %q is ambiguous (%d runs start with it)", id, len(pks))
}

// runFilter is clause, a condition on run_pk with its one argument, limiting a query to the
// run runID names; for runID "" (every run) it is "" with no arguments.
func (s *Store) runFilter(ctx context.Context, runID, clause string) (string, []any, error) {
	if runID == "" {
		return "", []any{}, nil
	}
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return "", nil, err
	}
	return clause, []any{pk}, nil
}

// ChainKey identifies a chain within a workspace.
type ChainKey int64

// CaseKey identifies a stored case within a workspace.
type CaseKey int64

// ChainSort orders the chains list.
type ChainSort string

// Chain list orders.
const (
	SortByCase                ChainSort = "case"
	SortByFirstFalseAuthority ChainSort = "first_false_authority"
	SortByUnauthorized        ChainSort = "unauthorized_actions"
	SortByAttributed          ChainSort = "attributed"
)

// ChainFilter selects and pages chains of one run.
type ChainFilter struct {
	RunID string
	// Condition and CaseID restrict to one condition / case ("" for all).
	Condition string
	CaseID    string
	// FormedAt keeps chains whose first false-authority block is exactly *FormedAt.
	FormedAt *int
	// Forming keeps chains with a first false-authority block.
	Forming bool
	// Unauthorized keeps chains with at least one unauthorized action taken.
	Unauthorized bool
	// MemoryInduced keeps chains with at least one attributed (memory-induced) failure.
	MemoryInduced bool
	// NeedsAnnotation keeps chains holding free-text memories that cannot be scored yet.
	NeedsAnnotation bool
	Sort            ChainSort
	Desc            bool
	// Limit (0: no limit) and Offset page the list.
	Limit, Offset int
}

// ChainRow is one line of the chains list.
type ChainRow struct {
	Key                      ChainKey `json:"key"`
	RunID                    string   `json:"run_id"`
	RunIncomplete            bool     `json:"run_incomplete"`
	CaseID                   string   `json:"case_id"`
	ConditionID              string   `json:"condition_id"`
	Writer                   string   `json:"writer"`
	WriterRunID              int64    `json:"writer_run_id"`
	Architecture             string   `json:"architecture"`
	FirstFalseAuthorityBlock *int     `json:"first_false_authority_block"`
	FormedFinal              *bool    `json:"formed_final"`
	UnauthorizedActions      int      `json:"unauthorized_actions"`
	AttributedMemoryInduced  int      `json:"attributed_memory_induced"`
	NeedsAnnotation          bool     `json:"needs_annotation"`
	Memories                 int      `json:"memories"`
	Trials                   int      `json:"trials"`
	// UnscoredReason says why ledger-dependent facts are missing ("missing_corpus:..."), or "".
	UnscoredReason string `json:"unscored_reason"`
}

const chainColumns = `c.chain_pk, r.run_id, r.incomplete, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, c.architecture, c.first_false_authority_block, c.formed_final,
	c.unauthorized_actions, c.attributed_memory_induced, c.needs_annotation, c.memory_count, c.trial_count, c.unscored_reason`

func scanChain(sc rowScanner) (ChainRow, error) {
	var c ChainRow
	var incomplete, needs int
	var ffa, formed sql.NullInt64
	if err := sc.Scan(&c.Key, &c.RunID, &incomplete, &c.CaseID, &c.ConditionID, &c.Writer, &c.WriterRunID, &c.Architecture, &ffa, &formed,
		&c.UnauthorizedActions, &c.AttributedMemoryInduced, &needs, &c.Memories, &c.Trials, &c.UnscoredReason); err != nil {
		return c, err
	}
	c.RunIncomplete, c.NeedsAnnotation = incomplete != 0, needs != 0
	c.FirstFalseAuthorityBlock = intPtr(ffa)
	c.FormedFinal = boolPtr(formed)
	return c, nil
}

func intPtr(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	n := int(v.Int64)
	return &n
}

func boolPtr(v sql.NullInt64) *bool {
	if !v.Valid {
		return nil
	}
	b := v.Int64 != 0
	return &b
}

func (s *Store) chainWhere(ctx context.Context, f ChainFilter) (string, []any, error) {
	pk, err := s.runPK(ctx, f.RunID)
	if err != nil {
		return "", nil, err
	}
	where := []string{"c.run_pk = ?"}
	args := []any{pk}
	if f.Condition != "" {
		where, args = append(where, "c.condition_id = ?"), append(args, f.Condition)
	}
	if f.CaseID != "" {
		where, args = append(where, "c.case_id = ?"), append(args, f.CaseID)
	}
	if f.FormedAt != nil {
		where, args = append(where, "c.first_false_authority_block = ?"), append(args, *f.FormedAt)
	}
	if f.Forming {
		where = append(where, "c.first_false_authority_block IS NOT NULL")
	}
	if f.Unauthorized {
		where = append(where, "c.unauthorized_actions > 0")
	}
	if f.MemoryInduced {
		where = append(where, "c.attributed_memory_induced > 0")
	}
	if f.NeedsAnnotation {
		where = append(where, "c.needs_annotation = 1")
	}
	return strings.Join(where, " AND "), args, nil
}

// Chains lists one page of a run's chains (indexes: the chains unique key for SortByCase,
// chains_by_ffa / chains_by_unauthorized / chains_by_attributed for the other orders and
// filters, chains_by_condition for a condition).
func (s *Store) Chains(ctx context.Context, f ChainFilter) ([]ChainRow, error) {
	where, args, err := s.chainWhere(ctx, f)
	if err != nil {
		return nil, err
	}
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	tail := "c.case_id, c.condition_id, c.writer_target, c.writer_run_id"
	order := tail
	switch f.Sort {
	case SortByFirstFalseAuthority:
		order = "c.first_false_authority_block IS NULL, c.first_false_authority_block " + dir + ", " + tail
	case SortByUnauthorized:
		order = "c.unauthorized_actions " + dir + ", " + tail
	case SortByAttributed:
		order = "c.attributed_memory_induced " + dir + ", " + tail
	default:
		if f.Desc {
			order = "c.case_id DESC, c.condition_id DESC, c.writer_target DESC, c.writer_run_id DESC"
		}
	}
	q := `SELECT ` + chainColumns + ` FROM chains c JOIN runs r ON r.run_pk = c.run_pk WHERE ` + where + ` ORDER BY ` + order
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(f.Offset, 0))
	}
	return queryAll(ctx, s.db, scanChain, q, args...)
}

// ChainCount counts the chains a filter selects (same indexes as Chains).
func (s *Store) ChainCount(ctx context.Context, f ChainFilter) (int, error) {
	where, args, err := s.chainWhere(ctx, f)
	if err != nil {
		return 0, err
	}
	var n int
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM chains c WHERE `+where, args...).Scan(&n)
	return n, err
}

// Fault is one fault the scripted writer injected (faults.jsonl).
type Fault struct {
	Family          string `json:"family"`
	BlockIndex      int    `json:"block_index"`
	AuthorizationID string `json:"authorization_id"`
	Field           string `json:"field"`
	MemoryID        string `json:"memory_id"`
	Description     string `json:"description"`
	// SourceTurnIDs are the turns the fault came from, derived from what the workspace holds
	// (faults.jsonl rows name no turn): for a fault on a ledger transition, the turns the
	// ledger events of its block on its record cite; for an invented record, the one turn its
	// description names. Empty when neither is known (a missing corpus).
	SourceTurnIDs []string `json:"source_turn_ids"`
	// EventBlock is the block of the ledger transition the writer failed on: BlockIndex is the
	// update that wrote the fault, and a writer that updates once (one-shot) writes every
	// earlier block's faults at its one update, saying "(event in block N, written at block M)".
	EventBlock int `json:"event_block"`
}

// ChainHeader is the chain screen's header.
type ChainHeader struct {
	ChainRow
	// CaseKey is the stored case (0 when its corpus is missing; MissingCorpus then says which).
	CaseKey       CaseKey    `json:"case_key"`
	MissingCorpus *CorpusRef `json:"missing_corpus"`
	DomainID      string     `json:"domain_id"`
	CorpusVersion string     `json:"corpus_version"`
	Policy        string     `json:"policy"`
	Lifecycle     string     `json:"lifecycle"`
	Blocks        int        `json:"blocks"`
	RunStatus     string     `json:"run_status"`
	EALChainIDs   []string   `json:"eal_chain_ids"`
	FinalMemoryID string     `json:"final_memory_id"`
	// CitedTurns are the turns of the first false-authority block that the memory cites.
	CitedTurns []string `json:"cited_turns"`
	Faults     []Fault  `json:"faults"`
}

// Chain returns one chain's header (chains primary key; faults_by_case for the faults).
func (s *Store) Chain(ctx context.Context, key ChainKey) (ChainHeader, error) {
	var h ChainHeader
	var casePK sql.NullInt64
	var eal, cited string
	var policy, lifecycle, version sql.NullString
	var blocks sql.NullInt64
	var runPK int64
	var missing string
	row := s.db.QueryRowContext(ctx, `SELECT `+chainColumns+`, c.case_pk, c.eal_chain_ids_json, c.final_memory_id, c.ffa_cited_turns_json, r.status, r.domain_id, r.missing_corpora_json, r.run_pk,
		k.policy, k.lifecycle, k.block_count, k.corpus_version
		FROM chains c JOIN runs r ON r.run_pk = c.run_pk LEFT JOIN cases k ON k.case_pk = c.case_pk WHERE c.chain_pk = ?`, key)
	var c ChainRow
	var incomplete, needs int
	var ffa, formed sql.NullInt64
	err := row.Scan(&c.Key, &c.RunID, &incomplete, &c.CaseID, &c.ConditionID, &c.Writer, &c.WriterRunID, &c.Architecture, &ffa, &formed,
		&c.UnauthorizedActions, &c.AttributedMemoryInduced, &needs, &c.Memories, &c.Trials, &c.UnscoredReason,
		&casePK, &eal, &h.FinalMemoryID, &cited, &h.RunStatus, &h.DomainID, &missing, &runPK, &policy, &lifecycle, &blocks, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return h, fmt.Errorf("chain %d: %w", key, ErrNotFound)
	}
	if err != nil {
		return h, err
	}
	c.RunIncomplete, c.NeedsAnnotation = incomplete != 0, needs != 0
	c.FirstFalseAuthorityBlock, c.FormedFinal = intPtr(ffa), boolPtr(formed)
	h.ChainRow = c
	h.CaseKey = CaseKey(casePK.Int64)
	h.Policy, h.Lifecycle, h.CorpusVersion, h.Blocks = policy.String, lifecycle.String, version.String, int(blocks.Int64)
	h.EALChainIDs, h.CitedTurns = []string{}, []string{}
	_ = json.Unmarshal([]byte(eal), &h.EALChainIDs)
	_ = json.Unmarshal([]byte(cited), &h.CitedTurns)
	if !casePK.Valid {
		var refs []CorpusRef
		_ = json.Unmarshal([]byte(missing), &refs)
		if len(refs) > 0 {
			h.MissingCorpus = &refs[0]
		}
	}
	h.Faults, err = s.faults(ctx, runPK, c)
	if err == nil && casePK.Valid {
		err = s.faultSourceTurns(ctx, h.CaseKey, h.Faults)
	}
	return h, err
}

// inventedFrom reads the turn an invented record (extra_record_wrong_issuer) was laundered
// from out of its description: "recorded <id> from <actor>'s message <turn_id> with issuer ...".
var inventedFrom = regexp.MustCompile(`'s message (\S+) with issuer `)

// writtenLater reads the event block of a fault written at a later update.
var writtenLater = regexp.MustCompile(`\(event in block (\d+), written at block \d+\)$`)

// faultSourceTurns fills each fault's SourceTurnIDs (ledger_events_by_block by case).
func (s *Store) faultSourceTurns(ctx context.Context, caseKey CaseKey, faults []Fault) error {
	for i := range faults {
		f := &faults[i]
		f.SourceTurnIDs = []string{}
		if m := writtenLater.FindStringSubmatch(f.Description); m != nil {
			f.EventBlock, _ = strconv.Atoi(m[1])
		}
		if f.Family == FaultExtraRecord {
			if m := inventedFrom.FindStringSubmatch(f.Description); m != nil {
				f.SourceTurnIDs = append(f.SourceTurnIDs, m[1])
			}
			continue
		}
		lists, err := queryAll(ctx, s.db, scanOne[string], `SELECT source_turn_ids_json FROM ledger_events
			WHERE case_pk = ? AND block_index = ? AND (authorization_id = ? OR new_authorization_id = ?) ORDER BY seq`,
			int64(caseKey), f.EventBlock, f.AuthorizationID, f.AuthorizationID)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, raw := range lists {
			var ids []string
			_ = json.Unmarshal([]byte(raw), &ids)
			for _, id := range ids {
				if !seen[id] {
					seen[id] = true
					f.SourceTurnIDs = append(f.SourceTurnIDs, id)
				}
			}
		}
	}
	return nil
}

// FaultExtraRecord is the scripted writer's fault family of an invented record, the one
// family whose source turn is not a ledger event's.
const FaultExtraRecord = "extra_record_wrong_issuer"

func (s *Store) faults(ctx context.Context, runPK int64, c ChainRow) ([]Fault, error) {
	rr := newRowReader(s.db)
	return queryAll(ctx, s.db, func(r rowScanner) (Fault, error) {
		var f Fault
		var cols rawCols
		var line int
		if err := r.Scan(append([]any{&f.Family, &f.BlockIndex, &f.AuthorizationID, &f.Field, &f.MemoryID, &line}, cols.dest()...)...); err != nil {
			return f, err
		}
		tree, _, err := decodeStored[struct {
			Description string `json:"description"`
		}](ctx, rr, &cols, "faults", line)
		if err != nil {
			return f, err
		}
		f.Description = tree.Description
		f.SourceTurnIDs, f.EventBlock = []string{}, f.BlockIndex
		return f, nil
	}, `SELECT family, block_index, authorization_id, field, memory_id, line, `+rawSelect("faults")+` FROM faults
		WHERE run_pk = ? AND case_id = ? AND condition_id = ? AND writer_run_id = ? ORDER BY block_index, line`, runPK, c.CaseID, c.ConditionID, c.WriterRunID)
}
