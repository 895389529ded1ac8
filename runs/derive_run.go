package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/derive"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Derivation from stored rows. A run's facts (scores, fidelity, formation, chain timelines and
// first false-authority blocks, re-scores, attribution) are computed one case at a time from
// the rows import stored: the case's chains are read back, derived and dropped before the next
// case, so memory follows the largest case. The same code derives a run at import and again
// when the corpus it was waiting for arrives later (rederiveWaiting).

// derivedRun is what deriving a run found.
type derivedRun struct {
	missing       []CorpusRef
	disagreements int
	notes         []string
}

// chainHead is a stored chain's key.
type chainHead struct {
	pk  int64
	key chainKey
}

// deriveRun derives every fact of a stored run whose derived tables are empty (a fresh import,
// or after clearDerived), inside w's transaction, and records on the run which corpus it still
// lacks.
func (s *Store) deriveRun(w *txWriter, runPK int64, domainID, corpusVersion string) (derivedRun, error) {
	var out derivedRun
	d, derr := domains.Get(domainID)
	missingReason := ""
	ref := CorpusRef{DomainID: domainID, CorpusVersion: corpusVersion}
	if ref.CorpusVersion == "" {
		ref.CorpusVersion = "unknown"
	}
	if derr != nil {
		d = nil
		missingReason = "unsupported_domain:" + domainID
		out.notes = append(out.notes, fmt.Sprintf("domain %s is not supported by this ealscope: rows are stored, ledger-dependent facts are not derived", domainID))
	}
	heads, err := storedChains(w, runPK)
	if err != nil {
		return out, err
	}
	// Attribution needs exact arms; a run with none anywhere gets no attribution rows.
	var hasExact bool
	if err := w.tx.QueryRowContext(w.ctx, `SELECT EXISTS (SELECT 1 FROM chains c JOIN trials t ON t.chain_pk = c.chain_pk WHERE c.run_pk = ? AND c.condition_id IN (?, ?))`,
		runPK, engine.ExactRepairCondition, engine.FaithfulTypedCondition).Scan(&hasExact); err != nil {
		return out, err
	}
	cases, missingCases := 0, 0
	for i := 0; i < len(heads); {
		j := i
		for j < len(heads) && heads[j].key.caseID == heads[i].key.caseID {
			j++
		}
		caseID := heads[i].key.caseID
		cases++
		var c *engine.Case
		var casePK int64
		reason := missingReason
		if d != nil {
			cs, err := loadCases(w, d, corpusVersion, []string{caseID})
			if err != nil {
				return out, err
			}
			c, casePK = cs.cases[caseID], cs.pks[caseID]
			if c == nil {
				missingCases++
				reason = "missing_corpus:" + ref.String()
			}
		}
		dv := &deriver{w: w, runPK: runPK, d: d, missingReason: reason, scores: map[scoreKey]*memScore{}, ledgers: derive.NewLedgers(d)}
		chains := make([]*chainAcc, 0, j-i)
		for _, h := range heads[i:j] {
			ch, err := loadChain(w, h, c, casePK)
			if err != nil {
				return out, err
			}
			chains = append(chains, ch)
		}
		for _, ch := range chains {
			for _, t := range ch.trials {
				if err := dv.rescore(ch, t); err != nil {
					return out, err
				}
			}
		}
		for _, ch := range chains {
			if err := dv.deriveChain(ch); err != nil {
				return out, fmt.Errorf("chain %s/%s/%s/%d: %w", ch.key.caseID, ch.key.condition, ch.key.writer, ch.key.writerRun, err)
			}
		}
		if hasExact {
			if err := dv.attribute(chains); err != nil {
				return out, err
			}
		}
		out.disagreements += dv.disagreements
		i = j
	}
	if missingCases > 0 {
		out.missing = append(out.missing, ref)
		out.notes = append(out.notes, fmt.Sprintf("corpus %s is not in the workspace (%d of %d cases missing): import it with --corpus FILE; ledger-dependent views of those chains say so",
			ref, missingCases, cases))
	}
	missingJSON := "[]"
	if len(out.missing) > 0 {
		missingJSON = jsonText(out.missing)
	}
	if _, err := w.exec("", `UPDATE runs SET missing_corpora_json=?, rescore_disagreements=? WHERE run_pk=?`, missingJSON, out.disagreements, runPK); err != nil {
		return out, err
	}
	return out, nil
}

