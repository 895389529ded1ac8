// Package procurement is the procurement domain of EAL-Bench: its case corpus, ledger replay,
// oracle, typed and free-text memory, fidelity, executor surface and scoring, plus ealscope's
// own built-in corpus and a seeded case generator.
package procurement

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Record is a canonical authorization record as the corpus writes it (flat, no scope object).
type Record struct {
	AuthorizationID   string   `json:"authorization_id"`
	Issuer            string   `json:"issuer"`
	Grantee           string   `json:"grantee"`
	Effect            string   `json:"effect"`
	Action            string   `json:"action"`
	Vendor            string   `json:"vendor"`
	AllowedCategories []string `json:"allowed_categories"`
	MaxAmount         int64    `json:"max_amount"`
	Currency          string   `json:"currency"`
	ValidFrom         string   `json:"valid_from"`
	ValidUntil        string   `json:"valid_until"`
	Status            string   `json:"status"`
	Supersedes        *string  `json:"supersedes"`
	SourceTurnIDs     []string `json:"source_turn_ids"`
}

// Patch is the set of fields a patch event overwrites; nil means "unchanged".
type Patch struct {
	Issuer            *string  `json:"issuer,omitempty"`
	Grantee           *string  `json:"grantee,omitempty"`
	Effect            *string  `json:"effect,omitempty"`
	Action            *string  `json:"action,omitempty"`
	Vendor            *string  `json:"vendor,omitempty"`
	AllowedCategories []string `json:"allowed_categories,omitempty"`
	MaxAmount         *int64   `json:"max_amount,omitempty"`
	Currency          *string  `json:"currency,omitempty"`
	ValidFrom         *string  `json:"valid_from,omitempty"`
	ValidUntil        *string  `json:"valid_until,omitempty"`
}

// Transaction is a probe's purchase request.
type Transaction struct {
	TransactionID string `json:"transaction_id"`
	Grantee       string `json:"grantee"`
	Action        string `json:"action"`
	Vendor        string `json:"vendor"`
	Category      string `json:"category"`
	Amount        int64  `json:"amount"`
	Currency      string `json:"currency"`
	ActionTime    string `json:"action_time"`
}

// Visible is the transaction as the executor sees it: everything but transaction_id.
func (t Transaction) Visible() map[string]any {
	return map[string]any{
		"grantee": t.Grantee, "action": t.Action, "vendor": t.Vendor, "category": t.Category,
		"amount": t.Amount, "currency": t.Currency, "action_time": t.ActionTime,
	}
}

// Event is a ledger event of the corpus.
type Event struct {
	EventID         string   `json:"event_id"`
	EventType       string   `json:"event_type"`
	Issuer          string   `json:"issuer"`
	BlockID         string   `json:"block_id"`
	EffectiveAt     string   `json:"effective_at"`
	AuthorizationID string   `json:"authorization_id"`
	SourceTurnIDs   []string `json:"source_turn_ids"`
	Record          *Record  `json:"record"`
	Patch           *Patch   `json:"patch"`
}

// Benchmark is the case's benchmark metadata.
type Benchmark struct {
	Split             string   `json:"split"`
	CaseFamilyID      string   `json:"case_family_id"`
	Lifecycle         string   `json:"lifecycle"`
	TargetDimensions  []string `json:"target_dimensions"`
	DistractorTypes   []string `json:"distractor_types"`
	HistoryLengthBand string   `json:"history_length_band"`
	MemoryHazards     []string `json:"memory_hazards"`
}

// Turn, Block, ProbePair and TransactionProbe mirror the corpus shapes.
type Turn struct {
	TurnID     string `json:"turn_id"`
	ActorID    string `json:"actor_id"`
	Speaker    string `json:"speaker"`
	Content    string `json:"content"`
	OccurredAt string `json:"occurred_at"`
}

// Block is one history block of the corpus.
type Block struct {
	BlockID    string `json:"block_id"`
	BlockIndex int    `json:"block_index"`
	Title      string `json:"title"`
	EndedAt    string `json:"ended_at"`
	Turns      []Turn `json:"turns"`
}

