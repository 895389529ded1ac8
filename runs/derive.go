package runs

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/derive"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Unscored reasons and score sources (EAL-Bench's names where it has them).
const (
	ScoredTyped          = "typed_memory"
	ScoredFreeTextNone   = "free_text_unscored"
	ScoredNoMemory       = "no_memory"
	ReasonMissingAnnot   = "missing_annotation"
	ReasonNoMemory       = "no_memory_at_block"
	reasonInvalidPayload = "invalid_typed_payload"
)

// writerConditions are EAL-Bench's written-memory conditions: their trials are the written
// arms of attribution.
var writerConditions = func() map[string]bool {
	out := map[string]bool{}
	for _, c := range engine.KnownConditions() {
		out[c.ID] = c.Writer
	}
	return out
}()

type scoreKey struct {
	memID string
	block int
}

type memScore struct {
	exact                      *bool
	errors                     map[string]int
	exactFields, over, under   int
	scoredFields, probesDenied int
	forms                      *bool
	formed                     []string
	scoredFrom                 string
	unscored                   *string
	// records are the parsed remembered records (typed memories that parse).
	records []engine.Record
}

func (s *memScore) estimable() bool { return s.unscored == nil }

// deriver computes and stores the facts derived from one run, inside the import transaction.
type deriver struct {
	w             *txWriter
	runPK         int64
	d             engine.Domain
	missingReason string
	scores        map[scoreKey]*memScore
	// ledgers replays each case's ledger once per block and scores memories against it
	// (runs/derive, which computes; this file stores what it returns).
	ledgers       *derive.Ledgers
	disagreements int
	// annotations caches each free-text memory's annotation resolution (annotations.go).
	annotations map[string]*annotations.Resolution
}

func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }

// score scores a memory version against the ledger at one block, once, storing its fidelity
// rows and per-probe formation.
func (dv *deriver) score(mr *memRec, block int) (*memScore, error) {
	k := scoreKey{mr.id, block}
	if s, ok := dv.scores[k]; ok {
		return s, nil
	}
	s := &memScore{errors: map[string]int{}, formed: []string{}, scoredFrom: ScoredTyped}
	dv.scores[k] = s
	unscorable := dv.unscorableAt(mr, block)
	switch {
	case mr.arch == engine.ArchFreeText:
		// Scored only through accepted annotations (EAL-Bench's _resolve_annotations).
		if err := dv.scoreFreeText(s, mr, block); err != nil {
			return nil, err
		}
	case unscorable != "":
		s.unscored = strp(unscorable)
	default:
		recs, err := dv.d.ParseTyped(mr.payload)
		if err != nil {
			s.unscored = strp(reasonInvalidPayload + ": " + err.Error())
			break
		}
		if err := dv.scoreRecords(s, mr, block, recs); err != nil {
			return nil, err
		}
	}
	if _, err := dv.w.exec("memory_scores", `INSERT INTO memory_scores (run_pk, memory_id, block_index, exact, errors_json, exact_fields, overgrant_fields, undergrant_fields, scored_fields, probes_denied, forms_false_authority, formed_probe_ids_json, scored_from, unscored_reason) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		dv.runPK, mr.id, block, nullBool(s.exact), jsonText(sortedCounts(s.errors)), s.exactFields, s.over, s.under, s.scoredFields, s.probesDenied, nullBool(s.forms), jsonText(s.formed), s.scoredFrom, nullStr(s.unscored)); err != nil {
		return nil, err
	}
	return s, nil
}

// unscorableAt is why a memory of this chain cannot be scored against the ledger at block:
// the chain's case (or its domain) is missing, or the block is outside the case; "" when it
// can be.
func (dv *deriver) unscorableAt(mr *memRec, block int) string {
	c := mr.chain.c
	switch {
	case dv.d == nil || c == nil:
		if dv.missingReason != "" {
			return dv.missingReason
		}
		return "missing_case:" + mr.chain.key.caseID
	case block < 0 || block > c.LastBlock():
		return fmt.Sprintf("block_out_of_range:%d", block)
	}
	return ""
}

// scoreRecords scores remembered records (a typed payload, or the accepted annotation of a
// free-text memory) against the ledger at one block, storing fidelity rows and per-probe
// formation.
func (dv *deriver) scoreRecords(s *memScore, mr *memRec, block int, recs []engine.Record) error {
	s.records = recs
	sc, err := dv.ledgers.Score(mr.chain.c, block, recs)
	if err != nil {
		return err
	}
	s.exact = boolp(sc.Exact)
	s.errors = sc.Errors
	s.over, s.under, s.scoredFields = sc.Over, sc.Under, sc.ScoredFields
	s.exactFields, s.probesDenied = sc.ExactFields, sc.ProbesDenied
	for seq, row := range sc.Fidelity {
		errs := row.Errors
		if errs == nil {
			errs = []string{}
		}
		if _, err := dv.w.exec("fidelity_rows", `INSERT INTO fidelity_rows (run_pk, memory_id, block_index, seq, authorization_id, field, canonical_json, remembered_json, errors_json, exact, overgrant, undergrant) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			dv.runPK, mr.id, block, seq, row.AuthorizationID, row.Field, jsonText(row.CanonicalValue), jsonText(row.RememberedValue), jsonText(errs), b2i(row.Exact), b2i(row.Overgrant), b2i(row.Undergrant)); err != nil {
			return err
		}
	}
	s.formed = append(s.formed, sc.Formed...)
	for _, f := range sc.Formation {
		if _, err := dv.w.exec("formation", `INSERT INTO formation (run_pk, memory_id, block_index, probe_id, ledger_authorized, memory_authorized, memory_reason, formed) VALUES (?,?,?,?,?,?,?,?)`,
			dv.runPK, mr.id, block, f.ProbeID, b2i(f.LedgerAuthorized), b2i(f.MemoryAuthorized), f.MemoryReason, b2i(f.Formed)); err != nil {
			return err
		}
	}
	s.forms = boolp(sc.Forms)
	return nil
}

// sortedCounts returns the map itself: encoding/json already writes map keys sorted, which is
// EAL-Bench's dict(sorted(errors.items())).
func sortedCounts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// rowJSON is the row as stored: its verified line verbatim, or (rows built in memory, such as
// writer-memories entries) its canonical JSON.
func rowJSON(r rundir.Row) string {
	if len(r.Raw) > 0 {
		return string(r.Raw)
	}
	s, err := pyjson.CanonicalJSON(r.Tree)
	if err != nil {
		return jsonText(r.Tree)
	}
	return s
}

// currentMemories is the chain's current memory and update status at each block
// (derive.CurrentMemories over the chain's stored memories and states).
func currentMemories(c *chainAcc, lastBlock int) ([]*memRec, []string) {
	mems := make([]derive.Memory, len(c.memories))
	for i, mr := range c.memories {
		mems[i] = derive.Memory{ID: mr.id, Block: mr.block}
	}
	states := make([]derive.State, len(c.states))
	for i, st := range c.states {
		states[i] = derive.State{Block: st.block, Status: st.status, Current: st.current}
	}
	idx, status := derive.CurrentMemories(mems, states, lastBlock)
	cur := make([]*memRec, len(idx))
	for k, i := range idx {
		if i >= 0 {
			cur[k] = c.memories[i]
		}
	}
	return cur, status
}

