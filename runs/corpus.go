package runs

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// CorpusRef names a corpus: a domain and a corpus version (the cases' schema_version).
type CorpusRef struct {
	DomainID      string `json:"domain_id"`
	CorpusVersion string `json:"corpus_version"`
}

func (c CorpusRef) String() string { return c.DomainID + "/" + c.CorpusVersion }

// CorpusResult reports one imported corpus version.
type CorpusResult struct {
	CorpusRef
	Source string `json:"source"`
	// Cases is how many cases the file holds for this version; New how many were not yet in
	// the workspace.
	Cases int `json:"cases"`
	New   int `json:"new"`
}

// parseCorpusFile finds the domain whose reader accepts the file. With one domain its strict
// error (file, line, case, field) is returned as is.
func parseCorpusFile(name string, data []byte) (engine.Domain, []*engine.Case, error) {
	if err := rundir.CheckUTF8(name, 1, data); err != nil {
		return nil, nil, err
	}
	if err := checkLineLengths(name, data); err != nil {
		return nil, nil, err
	}
	var errs []string
	ids := domains.IDs()
	for _, id := range ids {
		d, _ := domains.Get(id)
		cases, err := d.ParseCorpus(name, data)
		if err == nil {
			return d, cases, nil
		}
		if len(ids) == 1 {
			return nil, nil, err
		}
		errs = append(errs, id+": "+err.Error())
	}
	return nil, nil, fmt.Errorf("%s: no domain reads this corpus:\n  %s", name, strings.Join(errs, "\n  "))
}

// checkLineLengths refuses a corpus line past rundir.MaxLineBytes, as for run artifacts.
func checkLineLengths(name string, data []byte) error {
	for line := 1; len(data) > 0; line++ {
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		if n > rundir.MaxLineBytes {
			return &rundir.LimitError{File: name, Line: line, What: "line", Limit: rundir.MaxLineBytes}
		}
		data = data[min(n+1, len(data)):]
	}
	return nil
}

// lineIndex finds the lines of a corpus file by number in one pass over it (the cases are in
// line order, so finding each one by splitting the file again would be quadratic).
type lineIndex struct {
	data   []byte
	starts []int // byte offset of each line's start; line n starts at starts[n-1]
}

func newLineIndex(data []byte) *lineIndex {
	x := &lineIndex{data: data, starts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			x.starts = append(x.starts, i+1)
		}
	}
	return x
}

// caseLine is the raw text of the case at its 1-based line, which is what the workspace stores:
// re-reading it with the domain's parser gives back the same case.
func (x *lineIndex) caseLine(line int) []byte {
	if line < 1 || line > len(x.starts) {
		return nil
	}
	end := len(x.data)
	if line < len(x.starts) {
		end = x.starts[line] - 1
	}
	return bytes.TrimRight(x.data[x.starts[line-1]:end], "\r")
}