// TransactionProbe is one side of a matched pair.
type TransactionProbe struct {
	Name         string      `json:"name"`
	RequestScope string      `json:"request_scope"`
	Transaction  Transaction `json:"transaction"`
}

// ProbePair is a matched in/out pair differing on one dimension.
type ProbePair struct {
	PairID     string           `json:"pair_id"`
	Dimension  string           `json:"dimension"`
	InScope    TransactionProbe `json:"in_scope"`
	OutOfScope TransactionProbe `json:"out_of_scope"`
}

// Case is one procurement AuthorizationCase.
type Case struct {
	SchemaVersion     string      `json:"schema_version"`
	CaseID            string      `json:"case_id"`
	AuthoringHash     string      `json:"authoring_hash"`
	Policy            string      `json:"policy"`
	AuthorizedIssuers []string    `json:"authorized_issuers"`
	Benchmark         Benchmark   `json:"benchmark"`
	Blocks            []Block     `json:"blocks"`
	Events            []Event     `json:"events"`
	ProbePairs        []ProbePair `json:"probe_pairs"`
	Tags              []string    `json:"tags"`
}

var (
	turnIDPattern    = regexp.MustCompile(`^src_[0-9a-f]{8}_[0-9]{3}$`)
	forbiddenInTurns = []string{"issue_only", "narrowing", "revoke", "replace", "amount", "time", "category"}
	eventTypes       = map[string]bool{"issue": true, "patch": true, "revoke": true, "replace": true}
	dimensions       = map[string]bool{"amount": true, "time": true, "category": true}
	recordStatuses   = map[string]bool{"active": true, "revoked": true, "superseded": true}
)

// ParseCorpusLines parses a JSONL corpus strictly. Blank lines are skipped; CRLF is accepted.
// Each error names the file, the line, the case id when known, and the field.
func ParseCorpusLines(name string, data []byte) ([]*Case, []int, error) {
	var cases []*Case
	var lines []int
	seen := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lineNo := i + 1
		if len(line) > engine.MaxLineBytes {
			return nil, nil, engine.LineTooLong(name, lineNo)
		}
		c, err := ParseCase(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		if prev, dup := seen[c.CaseID]; dup {
			return nil, nil, fmt.Errorf("%s:%d: case %s: field case_id: duplicate of line %d", name, lineNo, c.CaseID, prev)
		}
		seen[c.CaseID] = lineNo
		cases = append(cases, c)
		lines = append(lines, lineNo)
	}
	if len(cases) == 0 {
		return nil, nil, fmt.Errorf("%s: no cases", name)
	}
	return cases, lines, nil
}

// ParseCase parses and validates one case line.
func ParseCase(line []byte) (*Case, error) {
	tree, err := pyjson.DecodeTree(line)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	c, err := readCase(tree)
	if err != nil {
		if c != nil && c.CaseID != "" {
			return nil, fmt.Errorf("case %s: %w", c.CaseID, err)
		}
		return nil, err
	}
	if err := Validate(c); err != nil {
		return nil, fmt.Errorf("case %s: %w", c.CaseID, err)
	}
	return c, nil
}

// Validate applies EAL-Bench's case validators: sizes, id patterns, block and turn ordering,
// event and source constraints, probe pairs; the first failure is the error.
func Validate(c *Case) error {
	turns, err := validateBlocks(c)
	if err != nil {
		return err
	}
	lastEffective, err := validateEvents(c, turns)
	if err != nil {
		return err
	}
	if _, err := ReplayRecords(c, len(c.Blocks)-1); err != nil {
		return engine.Errf("events", "%v", err)
	}
	lastTime, _ := utcInstant("", c.Blocks[len(c.Blocks)-1].EndedAt)
	if lastEffective.After(lastTime) {
		lastTime = lastEffective
	}
	return validateProbes(c, lastTime)
}

// caseTurns indexes a case's turns by id: the turn and its block.
type caseTurns struct {
	block map[string]int
	byID  map[string]Turn
}

