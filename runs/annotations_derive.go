package runs

// Re-derivation after a label change: the facts import derived from a free-text memory
// (scores at every block it was scored at, the chain blocks where it is current, the chain's
// first false-authority block, cited turns and flags, and the attribution of trials on it)
// are recomputed in the label's transaction, with the same deriver code import uses.

import (
	"database/sql"
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/derive"
	"github.com/ealscope/ealscope/runs/rundir"
)

// rederiveMemory recomputes, inside w's transaction, everything that depends on one free-text
// memory's annotation outcome, in every run holding it.
func (s *Store) rederiveMemory(w *txWriter, memoryID string) error {
	type hit struct {
		runPK, chainPK      int64
		block               int
		hash, payload       string
		caseID, chainReason string
		casePK              sql.NullInt64
		domainID            string
	}
	hits, err := queryAll(w.ctx, w.tx, func(r rowScanner) (hit, error) {
		var h hit
		err := r.Scan(&h.runPK, &h.chainPK, &h.block, &h.hash, &h.payload, &h.caseID, &h.casePK, &h.chainReason, &h.domainID)
		return h, err
	}, `SELECT m.run_pk, m.chain_pk, m.block_index, m.content_hash, m.payload_json, c.case_id, c.case_pk, c.unscored_reason, r.domain_id
		FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk WHERE m.memory_id = ? AND m.architecture = `+sqlFreeText+``, memoryID)
	if err != nil {
		return err
	}
	for _, h := range hits {
		d, derr := domains.Get(h.domainID)
		if derr != nil {
			d = nil
		}
		var c *engine.Case
		if d != nil && h.casePK.Valid {
			if c, err = storedCase(w, d, h.casePK.Int64); err != nil {
				return err
			}
		}
		payload, err := pyjson.DecodeTree([]byte(h.payload))
		if err != nil {
			return fmt.Errorf("memory %s: stored payload: %w", memoryID, err)
		}
		chain := &chainAcc{key: chainKey{caseID: h.caseID}, pk: h.chainPK, c: c, casePK: h.casePK.Int64}
		mr := &memRec{id: memoryID, block: h.block, arch: engine.ArchFreeText, hash: h.hash, payload: payload, chain: chain}
		dv := &deriver{w: w, runPK: h.runPK, d: d, missingReason: h.chainReason, scores: map[scoreKey]*memScore{}, ledgers: derive.NewLedgers(d)}
		if err := dv.rescoreMemory(mr); err != nil {
			return fmt.Errorf("memory %s: %w", memoryID, err)
		}
	}
	return nil
}

// storedCase parses one stored case.
func storedCase(w *txWriter, d engine.Domain, casePK int64) (*engine.Case, error) {
	var text, version string
	var line int
	if err := w.tx.QueryRowContext(w.ctx, `SELECT case_json, line, corpus_version FROM cases WHERE case_pk = ?`, casePK).Scan(&text, &line, &version); err != nil {
		return nil, err
	}
	cases, err := d.ParseCorpus("workspace:"+d.ID()+"/"+version, []byte(text))
	if err != nil || len(cases) != 1 {
		return nil, fmt.Errorf("stored case %d no longer parses: %v", casePK, err)
	}
	cases[0].Line = line
	return cases[0], nil
}

// rescoreMemory replaces a memory's scores at every block it was scored at, then refreshes
// the chain blocks, the chain and the attribution rows that read them.
func (dv *deriver) rescoreMemory(mr *memRec) error {
	w := dv.w
	blocks, err := queryAll(w.ctx, w.tx, scanOne[int], `SELECT block_index FROM memory_scores WHERE run_pk = ? AND memory_id = ? ORDER BY block_index`, dv.runPK, mr.id)
	if err != nil {
		return err
	}
	for _, table := range []string{"fidelity_rows", "formation", "memory_scores"} {
		if _, err := w.exec("", `DELETE FROM `+table+` WHERE run_pk = ? AND memory_id = ?`, dv.runPK, mr.id); err != nil {
			return err
		}
	}
	for _, b := range blocks {
		sc, err := dv.score(mr, b)
		if err != nil {
			return err
		}
		if _, err := w.exec("", `UPDATE chain_blocks SET exact=?, exact_fields=?, overgrant_fields=?, undergrant_fields=?, forms_false_authority=?, formed_probe_ids_json=?, scored_from=?, unscored_reason=?
			WHERE chain_pk = ? AND block_index = ? AND memory_id = ?`,
			nullBool(sc.exact), sc.exactFields, sc.over, sc.under, nullBool(sc.forms), jsonText(sc.formed), sc.scoredFrom, nullStr(sc.unscored), mr.chain.pk, b, mr.id); err != nil {
			return err
		}
	}
	if err := dv.refreshChain(mr.chain); err != nil {
		return err
	}
	return dv.reattribute(mr)
}