// storedChains are a run's chains in key order (so one case's chains are adjacent).
func storedChains(w *txWriter, runPK int64) ([]chainHead, error) {
	return queryAll(w.ctx, w.tx, func(r rowScanner) (chainHead, error) {
		var h chainHead
		err := r.Scan(&h.pk, &h.key.caseID, &h.key.condition, &h.key.writer, &h.key.writerRun)
		return h, err
	}, `SELECT chain_pk, case_id, condition_id, writer_target, writer_run_id FROM chains WHERE run_pk = ? ORDER BY case_id, condition_id, writer_target, writer_run_id`, runPK)
}

// loadChain reads back the rows of one chain that derivation uses, each kind in file order.
func loadChain(w *txWriter, h chainHead, c *engine.Case, casePK int64) (*chainAcc, error) {
	ch := &chainAcc{key: h.key, pk: h.pk, c: c, casePK: casePK}
	if err := w.query(func(rows rowScanner) error {
		mr := &memRec{chain: ch}
		var payload string
		if err := rows.Scan(&mr.id, &mr.block, &mr.arch, &mr.origin, &mr.hash, &payload); err != nil {
			return err
		}
		tree, err := rundir.DecodeValue([]byte(payload))
		if err != nil {
			return fmt.Errorf("memory %s: stored payload: %w", mr.id, err)
		}
		mr.payload = tree
		ch.memories = append(ch.memories, mr)
		return nil
	}, `SELECT memory_id, block_index, architecture, origin, content_hash, payload_json FROM memories WHERE chain_pk = ? ORDER BY line`, h.pk); err != nil {
		return nil, err
	}
	if err := w.query(func(rows rowScanner) error {
		st := &stateRec{}
		var cur sql.NullString
		if err := rows.Scan(&st.block, &st.status, &cur); err != nil {
			return err
		}
		if cur.Valid {
			st.current = &cur.String
		}
		ch.states = append(ch.states, st)
		return nil
	}, `SELECT block_index, status, current_memory_id FROM states WHERE chain_pk = ? ORDER BY line`, h.pk); err != nil {
		return nil, err
	}
	var raws []*rawCols
	if err := w.query(func(rows rowScanner) error {
		t := &trialRec{}
		var mem sql.NullString
		var oracle sql.NullInt64
		raw := &rawCols{}
		if err := rows.Scan(append([]any{&t.pk, &t.row.Line, &t.trialID, &t.probeID, &mem, &t.executor, &t.execRun, &oracle}, raw.dest()...)...); err != nil {
			return err
		}
		if mem.Valid {
			t.memoryID = &mem.String
		}
		if oracle.Valid {
			b := int(oracle.Int64)
			t.oracleBlock = &b
		}
		raws = append(raws, raw)
		ch.trials = append(ch.trials, t)
		return nil
	}, `SELECT trial_pk, line, trial_id, probe_id, memory_id, executor_target, executor_run_id, oracle_block_index, `+rawSelect("trials")+` FROM trials WHERE chain_pk = ? ORDER BY line`, h.pk); err != nil {
		return nil, err
	}
	// The rows' bytes are read once the query is done (a compressed row reads its chunk).
	rr := newRowReader(w)
	for i, t := range ch.trials {
		raw, err := rr.bytes(w.ctx, raws[i], "trials.jsonl line "+itoa(t.row.Line))
		if err != nil {
			return nil, err
		}
		tree, err := rundir.DecodeValue(raw)
		m, ok := tree.(map[string]any)
		if err != nil || !ok {
			return nil, fmt.Errorf("trial %s: stored row does not decode: %v", t.trialID, err)
		}
		t.row.Tree = m
	}
	return ch, nil
}