// validateBlocks checks the blocks and their turns: 5 to 8 contiguous blocks, turn ids of the
// right pattern that leak nothing, strictly increasing turn times inside their block's window,
// and 40 to 100 turns in all.
func validateBlocks(c *Case) (caseTurns, error) {
	turns := caseTurns{block: map[string]int{}, byID: map[string]Turn{}}
	if n := len(c.Blocks); n < 5 || n > 8 {
		return turns, engine.Errf("blocks", "a case has 5 to 8 blocks, got %d", n)
	}
	turnCount := 0
	var prevTurn time.Time
	var prevEnded time.Time
	for bi, b := range c.Blocks {
		bpath := engine.JoinPath("blocks", bi)
		if b.BlockIndex != bi {
			return turns, engine.Errf(bpath+".block_index", "expected %d (contiguous from 0), got %d", bi, b.BlockIndex)
		}
		ended, err := utcInstant(bpath+".ended_at", b.EndedAt)
		if err != nil {
			return turns, err
		}
		if len(b.Turns) == 0 {
			return turns, engine.Errf(bpath+".turns", "a block needs at least one turn")
		}
		for ti, t := range b.Turns {
			tpath := engine.JoinPath(bpath+".turns", ti)
			turnCount++
			if err := validateTurnID(c, tpath, t, turns); err != nil {
				return turns, err
			}
			at, err := utcInstant(tpath+".occurred_at", t.OccurredAt)
			if err != nil {
				return turns, err
			}
			if turnCount > 1 && !at.After(prevTurn) {
				return turns, engine.Errf(tpath+".occurred_at", "turn times must strictly increase (%s is not after the previous turn)", t.OccurredAt)
			}
			if ti == 0 && bi > 0 && !at.After(prevEnded) {
				return turns, engine.Errf(tpath+".occurred_at", "a block's first turn must come after the previous block's ended_at %s", c.Blocks[bi-1].EndedAt)
			}
			if at.After(ended) {
				return turns, engine.Errf(tpath+".occurred_at", "turn at %s is after its block's ended_at %s", t.OccurredAt, b.EndedAt)
			}
			prevTurn = at
			turns.block[t.TurnID] = bi
			turns.byID[t.TurnID] = t
		}
		prevEnded = ended
	}
	if turnCount < 40 || turnCount > 100 {
		return turns, engine.Errf("blocks", "a case has 40 to 100 turns in total, got %d", turnCount)
	}
	return turns, nil
}

// validateTurnID checks a turn id's pattern, that it leaks neither the case id nor a
// forbidden token, and that no earlier turn has it.
func validateTurnID(c *Case, tpath string, t Turn, turns caseTurns) error {
	if !turnIDPattern.MatchString(t.TurnID) {
		return engine.Errf(tpath+".turn_id", "%q does not match ^src_[0-9a-f]{8}_[0-9]{3}$", t.TurnID)
	}
	if strings.Contains(t.TurnID, c.CaseID) {
		return engine.Errf(tpath+".turn_id", "must not contain the case id")
	}
	for _, tok := range forbiddenInTurns {
		if strings.Contains(t.TurnID, tok) {
			return engine.Errf(tpath+".turn_id", "must not contain %q", tok)
		}
	}
	if _, dup := turns.block[t.TurnID]; dup {
		return engine.Errf(tpath+".turn_id", "duplicate turn id %s", t.TurnID)
	}
	return nil
}

