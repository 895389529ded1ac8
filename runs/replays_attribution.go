package runs

// End-to-end attribution of re-run arms (docs/FORMATS.md 7.4): each stored arm is attributed
// against the exact arm of its group (chain, block, probe, executor, written memory).

import (
	"database/sql"

	"github.com/ealscope/ealscope/engine"
)

// attributionArm is one arm of a group as attribution reads it.
type attributionArm struct {
	pk                                           int64
	replayID, trialID, variant, hash, evidenceID string
	rep                                          int
	formed, estimable                            bool
	arm                                          *engine.ArmOutcome
}

// armGroup is one (chain, block, probe, executor) group and what every row of it repeats.
type armGroup struct {
	w                         *txWriter
	chain                     ChainKey
	block                     int
	probe, executor           string
	runPK, writerRun          int64
	caseID, cond, writer      string
	finalBlock                bool
	writtenMemory, evidenceID string
}

// armColumns are read from the covering index replays_arms only.
const armColumns = `replay_pk, replay_id, memory_variant, memory_content_hash, repetition, memory_formed, formation_estimable, request_authorized, requested_action_taken, provider_error`

const groupWhere = `chain_pk = ? AND block_index = ? AND probe_id = ? AND executor_target = ?`

func (g *armGroup) args(extra ...any) []any {
	return append([]any{g.chain, g.block, g.probe, g.executor}, extra...)
}

// arms runs a query over the group's replays (the WHERE clause continues after groupWhere).
func (g *armGroup) arms(tail string, extra ...any) ([]attributionArm, error) {
	return queryAll(g.w.ctx, g.w.tx, func(r rowScanner) (attributionArm, error) {
		var a attributionArm
		var formed, estimable, auth, taken int
		var pe sql.NullString
		err := r.Scan(&a.pk, &a.replayID, &a.variant, &a.hash, &a.rep, &formed, &estimable, &auth, &taken, &pe)
		a.formed, a.estimable = formed != 0, estimable != 0
		a.arm = armOutcome(auth, taken, pe)
		a.evidenceID = g.evidenceID
		return a, err
	}, `SELECT `+armColumns+` FROM replays INDEXED BY replays_arms WHERE `+groupWhere+tail, g.args(extra...)...)
}

// armOutcome is an arm's outcome from its stored request_authorized, requested_action_taken
// and provider_error columns.
func armOutcome(requestAuthorized, taken int, providerError sql.NullString) *engine.ArmOutcome {
	arm := &engine.ArmOutcome{RequestAuthorized: requestAuthorized != 0, RequestedActionTaken: taken != 0}
	if providerError.Valid {
		v := providerError.String
		arm.ProviderError = &v
	}
	return arm
}

func (g *armGroup) one(tail string, extra ...any) (*attributionArm, error) {
	arms, err := g.arms(tail+` LIMIT 1`, extra...)
	if err != nil || len(arms) == 0 {
		return nil, err
	}
	return &arms[0], nil
}

// writtenOnly restricts a group query to non-exact arms (an IN list, so the index serves it).
const writtenOnly = ` AND memory_variant IN ('` + engine.VariantWritten + `', '` + engine.VariantEdited + `', '` + engine.VariantFile + `')`

// exactFor is the exact arm a written arm of repetition rep is paired with: the latest exact
// arm of the same repetition (re-running an exact arm after a provider error supersedes the
// failed one), else the latest exact arm of the lowest repetition.
func (g *armGroup) exactFor(rep int) (*attributionArm, error) {
	x, err := g.one(` AND memory_variant = `+sqlExact+` AND repetition = ? ORDER BY replay_pk DESC`, rep)
	if err != nil || x != nil {
		return x, err
	}
	return g.fallbackExact()
}

func (g *armGroup) fallbackExact() (*attributionArm, error) {
	low, err := g.one(` AND memory_variant = ` + sqlExact + ` ORDER BY repetition`)
	if err != nil || low == nil {
		return low, err
	}
	return g.one(` AND memory_variant = `+sqlExact+` AND repetition = ? ORDER BY replay_pk DESC`, low.rep)
}