// clearDerived removes what deriveRun writes for a run, so it can derive again: the chain
// rows and trial rows stay (their keys are what other tables, re-runs included, point at),
// their derived columns are reset.
func clearDerived(w *txWriter, runPK int64) error {
	for _, q := range []string{
		`DELETE FROM chain_blocks WHERE chain_pk IN (SELECT chain_pk FROM chains WHERE run_pk = ?)`,
		`DELETE FROM attribution WHERE run_pk = ?`,
		`DELETE FROM rescore_disagreements WHERE run_pk = ?`,
		`DELETE FROM formation WHERE run_pk = ?`,
		`DELETE FROM fidelity_rows WHERE run_pk = ?`,
		`DELETE FROM memory_scores WHERE run_pk = ?`,
		`UPDATE trials SET rescored_decision = NULL, rescore_status = '` + RescoreMissingCase + `' WHERE run_pk = ?`,
		`UPDATE chains SET attributed_memory_induced = 0 WHERE run_pk = ?`,
	} {
		if _, err := w.exec("", q, runPK); err != nil {
			return err
		}
	}
	return nil
}

// waitingRun is an imported run that lacks a corpus.
type waitingRun struct {
	pk                      int64
	id, domain, corpVersion string
}

// runsWaitingFor lists the runs whose missing corpora include ref. A run that could not say
// which corpus version it used ("unknown") waits for any corpus of its domain, since its
// cases resolve by id across versions.
func (s *Store) runsWaitingFor(w *txWriter, ref CorpusRef) ([]waitingRun, error) {
	var out []waitingRun
	err := eachRow(w.ctx, w.tx, func(row rowScanner) error {
		var r waitingRun
		var missing string
		if err := row.Scan(&r.pk, &r.id, &r.domain, &r.corpVersion, &missing); err != nil {
			return err
		}
		var refs []CorpusRef
		if err := json.Unmarshal([]byte(missing), &refs); err != nil {
			return fmt.Errorf("run %s: missing_corpora_json: %w", r.id, err)
		}
		for _, m := range refs {
			if m.DomainID == ref.DomainID && (m.CorpusVersion == ref.CorpusVersion || m.CorpusVersion == "unknown") {
				out = append(out, r)
				break
			}
		}
		return nil
	}, `SELECT run_pk, run_id, domain_id, corpus_version, missing_corpora_json FROM runs WHERE domain_id = ? AND missing_corpora_json <> '[]' ORDER BY run_id`, ref.DomainID)
	return out, err
}

// rederiveWaiting derives, one transaction per run, every run that was waiting for one of the
// corpora just imported (those that brought new cases), and says so in res.
func (s *Store) rederiveWaiting(ctx context.Context, res *PathResult) error {
	for _, ref := range res.Corpora {
		if ref.New == 0 {
			continue // nothing a waiting run could gain
		}
		var waiting []waitingRun
		if _, err := s.inTx(ctx, func(w *txWriter) error {
			var err error
			waiting, err = s.runsWaitingFor(w, ref.CorpusRef)
			return err
		}); err != nil {
			return err
		}
		derived := 0
		for _, r := range waiting {
			var still []CorpusRef
			rows, err := s.inTx(ctx, func(w *txWriter) error {
				if err := clearDerived(w, r.pk); err != nil {
					return err
				}
				out, err := s.deriveRun(w, r.pk, r.domain, r.corpVersion)
				still = out.missing
				return err
			})
			if err != nil {
				return fmt.Errorf("run %s, waiting for %s: %w", r.id, ref.CorpusRef, err)
			}
			derived++
			res.DerivedRuns = append(res.DerivedRuns, r.id)
			for table, n := range rows {
				res.Rows[table] += n
			}
			if len(still) > 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("run %s still lacks cases of %s after deriving with %s", r.id, still[0], ref.CorpusRef))
			}
		}
		if derived > 0 {
			what := "runs that were"
			if derived == 1 {
				what = "run that was"
			}
			res.Notes = append(res.Notes, fmt.Sprintf("derived %d %s waiting for %s", derived, what, ref.CorpusRef))
		}
	}
	return nil
}