// refreshChain recomputes a chain's first false-authority block, its cited turns and its
// flags from its stored chain blocks, as deriveChain does at import.
func (dv *deriver) refreshChain(c *chainAcc) error {
	w := dv.w
	var bfs []engine.BlockFormation
	memAt := map[int]string{}
	var formedFinal *bool
	err := eachRow(w.ctx, w.tx, func(r rowScanner) error {
		var k int
		var mem, unscored sql.NullString
		var forms sql.NullInt64
		if err := r.Scan(&k, &mem, &forms, &unscored); err != nil {
			return err
		}
		formedFinal = nil
		if mem.Valid {
			memAt[k] = mem.String
			bfs = append(bfs, engine.BlockFormation{BlockIndex: k, Estimable: !unscored.Valid, Formed: forms.Valid && forms.Int64 != 0})
			formedFinal = boolPtr(forms)
		}
		return nil
	}, `SELECT block_index, memory_id, forms_false_authority, unscored_reason FROM chain_blocks WHERE chain_pk = ? ORDER BY block_index`, c.pk)
	if err != nil {
		return err
	}
	ffa, found := engine.FirstFalseAuthorityBlock(bfs)
	cited := []string{}
	var ffaVal any
	flag := -1
	if found {
		ffaVal, flag = ffa, ffa
		if c.c != nil {
			mr, err := dv.storedMemory(memAt[ffa], c)
			if err != nil {
				return err
			}
			cited = citedTurns(dv.citable(mr), c.c, ffa)
		}
	}
	if _, err := w.exec("", `UPDATE chain_blocks SET first_false_authority = (block_index = ?) WHERE chain_pk = ?`, flag, c.pk); err != nil {
		return err
	}
	needs := 0
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM memories m JOIN memory_scores ms ON ms.run_pk = m.run_pk AND ms.memory_id = m.memory_id AND ms.block_index = m.block_index
		WHERE m.chain_pk = ? AND ms.unscored_reason IS NOT NULL AND (ms.unscored_reason = ? OR ms.unscored_reason LIKE ? OR ms.unscored_reason IN (?, ?))`,
		c.pk, ReasonMissingAnnot, annotations.ReasonAnnotationNotAccepted+":%", annotations.ReasonAnnotationHashMismatch, annotations.ReasonConflictingAnnotations).Scan(&needs); err != nil {
		return err
	}
	_, err = w.exec("", `UPDATE chains SET first_false_authority_block = ?, ffa_cited_turns_json = ?, formed_final = ?, needs_annotation = ? WHERE chain_pk = ?`,
		ffaVal, jsonText(cited), nullBool(formedFinal), b2i(needs > 0), c.pk)
	return err
}

// storedMemory rebuilds a memory record of a chain from its stored row.
func (dv *deriver) storedMemory(memoryID string, c *chainAcc) (*memRec, error) {
	var arch, hash, payload string
	var block int
	if err := dv.w.tx.QueryRowContext(dv.w.ctx, `SELECT architecture, content_hash, payload_json, block_index FROM memories WHERE run_pk = ? AND memory_id = ?`, dv.runPK, memoryID).
		Scan(&arch, &hash, &payload, &block); err != nil {
		return nil, fmt.Errorf("memory %s: %w", memoryID, err)
	}
	tree, err := pyjson.DecodeTree([]byte(payload))
	if err != nil {
		return nil, fmt.Errorf("memory %s: stored payload: %w", memoryID, err)
	}
	return &memRec{id: memoryID, arch: arch, hash: hash, payload: tree, block: block, chain: c}, nil
}

// reattribute recomputes the attribution rows of the trials run on this memory: formation
// (and whether it is estimable) is what an annotation changes.
func (dv *deriver) reattribute(mr *memRec) error {
	w := dv.w
	type arow struct {
		trialPK                                  int64
		exactPK                                  sql.NullInt64
		requestAuthorized                        int
		evidenceID, caseID, probeID, conditionID string
		writer                                   sql.NullString
		oracleBlock                              sql.NullInt64
		trialRow                                 rawCols
		trialLine                                int
		chainPK                                  int64
	}
	list, err := queryAll(w.ctx, w.tx, func(r rowScanner) (arow, error) {
		var a arow
		err := r.Scan(append([]any{&a.trialPK, &a.exactPK, &a.requestAuthorized, &a.evidenceID, &a.caseID, &a.probeID, &a.conditionID, &a.writer, &a.oracleBlock, &a.chainPK, &a.trialLine}, a.trialRow.dest()...)...)
		return a, err
	}, `SELECT a.trial_pk, a.exact_trial_pk, a.request_authorized, a.evidence_id, a.case_id, a.probe_id, a.condition_id, a.writer_target, t.oracle_block_index, a.chain_pk, t.line, `+rawSelect("t")+`
		FROM attribution a JOIN trials t ON t.trial_pk = a.trial_pk WHERE t.run_pk = ? AND t.memory_id = ?`, dv.runPK, mr.id)
	if err != nil {
		return err
	}
	chains := map[int64]bool{}
	rr := newRowReader(w.tx)
	for _, a := range list {
		block := -1
		if mr.chain.c != nil {
			block = mr.chain.c.LastBlock()
		}
		if a.oracleBlock.Valid {
			block = int(a.oracleBlock.Int64)
		}
		sc, err := dv.score(mr, block)
		if err != nil {
			return err
		}
		trialRow, err := rr.text(w.ctx, &a.trialRow, "trials.jsonl line "+itoa(a.trialLine))
		if err != nil {
			return err
		}
		written, err := storedArm(trialRow)
		if err != nil {
			return fmt.Errorf("trial %d: %w", a.trialPK, err)
		}
		ra := a.requestAuthorized != 0
		in := engine.AttributionInput{EvidenceID: a.evidenceID, CaseID: a.caseID, ProbeID: a.probeID, ConditionID: a.conditionID, WriterTarget: a.writer.String,
			Written: written, FormationEstimable: sc.estimable(), RequestAuthorized: &ra}
		for _, id := range sc.formed {
			if id == a.probeID {
				in.MemoryFormed = true
			}
		}
		if a.exactPK.Valid {
			var exact rawCols
			var exactLine int
			if err := w.tx.QueryRowContext(w.ctx, `SELECT line, `+rawSelect("trials")+` FROM trials WHERE trial_pk = ?`, a.exactPK.Int64).Scan(append([]any{&exactLine}, exact.dest()...)...); err != nil {
				return err
			}
			exactRow, err := rr.text(w.ctx, &exact, "trials.jsonl line "+itoa(exactLine))
			if err != nil {
				return err
			}
			if in.Exact, err = storedArm(exactRow); err != nil {
				return fmt.Errorf("trial %d: %w", a.exactPK.Int64, err)
			}
		}
		row := engine.Attribute(in)
		if _, err := w.exec("", `UPDATE attribution SET memory_formed=?, formation_estimable=?, estimable=?, authorized_use=?, exact_authorized_use=?, unauthorized_submission=?, exact_unauthorized_submission=?, attributed=?, reasons_json=?
			WHERE run_pk = ? AND trial_pk = ?`,
			b2i(row.MemoryFormed), b2i(row.FormationEstimable), b2i(row.Estimable), b2i(row.AuthorizedUse), b2i(row.ExactAuthorizedUse), b2i(row.UnauthorizedSubmission),
			b2i(row.ExactUnauthorizedSubmission), b2i(row.Attributed), jsonText(row.Reasons), dv.runPK, a.trialPK); err != nil {
			return err
		}
		chains[a.chainPK] = true
	}
	for pk := range chains {
		if _, err := w.exec("", `UPDATE chains SET attributed_memory_induced = (SELECT COUNT(*) FROM attribution WHERE chain_pk = ? AND attributed = 1) WHERE chain_pk = ?`, pk, pk); err != nil {
			return err
		}
	}
	return nil
}

func storedArm(rowJSON string) (*engine.ArmOutcome, error) {
	tree, err := pyjson.DecodeTree([]byte(rowJSON))
	if err != nil {
		return nil, err
	}
	m, _ := tree.(map[string]any)
	return armOf(rundir.Row{Tree: m}), nil
}