func (s *Store) loadGroup(w *txWriter, chain ChainKey, block int, probe, executor, writtenMemory string) (*armGroup, error) {
	g := &armGroup{w: w, chain: chain, block: block, probe: probe, executor: executor, writtenMemory: writtenMemory}
	var lastBlock sql.NullInt64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT c.run_pk, c.case_id, c.condition_id, c.writer_target, c.writer_run_id, k.block_count - 1 FROM chains c LEFT JOIN cases k ON k.case_pk = c.case_pk WHERE c.chain_pk = ?`, chain).
		Scan(&g.runPK, &g.caseID, &g.cond, &g.writer, &g.writerRun, &lastBlock); err != nil {
		return nil, err
	}
	g.finalBlock = lastBlock.Valid && int64(block) == lastBlock.Int64
	if g.writtenMemory == "" {
		var mem sql.NullString
		_ = w.tx.QueryRowContext(w.ctx, `SELECT memory_id FROM chain_blocks WHERE chain_pk = ? AND block_index = ?`, chain, block).Scan(&mem)
		g.writtenMemory = mem.String
	}
	if g.writtenMemory != "" {
		var ev sql.NullString
		_ = w.tx.QueryRowContext(w.ctx, `SELECT evidence_id FROM evidence WHERE chain_pk = ? AND memory_id = ? LIMIT 1`, chain, g.writtenMemory).Scan(&ev)
		g.evidenceID = ev.String
	}
	return g, nil
}

// attributeArm updates the attribution rows of the group of a newly stored arm. Rows pair
// every non-exact arm (written, edited or file replays; when the group has none, the
// imported trials on the chain's memory at the block, EAL-Bench's written arm; when there is
// none of those either, a row saying missing_written_response) with an exact arm (exactFor).
// Nothing is written until an exact arm exists: there is nothing to attribute against.
//
// Only the rows the new arm can change are recomputed, so storing an arm costs a few index
// lookups however many arms the group holds: a new written arm adds its own row; a new exact
// arm recomputes the written arms of its repetition, or all of them when it became the
// fallback pairing (which happens O(log N) times over N arms stored in any order).
func (s *Store) attributeArm(w *txWriter, chain ChainKey, block int, probe, executor, writtenMemory string, pk int64, variant string, rep int) error {
	g, err := s.loadGroup(w, chain, block, probe, executor, writtenMemory)
	if err != nil {
		return err
	}
	anyExact, err := g.one(` AND memory_variant = ` + sqlExact + ``)
	if err != nil || anyExact == nil {
		return err
	}
	otherWritten, err := g.one(writtenOnly+` AND replay_pk <> ?`, pk)
	if err != nil {
		return err
	}
	if variant != engine.VariantExact {
		if otherWritten == nil {
			// The first written replay replaces the imported-trial (or placeholder) rows.
			if _, err := w.exec("", `DELETE FROM replay_attribution WHERE `+groupWhere, g.args()...); err != nil {
				return err
			}
		}
		arm, err := g.one(` AND replay_pk = ?`, pk)
		if err != nil {
			return err
		}
		return g.writeRows([]attributionArm{*arm})
	}
	written, err := g.arms(writtenOnly + ` ORDER BY replay_pk`)
	if err != nil {
		return err
	}
	if len(written) == 0 {
		if written, err = g.importedArms(); err != nil {
			return err
		}
		if _, err := w.exec("", `DELETE FROM replay_attribution WHERE `+groupWhere, g.args()...); err != nil {
			return err
		}
		return g.writeRows(written)
	}
	fallback, err := g.fallbackExact()
	if err != nil {
		return err
	}
	if fallback != nil && fallback.pk == pk {
		return g.writeRows(written)
	}
	same, err := g.arms(writtenOnly+` AND repetition = ? ORDER BY replay_pk`, rep)
	if err != nil {
		return err
	}
	return g.writeRows(same)
}

// writeRows computes and stores (replacing) the rows of the given written arms.
func (g *armGroup) writeRows(written []attributionArm) error {
	for _, wa := range written {
		x, err := g.exactFor(wa.rep)
		if err != nil {
			return err
		}
		if x == nil {
			return nil
		}
		row := engine.Attribute(engine.AttributionInput{
			EvidenceID: wa.evidenceID, CaseID: g.caseID, ProbeID: g.probe, ConditionID: g.cond, WriterTarget: g.writer,
			FormationEstimable: wa.estimable, MemoryFormed: wa.formed, Written: wa.arm, Exact: x.arm, ExactExpected: true,
			RequestAuthorized: &x.arm.RequestAuthorized,
		})
		if _, err := g.w.exec("replay_attribution", `INSERT OR REPLACE INTO replay_attribution (chain_pk, block_index, probe_id, executor_target, seq, written_replay_id, written_trial_id, exact_replay_id,
			memory_variant, memory_content_hash, repetition, evidence_id, case_id, condition_id, writer_target, request_authorized, memory_formed, formation_estimable, estimable,
			authorized_use, exact_authorized_use, unauthorized_submission, exact_unauthorized_submission, attributed, reasons_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			g.chain, g.block, g.probe, g.executor, wa.pk, optText(wa.replayID), optText(wa.trialID), x.replayID, wa.variant, wa.hash, wa.rep, row.EvidenceID, row.CaseID, row.ConditionID,
			nullStr(row.WriterTarget), b2i(row.RequestAuthorized), b2i(row.MemoryFormed), b2i(row.FormationEstimable), b2i(row.Estimable), b2i(row.AuthorizedUse),
			b2i(row.ExactAuthorizedUse), b2i(row.UnauthorizedSubmission), b2i(row.ExactUnauthorizedSubmission), b2i(row.Attributed), jsonText(row.Reasons)); err != nil {
			return err
		}
	}
	return nil
}