func (dv *deriver) deriveChain(c *chainAcc) error {
	lastBlock := -1
	if c.c != nil {
		lastBlock = c.c.LastBlock()
	} else {
		for _, mr := range c.memories {
			lastBlock = max(lastBlock, mr.block)
		}
		for _, st := range c.states {
			lastBlock = max(lastBlock, st.block)
		}
	}
	needsAnnotation := false
	for _, mr := range c.memories {
		s, err := dv.score(mr, mr.block)
		if err != nil {
			return err
		}
		if s.unscored != nil && NeedsAnnotation(*s.unscored) {
			needsAnnotation = true
		}
	}
	cur, status := currentMemories(c, lastBlock)
	var bfs []engine.BlockFormation
	scores := make([]*memScore, len(cur))
	for k, mr := range cur {
		if mr == nil {
			continue
		}
		s, err := dv.score(mr, k)
		if err != nil {
			return err
		}
		scores[k] = s
		bfs = append(bfs, engine.BlockFormation{BlockIndex: k, Estimable: s.estimable(), Formed: s.forms != nil && *s.forms})
	}
	ffa, found := engine.FirstFalseAuthorityBlock(bfs)
	cited := []string{}
	if found && c.c != nil {
		cited = citedTurns(dv.citable(cur[ffa]), c.c, ffa)
	}
	for k, mr := range cur {
		var memID, upd any
		if status[k] != "" {
			upd = status[k]
		}
		s := scores[k]
		if mr == nil {
			reason := ReasonNoMemory
			if c.c == nil && dv.missingReason != "" {
				reason = dv.missingReason
			}
			if _, err := dv.w.exec("chain_blocks", `INSERT INTO chain_blocks (chain_pk, block_index, memory_id, update_status, exact, exact_fields, overgrant_fields, undergrant_fields, forms_false_authority, formed_probe_ids_json, scored_from, unscored_reason, first_false_authority) VALUES (?,?,NULL,?,NULL,0,0,0,NULL,'[]',?,?,0)`,
				c.pk, k, upd, ScoredNoMemory, reason); err != nil {
				return err
			}
			continue
		}
		memID = mr.id
		if _, err := dv.w.exec("chain_blocks", `INSERT INTO chain_blocks (chain_pk, block_index, memory_id, update_status, exact, exact_fields, overgrant_fields, undergrant_fields, forms_false_authority, formed_probe_ids_json, scored_from, unscored_reason, first_false_authority) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			c.pk, k, memID, upd, nullBool(s.exact), s.exactFields, s.over, s.under, nullBool(s.forms), jsonText(s.formed), s.scoredFrom, nullStr(s.unscored), b2i(found && k == ffa)); err != nil {
			return err
		}
	}
	finalID := ""
	var formedFinal *bool
	if n := len(cur); n > 0 && cur[n-1] != nil {
		finalID = cur[n-1].id
		formedFinal = scores[n-1].forms
	} else if len(c.memories) > 0 {
		finalID = c.memories[len(c.memories)-1].id
	}
	unauthorized := 0
	for _, t := range c.trials {
		if t.row.Bool("unauthorized_action_taken") {
			unauthorized++
		}
	}
	var ffaVal any
	if found {
		ffaVal = ffa
	}
	chainReason := ""
	if c.c == nil {
		chainReason = dv.missingReason
		if chainReason == "" {
			chainReason = "missing_case:" + c.key.caseID
		}
	}
	var casePK any
	if c.c != nil {
		casePK = c.casePK
	}
	_, err := dv.w.exec("", `UPDATE chains SET case_pk=?, final_memory_id=?, first_false_authority_block=?, ffa_cited_turns_json=?, formed_final=?, unauthorized_actions=?, needs_annotation=?, trial_count=?, unscored_reason=? WHERE chain_pk=?`,
		casePK, finalID, ffaVal, jsonText(cited), nullBool(formedFinal), unauthorized, b2i(needsAnnotation), len(c.trials), chainReason, c.pk)
	return err
}

// citedTurns are the turns of block k that the memory's records cite (derive.CitedTurns).
func citedTurns(mr *memRec, c *engine.Case, k int) []string {
	if mr == nil {
		return []string{}
	}
	return derive.CitedTurns(mr.payload, c, k)
}