// validateEvents checks the events: known types, blocks and issuers, strictly increasing
// effective times inside their block in block order, their sources, their shape and their
// record's provenance. It returns the last effective time.
func validateEvents(c *Case, turns caseTurns) (time.Time, error) {
	var prevEffective time.Time
	if len(c.Events) == 0 {
		return prevEffective, engine.Errf("events", "a case needs at least one event")
	}
	blockIndex := map[string]int{}
	for _, b := range c.Blocks {
		blockIndex[b.BlockID] = b.BlockIndex
	}
	issuers := map[string]bool{}
	for _, iss := range c.AuthorizedIssuers {
		issuers[iss] = true
	}
	blockEnds := make([]time.Time, len(c.Blocks))
	for i, b := range c.Blocks {
		blockEnds[i], _ = utcInstant("", b.EndedAt)
	}
	prevEventBlock := 0
	for ei, e := range c.Events {
		epath := engine.JoinPath("events", ei)
		if !eventTypes[e.EventType] {
			return prevEffective, engine.Errf(epath+".event_type", "%q is not one of issue, patch, revoke, replace", e.EventType)
		}
		bi, ok := blockIndex[e.BlockID]
		if !ok {
			return prevEffective, engine.Errf(epath+".block_id", "unknown block %q", e.BlockID)
		}
		if !issuers[e.Issuer] {
			return prevEffective, engine.Errf(epath+".issuer", "%q is not one of the case's authorized_issuers", e.Issuer)
		}
		eff, err := utcInstant(epath+".effective_at", e.EffectiveAt)
		if err != nil {
			return prevEffective, err
		}
		if ei > 0 && !eff.After(prevEffective) {
			return prevEffective, engine.Errf(epath+".effective_at", "event times must strictly increase")
		}
		if ei > 0 && bi < prevEventBlock {
			return prevEffective, engine.Errf(epath+".block_id", "events must follow block order")
		}
		if eff.After(blockEnds[bi]) || (bi > 0 && !eff.After(blockEnds[bi-1])) {
			return prevEffective, engine.Errf(epath+".effective_at", "%s falls outside its block", e.EffectiveAt)
		}
		prevEffective = eff
		prevEventBlock = bi
		if err := validateEventSources(epath, e, bi, eff, turns); err != nil {
			return prevEffective, err
		}
		if err := validateEventShape(epath, e); err != nil {
			return prevEffective, err
		}
		if err := validateRecordProvenance(epath, e, bi, turns); err != nil {
			return prevEffective, err
		}
	}
	return prevEffective, nil
}

// validateEventSources checks an event's source turns: at least one, each in the event's
// block, said by its issuer, not after effective_at, and stating effective_at unless said at
// that instant (an "immediate" change must be).
func validateEventSources(epath string, e Event, bi int, eff time.Time, turns caseTurns) error {
	if len(e.SourceTurnIDs) == 0 {
		return engine.Errf(epath+".source_turn_ids", "an event needs at least one source turn")
	}
	for si, sid := range e.SourceTurnIDs {
		spath := engine.JoinPath(epath+".source_turn_ids", si)
		tb, ok := turns.block[sid]
		if !ok {
			return engine.Errf(spath, "unknown turn %q", sid)
		}
		if tb != bi {
			return engine.Errf(spath, "source turn %s is in block %d, the event is in block %d", sid, tb, bi)
		}
		turn := turns.byID[sid]
		if turn.ActorID != e.Issuer {
			return engine.Errf(spath, "source turn %s is by %q, not the issuer %q", sid, turn.ActorID, e.Issuer)
		}
		at, _ := utcInstant("", turn.OccurredAt)
		if at.After(eff) {
			return engine.Errf(spath, "source turn %s (%s) is later than effective_at %s", sid, turn.OccurredAt, e.EffectiveAt)
		}
		if !at.Equal(eff) && !strings.Contains(turn.Content, e.EffectiveAt) {
			return engine.Errf(spath, "source turn %s precedes effective_at, so its content must state %s", sid, e.EffectiveAt)
		}
		if !at.Equal(eff) && strings.Contains(strings.ToLower(turn.Content), "immediate") {
			return engine.Errf(spath, "source turn %s announces an immediate change, so it must occur at effective_at", sid)
		}
	}
	return nil
}

// validateRecordProvenance checks that an event's record cites only known turns up to its
// block, among them every source of the event.
func validateRecordProvenance(epath string, e Event, bi int, turns caseTurns) error {
	r := e.Record
	if r == nil {
		return nil
	}
	cited := map[string]bool{}
	for ri, sid := range r.SourceTurnIDs {
		cited[sid] = true
		tb, ok := turns.block[sid]
		if !ok || tb > bi {
			return engine.Errf(engine.JoinPath(epath+".record.source_turn_ids", ri), "record cites an unknown or later turn %q", sid)
		}
	}
	for _, sid := range e.SourceTurnIDs {
		if !cited[sid] {
			return engine.Errf(epath+".record.source_turn_ids", "the event's source %s is missing from the record's provenance", sid)
		}
	}
	return nil
}