// importedArms are the imported trials of the group's executor on the chain's memory at the
// block, as written arms with the memory's stored formation verdict; with none, one
// placeholder arm with no response (the row then says missing_written_response).
func (g *armGroup) importedArms() ([]attributionArm, error) {
	w := g.w
	var unscored sql.NullString
	var formed sql.NullInt64
	var hash string
	base := attributionArm{variant: engine.VariantWritten, evidenceID: g.evidenceID}
	if g.writtenMemory == "" {
		return []attributionArm{base}, nil
	}
	_ = w.tx.QueryRowContext(w.ctx, `SELECT unscored_reason FROM memory_scores WHERE run_pk = ? AND memory_id = ? AND block_index = ?`, g.runPK, g.writtenMemory, g.block).Scan(&unscored)
	_ = w.tx.QueryRowContext(w.ctx, `SELECT formed FROM formation WHERE run_pk = ? AND memory_id = ? AND block_index = ? AND probe_id = ?`, g.runPK, g.writtenMemory, g.block, g.probe).Scan(&formed)
	_ = w.tx.QueryRowContext(w.ctx, `SELECT content_hash FROM memories WHERE run_pk = ? AND memory_id = ?`, g.runPK, g.writtenMemory).Scan(&hash)
	base.hash, base.estimable, base.formed = hash, !unscored.Valid, formed.Valid && formed.Int64 != 0
	out, err := queryAll(w.ctx, w.tx, func(r rowScanner) (attributionArm, error) {
		a := base
		var auth, taken int
		var pe sql.NullString
		err := r.Scan(&a.pk, &a.trialID, &a.evidenceID, &a.rep, &auth, &taken, &pe)
		a.arm = armOutcome(auth, taken, pe)
		return a, err
	}, `SELECT trial_pk, trial_id, COALESCE(evidence_id, ''), executor_run_id, request_authorized, requested_action_taken, provider_error FROM trials
		WHERE chain_pk = ? AND memory_id = ? AND probe_id = ? AND executor_target = ? AND (oracle_block_index = ? OR (oracle_block_index IS NULL AND ?)) ORDER BY executor_run_id, line`,
		g.chain, g.writtenMemory, g.probe, g.executor, g.block, g.finalBlock)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out = []attributionArm{base}
	}
	return out, nil
}