// importCorpus stores every case of a corpus file with its blocks, turns, ledger events, ledger
// snapshot at every block, probes and oracle verdicts at every block. A case already in the
// workspace with the same content is skipped; with different content it is an error (two
// corpora disagreeing about one case id would make every run over it ambiguous).
func (s *Store) importCorpus(w *txWriter, source string, data []byte) ([]CorpusResult, error) {
	d, cases, err := parseCorpusFile(source, data)
	if err != nil {
		return nil, err
	}
	byVersion := map[string][]*engine.Case{}
	for _, c := range cases {
		byVersion[c.CorpusVersion] = append(byVersion[c.CorpusVersion], c)
	}
	versions := make([]string, 0, len(byVersion))
	for v := range byVersion {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	fileSHA := pyjson.SHA256Hex(data)
	lines := newLineIndex(data)
	var out []CorpusResult
	for _, version := range versions {
		res := CorpusResult{CorpusRef: CorpusRef{DomainID: d.ID(), CorpusVersion: version}, Source: source, Cases: len(byVersion[version])}
		var corpusPK int64
		err := w.tx.QueryRowContext(w.ctx, `SELECT corpus_pk FROM corpora WHERE domain_id=? AND corpus_version=? AND sha256=?`, d.ID(), version, fileSHA).Scan(&corpusPK)
		if err == nil {
			out = append(out, res) // the same file was imported before
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		corpusPK, err = w.insertID("corpora", `INSERT INTO corpora (domain_id, corpus_version, source, sha256, case_count, imported_at) VALUES (?,?,?,?,?,?)`,
			d.ID(), version, source, fileSHA, res.Cases, s.stamp())
		if err != nil {
			return nil, err
		}
		for _, c := range byVersion[version] {
			line := lines.caseLine(c.Line)
			hash := pyjson.SHA256Hex(line)
			var existing string
			err := w.tx.QueryRowContext(w.ctx, `SELECT content_hash FROM cases WHERE domain_id=? AND corpus_version=? AND case_id=?`, d.ID(), version, c.ID).Scan(&existing)
			switch {
			case err == nil && existing == hash:
				continue
			case err == nil:
				return nil, fmt.Errorf("%s:%d: case %s: field case_id: the workspace already holds a different case %s in corpus %s/%s", source, c.Line, c.ID, c.ID, d.ID(), version)
			case !errors.Is(err, sql.ErrNoRows):
				return nil, err
			}
			if err := insertCase(w, d, corpusPK, c, string(line), hash); err != nil {
				return nil, fmt.Errorf("%s:%d: case %s: %w", source, c.Line, c.ID, err)
			}
			res.New++
		}
		out = append(out, res)
	}
	return out, nil
}

func insertCase(w *txWriter, d engine.Domain, corpusPK int64, c *engine.Case, line, hash string) error {
	casePK, err := w.insertID("cases", `INSERT INTO cases (corpus_pk, domain_id, corpus_version, case_id, line, content_hash, case_json, policy, lifecycle, block_count, probe_count) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		corpusPK, d.ID(), c.CorpusVersion, c.ID, c.Line, hash, line, c.Policy, c.Lifecycle, len(c.Blocks), len(c.Probes))
	if err != nil {
		return err
	}
	cited := map[string]bool{}
	for seq, e := range c.Events {
		for _, t := range e.SourceTurnIDs {
			cited[t] = true
		}
		ids := e.SourceTurnIDs
		if ids == nil {
			ids = []string{}
		}
		if _, err := w.exec("ledger_events", `INSERT INTO ledger_events (case_pk, seq, event_id, event_type, block_index, issuer, effective_at, authorization_id, new_authorization_id, source_turn_ids_json, detail_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
			casePK, seq, e.ID, e.Type, e.BlockIndex, e.Issuer, e.EffectiveAt, e.AuthorizationID, e.NewAuthorizationID, jsonText(ids), jsonText(e.Detail)); err != nil {
			return err
		}
	}
	for _, b := range c.Blocks {
		if _, err := w.exec("blocks", `INSERT INTO blocks (case_pk, block_index, block_id, title, ended_at, turn_count) VALUES (?,?,?,?,?,?)`,
			casePK, b.Index, b.ID, b.Title, b.EndedAt, len(b.Turns)); err != nil {
			return err
		}
		for seq, t := range b.Turns {
			turnPK, err := w.insertID("turns", `INSERT INTO turns (case_pk, block_index, seq, turn_id, actor_id, speaker, content, occurred_at, cited_by_ledger) VALUES (?,?,?,?,?,?,?,?,?)`,
				casePK, b.Index, seq, t.ID, t.ActorID, t.Speaker, t.Content, t.OccurredAt, b2i(cited[t.ID]))
			if err != nil {
				return err
			}
			if _, err := w.exec("turns_fts", `INSERT INTO turns_fts (rowid, content, speaker) VALUES (?,?,?)`, turnPK, t.Content, t.Speaker); err != nil {
				return err
			}
		}
	}
	for seq, p := range c.Probes {
		if _, err := w.exec("probes", `INSERT INTO probes (case_pk, probe_id, seq, pair_id, dimension, request_scope, request_json) VALUES (?,?,?,?,?,?,?)`,
			casePK, p.ID, seq, p.PairID, p.Dimension, p.Scope, jsonText(p.Request)); err != nil {
			return err
		}
	}
	for _, b := range c.Blocks {
		ledger, err := d.Replay(c, b.Index)
		if err != nil {
			return fmt.Errorf("ledger replay through block %d: %w", b.Index, err)
		}
		active := 0
		for _, r := range ledger {
			if r.Status() == "active" {
				active++
			}
		}
		if _, err := w.exec("ledger_snapshots", `INSERT INTO ledger_snapshots (case_pk, block_index, state_json, record_count, active_count) VALUES (?,?,?,?,?)`,
			casePK, b.Index, jsonText(d.TypedPayload(ledger)), len(ledger), active); err != nil {
			return err
		}
		for _, p := range c.Probes {
			v := engine.Authorizes(d, c, ledger, p.Request)
			if _, err := w.exec("probe_verdicts", `INSERT INTO probe_verdicts (case_pk, block_index, probe_id, authorized, reason) VALUES (?,?,?,?,?)`,
				casePK, b.Index, p.ID, b2i(v.Authorized), v.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}

// caseSet is the cases of the workspace a run or a writer-memories file resolved, keyed by
// case id, with the primary keys of their rows.
type caseSet struct {
	domain engine.Domain
	cases  map[string]*engine.Case
	pks    map[string]int64
}

// ensureCorpus makes the cases of (domain, version) available: already in the workspace, or
// the domain's built-in corpus when its version matches (imported in the same transaction).
// It reports whether any case of that corpus exists afterwards.
func (s *Store) ensureCorpus(w *txWriter, d engine.Domain, version string) (bool, error) {
	var n int
	q := `SELECT COUNT(*) FROM cases WHERE domain_id=? AND corpus_version=?`
	if err := w.tx.QueryRowContext(w.ctx, q, d.ID(), version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return true, nil
	}
	name, data := d.BuiltinCorpus()
	if len(data) == 0 {
		return false, nil
	}
	_, cases, err := parseCorpusFile(name, data)
	if err != nil || len(cases) == 0 || cases[0].CorpusVersion != version {
		return false, nil
	}
	if _, err := s.importCorpus(w, name, data); err != nil {
		return false, err
	}
	return true, nil
}

// loadCases parses the stored cases of the given ids. With version "" a case id matches in any
// corpus version of the domain when it is unique there.
func loadCases(w *txWriter, d engine.Domain, version string, ids []string) (*caseSet, error) {
	set := &caseSet{domain: d, cases: map[string]*engine.Case{}, pks: map[string]int64{}}
	for _, id := range ids {
		var rows *sql.Rows
		var err error
		if version != "" {
			rows, err = w.tx.QueryContext(w.ctx, `SELECT case_pk, case_json, line, corpus_version FROM cases WHERE domain_id=? AND corpus_version=? AND case_id=?`, d.ID(), version, id)
		} else {
			rows, err = w.tx.QueryContext(w.ctx, `SELECT case_pk, case_json, line, corpus_version FROM cases WHERE domain_id=? AND case_id=?`, d.ID(), id)
		}
		if err != nil {
			return nil, err
		}
		type hit struct {
			pk   int64
			text string
			line int
			ver  string
		}
		var hits []hit
		for rows.Next() {
			var h hit
			if err := rows.Scan(&h.pk, &h.text, &h.line, &h.ver); err != nil {
				rows.Close()
				return nil, err
			}
			hits = append(hits, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(hits) != 1 {
			continue
		}
		h := hits[0]
		cases, err := d.ParseCorpus("workspace:"+d.ID()+"/"+h.ver, []byte(h.text))
		if err != nil {
			return nil, fmt.Errorf("stored case %s no longer parses: %w", id, err)
		}
		c := cases[0]
		c.Line = h.line
		set.cases[id] = c
		set.pks[id] = h.pk
	}
	return set, nil
}
