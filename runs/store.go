// Package runs is ealscope's workspace: one SQLite database (modernc.org/sqlite, pure Go)
// holding imported corpora, verified run directories and the facts derived from them at import
// (ledger snapshots, fidelity, formation, first false-authority blocks, re-scored trials,
// attribution), plus the read-only queries the TUI and the headless commands make. It is the
// only package that opens SQLite.
package runs

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/adrg/xdg"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is an open workspace.
type Store struct {
	db   *sql.DB
	path string
	// now stamps imports; tests may pin it.
	now func() time.Time
	// wait is how writers wait for one another (beginWrite).
	wait writeWaitConfig
}

// DefaultPath is the workspace used when no --db is given: $XDG_DATA_HOME/ealscope/workspace.db.
func DefaultPath() string {
	return filepath.Join(xdg.DataHome, "ealscope", "workspace.db")
}

// workspacePath is the absolute path of the workspace at path (DefaultPath for "").
func workspacePath(path string) (string, error) {
	if path == "" {
		path = DefaultPath()
	}
	return filepath.Abs(path)
}

// Open opens (creating it and its parent directories when needed) the workspace at path and
// applies any pending migration. WAL lets the TUI read while an import writes; foreign keys
// keep derived rows tied to their run; the busy timeout and beginWrite's retries make a
// second process wait for a writer instead of failing.
func Open(path string) (*Store, error) {
	abs, err := workspacePath(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	q := url.Values{}
	// busy_timeout first: the pragmas after it (journal_mode switches a new file to WAL) may
	// meet another process opening the same workspace.
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Every transaction here writes: BEGIN IMMEDIATE takes the write lock up front, waiting
	// out the busy timeout. A deferred one upgraded to write when another process already
	// wrote cannot wait and fails at once with "database is locked".
	q.Add("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, now: time.Now}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	}
	return s, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close checkpoints the write-ahead log into the database file and closes it.
func (s *Store) Close() error {
	_, _ = s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return s.db.Close()
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with a number and '_'", name)
		}
		body, err := fs.ReadFile(migrationFS, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrationCap, set by tests only, stops migrate after that version: a test builds a
// workspace as an older ealscope left it, then opens it with every migration.
var migrationCap int

// migrate applies, in order and each in its own transaction, every embedded migration newer
// than the database's; schema_migrations records what was applied. A database newer than this
// binary is refused rather than guessed at.
func (s *Store) migrate(ctx context.Context) error {
	migs, err := loadMigrations()
	if err != nil {
		return err
	}
	// Reading the version takes no lock, so opening a workspace while another process
	// imports into it does not wait; only a workspace that needs a migration does.
	// Migrations are numbered in reserved ranges, so one may land below the workspace's
	// highest version (a 0161 after a 0190): every embedded migration not yet recorded is
	// applied, not only those above the highest.
	applied, err := s.appliedMigrations(ctx)
	if err != nil || len(applied) < len(migs) {
		if _, err = s.migrationVersion(ctx); err != nil {
			return err
		}
		if applied, err = s.appliedMigrations(ctx); err != nil {
			return err
		}
	}
	current := 0
	for v := range applied {
		current = max(current, v)
	}
	if n := len(migs); n > 0 && current > migs[n-1].version {
		return fmt.Errorf("the workspace has schema version %d, newer than this ealscope (%d): upgrade ealscope", current, migs[n-1].version)
	}
	for _, m := range migs {
		if applied[m.version] || (migrationCap > 0 && m.version > migrationCap) {
			continue
		}
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations reads the versions schema_migrations records (no lock taken).
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	versions, err := queryAll(ctx, s.db, scanOne[int], `SELECT version FROM schema_migrations`)
	out := make(map[int]bool, len(versions))
	for _, v := range versions {
		out[v] = true
	}
	return out, err
}

// migrationVersion creates schema_migrations when needed and reads the highest version, in a
// write transaction so that processes opening a new workspace at once take turns.
func (s *Store) migrationVersion(ctx context.Context) (int, error) {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return 0, err
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return 0, err
	}
	return current, tx.Commit()
}

// applyMigration applies one migration in its own transaction, unless another process
// applied it while this one waited for the lock.
func (s *Store) applyMigration(ctx context.Context, m migration) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)`, m.version).Scan(&done); err != nil {
		return err
	}
	if done {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, s.now().UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion is the highest applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// ErrNotFound is returned by queries for a run, chain or memory that does not exist.
var ErrNotFound = errors.New("not found")

// stamp is the import time as stored (UTC, RFC 3339).
func (s *Store) stamp() string { return s.now().UTC().Format(time.RFC3339) }
