package runs

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
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

// parseCorpusFile reads a whole corpus held in memory (a built-in corpus): a line corpus case
// by case, else a document corpus (engine.CaseFileWriter domains) at once.
func parseCorpusFile(name string, data []byte) (engine.Domain, []*engine.Case, error) {
	var dom engine.Domain
	var cases []*engine.Case
	err := eachCorpusCase(name, bytes.NewReader(data), func(d engine.Domain, c *engine.Case, _ []byte) error {
		dom = d
		cases = append(cases, c)
		return nil
	})
	if errors.Is(err, errNotLineCorpus) {
		return parseCorpusDocument(name, data)
	}
	return dom, cases, err
}

// parseCorpusDocument finds the domain whose reader accepts the whole file. With one domain
// its strict error (file, line, case, field) is returned as is.
func parseCorpusDocument(name string, data []byte) (engine.Domain, []*engine.Case, error) {
	if err := rundir.CheckUTF8(name, 1, data); err != nil {
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

// errNotLineCorpus says no domain reads a corpus's first line as one case: the file is a
// document corpus (or broken, which reading it whole then reports).
var errNotLineCorpus = errors.New("not a corpus of one case per line")

// eachCorpusCase reads a line corpus one line at a time, holding one case: each non-blank
// line is a case of the domain whose reader accepts the first one. Lines must be valid UTF-8
// and within rundir.MaxLineBytes; a case id may appear once. fn gets each case with its line's
// bytes (valid only during the call). It fails with errNotLineCorpus when no domain reads the
// first line, and an empty corpus is an error.
func eachCorpusCase(name string, r io.Reader, fn func(d engine.Domain, c *engine.Case, line []byte) error) error {
	lr := rundir.NewLineReader(r, name)
	var d engine.Domain
	seen := map[string]int{}
	for {
		line, lineNo, ok, err := lr.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := rundir.CheckUTF8(name, lineNo, line); err != nil {
			return err
		}
		var c *engine.Case
		if d == nil {
			if d, c = firstCase(name, lineNo, line); d == nil {
				return errNotLineCorpus
			}
		} else if c, err = parseCaseLine(d, name, lineNo, line); err != nil {
			return err
		}
		if prev, dup := seen[c.ID]; dup {
			return fmt.Errorf("%s:%d: case %s: field case_id: duplicate of line %d", name, lineNo, c.ID, prev)
		}
		seen[c.ID] = lineNo
		if err := fn(d, c, line); err != nil {
			return err
		}
	}
	if d == nil {
		return fmt.Errorf("%s: no cases", name)
	}
	return nil
}

// firstCase finds the line-corpus domain whose reader accepts a corpus's first case (nil when
// none does).
func firstCase(name string, lineNo int, line []byte) (engine.Domain, *engine.Case) {
	for _, id := range domains.IDs() {
		d, _ := domains.Get(id)
		if _, document := d.(engine.CaseFileWriter); document {
			continue
		}
		if c, err := parseCaseLine(d, name, lineNo, line); err == nil {
			return d, c
		}
	}
	return nil, nil
}

// parseCaseLine reads one corpus line with the domain's strict corpus reader. The reader sees
// a one-line file, so its errors say line 1: they are renumbered to the line's real number.
func parseCaseLine(d engine.CorpusReader, name string, lineNo int, line []byte) (*engine.Case, error) {
	cases, err := d.ParseCorpus(name, line)
	if err != nil {
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, name+":1:"); ok {
			return nil, fmt.Errorf("%s:%d:%s", name, lineNo, rest)
		}
		return nil, err
	}
	if len(cases) != 1 {
		return nil, fmt.Errorf("%s:%d: expected one case on the line, the reader found %d", name, lineNo, len(cases))
	}
	c := cases[0]
	c.Line = lineNo
	return c, nil
}

// corpusVersionImport is one corpus version of a file being imported.
type corpusVersionImport struct {
	res      CorpusResult
	corpusPK int64
	// before says the same file was imported before: its cases are counted, not stored.
	before bool
}

// corpusImport collects, version by version, what importing one corpus file stored.
type corpusImport struct {
	s               *Store
	w               *txWriter
	source, fileSHA string
	versions        map[string]*corpusVersionImport
}

// importCorpus stores every case of a corpus file with its blocks, turns, ledger events, ledger
// snapshot at every block, probes and oracle verdicts at every block. A line corpus is read
// once, one case at a time; a document corpus (readAll gives its bytes) is parsed whole and each
// case stored as a one-case document. A case already in the workspace with the same content is
// skipped; with different content it is an error (two corpora disagreeing about one case id
// would make every run over it ambiguous). fileSHA is the file's sha256 (a file imported before
// is recognised by it).
func (s *Store) importCorpus(w *txWriter, source, fileSHA string, r io.Reader, readAll func() ([]byte, error)) ([]CorpusResult, error) {
	ci := &corpusImport{s: s, w: w, source: source, fileSHA: fileSHA, versions: map[string]*corpusVersionImport{}}
	err := eachCorpusCase(source, r, func(d engine.Domain, c *engine.Case, line []byte) error {
		return ci.store(d, c, line)
	})
	if errors.Is(err, errNotLineCorpus) {
		data, rerr := readAll()
		if rerr != nil {
			return nil, rerr
		}
		err = ci.storeDocument(data)
	}
	if err != nil {
		return nil, err
	}
	return ci.finish()
}

// storeDocument stores the cases of a document corpus.
func (ci *corpusImport) storeDocument(data []byte) error {
	d, cases, err := parseCorpusDocument(ci.source, data)
	if err != nil {
		return err
	}
	lines := newLineIndex(data)
	for _, c := range cases {
		text := lines.caseLine(c.Line)
		if cw, ok := d.(engine.CaseFileWriter); ok {
			if text, err = cw.CaseFile(c); err != nil {
				return fmt.Errorf("%s:%d: case %s: %w", ci.source, c.Line, c.ID, err)
			}
		}
		if err := ci.store(d, c, text); err != nil {
			return err
		}
	}
	return nil
}

// store stores one case (text is what the workspace keeps of it).
func (ci *corpusImport) store(d engine.Domain, c *engine.Case, text []byte) error {
	w := ci.w
	v := ci.versions[c.CorpusVersion]
	if v == nil {
		var err error
		if v, err = ci.s.beginCorpusVersion(w, d, ci.source, ci.fileSHA, c.CorpusVersion); err != nil {
			return err
		}
		ci.versions[c.CorpusVersion] = v
	}
	v.res.Cases++
	if v.before {
		return nil
	}
	hash := pyjson.SHA256Hex(text)
	var existing string
	err := w.tx.QueryRowContext(w.ctx, `SELECT content_hash FROM cases WHERE domain_id=? AND corpus_version=? AND case_id=?`, d.ID(), c.CorpusVersion, c.ID).Scan(&existing)
	switch {
	case err == nil && existing == hash:
		return nil
	case err == nil:
		return fmt.Errorf("%s:%d: case %s: field case_id: the workspace already holds a different case %s in corpus %s/%s", ci.source, c.Line, c.ID, c.ID, d.ID(), c.CorpusVersion)
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	if err := insertCase(w, d, v.corpusPK, c, string(text), hash); err != nil {
		return fmt.Errorf("%s:%d: case %s: %w", ci.source, c.Line, c.ID, err)
	}
	v.res.New++
	return nil
}

// finish sets each new version's case count and reports the versions in order.
func (ci *corpusImport) finish() ([]CorpusResult, error) {
	names := make([]string, 0, len(ci.versions))
	for name := range ci.versions {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]CorpusResult, 0, len(names))
	for _, name := range names {
		v := ci.versions[name]
		if !v.before {
			if _, err := ci.w.exec("", `UPDATE corpora SET case_count=? WHERE corpus_pk=?`, v.res.Cases, v.corpusPK); err != nil {
				return nil, err
			}
		}
		out = append(out, v.res)
	}
	return out, nil
}

// lineIndex finds the lines of a file by number in one pass over it.
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

// caseLine is the raw text of the line (without its line end), nil when there is none.
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

// beginCorpusVersion finds or creates the corpora row of one version of a file (its case
// count is set once the file has been read).
func (s *Store) beginCorpusVersion(w *txWriter, d engine.DomainIdentity, source, fileSHA, version string) (*corpusVersionImport, error) {
	v := &corpusVersionImport{res: CorpusResult{CorpusRef: CorpusRef{DomainID: d.ID(), CorpusVersion: version}, Source: source}}
	err := w.tx.QueryRowContext(w.ctx, `SELECT corpus_pk FROM corpora WHERE domain_id=? AND corpus_version=? AND sha256=?`, d.ID(), version, fileSHA).Scan(&v.corpusPK)
	if err == nil {
		v.before = true
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	v.corpusPK, err = w.insertID("corpora", `INSERT INTO corpora (domain_id, corpus_version, source, sha256, case_count, imported_at) VALUES (?,?,?,?,?,?)`,
		d.ID(), version, source, fileSHA, 0, s.stamp())
	return v, err
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
	if _, err := s.importCorpus(w, name, pyjson.SHA256Hex(data), bytes.NewReader(data), func() ([]byte, error) { return data, nil }); err != nil {
		return false, err
	}
	return true, nil
}

// loadCases parses the stored cases of the given ids. With version "" a case id matches in any
// corpus version of the domain when it is unique there.
func loadCases(w *txWriter, d engine.Domain, version string, ids []string) (*caseSet, error) {
	set := &caseSet{domain: d, cases: map[string]*engine.Case{}, pks: map[string]int64{}}
	for _, id := range ids {
		query, args := `SELECT case_pk, case_json, line, corpus_version FROM cases WHERE domain_id=? AND case_id=?`, []any{d.ID(), id}
		if version != "" {
			query, args = `SELECT case_pk, case_json, line, corpus_version FROM cases WHERE domain_id=? AND corpus_version=? AND case_id=?`, []any{d.ID(), version, id}
		}
		type hit struct {
			pk   int64
			text string
			line int
			ver  string
		}
		hits, err := queryAll(w.ctx, w.tx, func(r rowScanner) (hit, error) {
			var h hit
			err := r.Scan(&h.pk, &h.text, &h.line, &h.ver)
			return h, err
		}, query, args...)
		if err != nil {
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
