package runs

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/domains/multiparty"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Audience sidecars in the workspace (docs/AUDIENCE.md, migration 0160): imported with their
// corpus (a FILE.audience.json beside FILE.jsonl) or with the run that brought one (the run
// directory's "audience" file), checked against the stored cases by the strict reader, and
// read back for the audience-bound safeguard's lab.

// RunAudienceFile is the manifest files.* name of a run's audience sidecar.
const RunAudienceFile = "audience"

// storeSidecar checks a sidecar against the workspace's cases of its corpus and stores it
// (once per content) in w's transaction, returning its key.
func (s *Store) storeSidecar(w *txWriter, source string, data []byte) (int64, error) {
	f, err := audience.Parse(source, data)
	if err != nil {
		return 0, err
	}
	d, err := domains.Get(f.DomainID)
	if err != nil {
		return 0, &audience.Error{File: source, Field: "domain_id", Msg: err.Error()}
	}
	set, err := loadCases(w, d, f.CorpusVersion, f.Order)
	if err != nil {
		return 0, err
	}
	cases := make([]*engine.Case, 0, len(set.cases))
	for _, id := range f.Order {
		if c, ok := set.cases[id]; ok {
			cases = append(cases, c)
		}
	}
	if _, err := audience.Bind(f, d, cases); err != nil {
		return 0, err
	}
	sha := pyjson.SHA256Hex(data)
	var pk int64
	err = w.tx.QueryRowContext(w.ctx, `SELECT sidecar_pk FROM audience_sidecars WHERE domain_id=? AND corpus_version=? AND sha256=?`, f.DomainID, f.CorpusVersion, sha).Scan(&pk)
	if err == nil {
		return pk, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return w.insertID("audience_sidecars", `INSERT INTO audience_sidecars (domain_id, corpus_version, source, sha256, case_count, sidecar_json, imported_at) VALUES (?,?,?,?,?,?,?)`,
		f.DomainID, f.CorpusVersion, source, sha, len(f.Order), string(data), s.stamp())
}

// importCorpusSidecar imports the sidecar beside a corpus file, when there is one.
func (s *Store) importCorpusSidecar(w *txWriter, corpusPath string) error {
	path := multiparty.SidecarName(corpusPath)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	data, err := rundir.ReadRegularFile(path, audience.MaxBytes)
	if err != nil {
		return err
	}
	_, err = s.storeSidecar(w, path, data)
	return err
}

// importRunSidecar stores the sidecar a run directory lists (files.audience) and ties it to
// the run. The file was hashed against the manifest when the run was verified.
func (s *Store) importRunSidecar(w *txWriter, runPK int64, run *rundir.Run) error {
	e, ok := run.Entries[RunAudienceFile]
	if !ok {
		return nil
	}
	path := filepath.Join(run.Dir, filepath.FromSlash(e.Path))
	data, err := rundir.ReadRegularFile(path, audience.MaxBytes)
	if err != nil {
		return err
	}
	if got := pyjson.SHA256Hex(data); got != e.SHA256 {
		return &rundir.VerifyError{File: path, Field: "files.audience.sha256", Msg: fmt.Sprintf("file sha256 is %s but the manifest says %s", got, e.SHA256)}
	}
	pk, err := s.storeSidecar(w, path, data)
	if err != nil {
		return err
	}
	_, err = w.exec("run_audiences", `INSERT INTO run_audiences (run_pk, sidecar_pk) VALUES (?,?)`, runPK, pk)
	return err
}

// ensureMultipartyCorpus imports the domain's built-in multi-party corpus when a run names its
// version and the workspace lacks it.
func (s *Store) ensureMultipartyCorpus(w *txWriter, d engine.Domain, version string) error {
	if version != multiparty.CorpusVersion {
		return nil
	}
	c, err := multiparty.Builtin(d.ID())
	if err != nil {
		return err
	}
	// Generated multi-party corpora share the version: the built-in one is present when its
	// own first case is.
	var n int
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM cases WHERE domain_id=? AND corpus_version=? AND case_id=?`, d.ID(), version, c.Cases[0].ID).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err = s.importCorpus(w, c.Name, pyjson.SHA256Hex(c.Data), bytes.NewReader(c.Data), func() ([]byte, error) { return c.Data, nil })
	return err
}

// RunSidecar is the audience sidecar a run brought, or else the one stored for its corpus
// (the newest); ok is false when there is none.
func (s *Store) RunSidecar(ctx context.Context, runID string) (source string, data []byte, ok bool, err error) {
	var text string
	err = s.db.QueryRowContext(ctx, `SELECT a.source, a.sidecar_json FROM run_audiences ra JOIN runs r ON r.run_pk=ra.run_pk
		JOIN audience_sidecars a ON a.sidecar_pk=ra.sidecar_pk WHERE r.run_id=?`, runID).Scan(&source, &text)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.db.QueryRowContext(ctx, `SELECT a.source, a.sidecar_json FROM runs r JOIN audience_sidecars a
			ON a.domain_id=r.domain_id AND a.corpus_version=r.corpus_version WHERE r.run_id=? ORDER BY a.sidecar_pk DESC LIMIT 1`, runID).Scan(&source, &text)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	return source, []byte(text), true, nil
}