// validateProbes checks the probe pairs: at least one, known dimensions, an in-scope and an
// out-of-scope side, amounts not negative, and every action after the final block and event.
func validateProbes(c *Case, lastTime time.Time) error {
	if len(c.ProbePairs) == 0 {
		return engine.Errf("probe_pairs", "a case needs at least one probe pair")
	}
	for pi, p := range c.ProbePairs {
		ppath := engine.JoinPath("probe_pairs", pi)
		if !dimensions[p.Dimension] {
			return engine.Errf(ppath+".dimension", "%q is not one of amount, time, category", p.Dimension)
		}
		if p.InScope.RequestScope != "in_scope" {
			return engine.Errf(ppath+".in_scope.request_scope", "must be in_scope")
		}
		if p.OutOfScope.RequestScope != "out_of_scope" {
			return engine.Errf(ppath+".out_of_scope.request_scope", "must be out_of_scope")
		}
		for _, side := range []struct {
			path string
			tx   Transaction
		}{{ppath + ".in_scope.transaction", p.InScope.Transaction}, {ppath + ".out_of_scope.transaction", p.OutOfScope.Transaction}} {
			if side.tx.Amount < 0 {
				return engine.Errf(side.path+".amount", "must be >= 0")
			}
			at, err := utcInstant(side.path+".action_time", side.tx.ActionTime)
			if err != nil {
				return err
			}
			if !at.After(lastTime) {
				return engine.Errf(side.path+".action_time", "a probe must occur after the final block and event")
			}
		}
	}
	return nil
}

func validateEventShape(path string, e Event) error {
	switch e.EventType {
	case "issue", "replace":
		if e.Record == nil {
			return engine.Errf(path+".record", "a %s event carries a record", e.EventType)
		}
		if e.Patch != nil {
			return engine.Errf(path+".patch", "a %s event carries no patch", e.EventType)
		}
		r := e.Record
		if r.Status != "active" {
			return engine.Errf(path+".record.status", "a new record is active, got %q", r.Status)
		}
		if r.Issuer != e.Issuer {
			return engine.Errf(path+".record.issuer", "%q differs from the event issuer %q", r.Issuer, e.Issuer)
		}
		if e.EventType == "issue" {
			if r.Supersedes != nil {
				return engine.Errf(path+".record.supersedes", "an issued record supersedes nothing")
			}
			if r.AuthorizationID != e.AuthorizationID {
				return engine.Errf(path+".record.authorization_id", "an issued record keeps the event's authorization_id %q", e.AuthorizationID)
			}
		} else {
			if r.AuthorizationID == e.AuthorizationID {
				return engine.Errf(path+".record.authorization_id", "a replacement needs a new authorization id")
			}
			if r.Supersedes == nil || *r.Supersedes != e.AuthorizationID {
				return engine.Errf(path+".record.supersedes", "a replacement supersedes %q", e.AuthorizationID)
			}
		}
	case "patch":
		if e.Record != nil {
			return engine.Errf(path+".record", "a patch event carries no record")
		}
		if e.Patch == nil {
			return engine.Errf(path+".patch", "a patch event carries a patch")
		}
	case "revoke":
		if e.Record != nil {
			return engine.Errf(path+".record", "a revoke event carries no record")
		}
		if e.Patch != nil {
			return engine.Errf(path+".patch", "a revoke event carries no patch")
		}
	}
	return nil
}

// utcInstant parses a corpus timestamp, which must carry an offset.
func utcInstant(path, s string) (time.Time, error) {
	t, aware, err := engine.ParseISOTime(s)
	if err != nil {
		return time.Time{}, engine.Errf(path, "%v", err)
	}
	if !aware {
		return time.Time{}, engine.Errf(path, "timestamp %q has no UTC offset", s)
	}
	return t, nil
}
