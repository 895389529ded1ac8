package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sqlite "modernc.org/sqlite"
)

// DefaultWriteWait bounds how long a write transaction waits for another writer (an import of
// a large run holds the write lock for as long as it runs) before giving up with ErrLocked.
const DefaultWriteWait = 10 * time.Minute

// writeNoteEvery is how often a waiting writer reports that it is still waiting.
const writeNoteEvery = 5 * time.Second

// ErrLocked is a write that gave up waiting for another writer.
var ErrLocked = errors.New("the workspace is locked by another writer")

// LockedError names the workspace and how long the write waited.
type LockedError struct {
	Path   string
	Waited time.Duration
	Err    error
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("workspace %s: another process is writing to it (an import, an annotator or a re-run); gave up after waiting %s: %v",
		e.Path, e.Waited.Round(time.Second), e.Err)
}

func (e *LockedError) Unwrap() []error { return []error{ErrLocked, e.Err} }

// writeWaitConfig is how a store's writers wait; SetWriteWait changes it.
type writeWaitConfig struct {
	mu    sync.Mutex
	limit time.Duration
	note  func(waited time.Duration)
}

// SetWriteWait sets how long a write waits for another writer (0: DefaultWriteWait) and a
// function told, about every five seconds, that it is still waiting (nil: silent), so a CLI
// or the TUI can say why nothing happens.
func (s *Store) SetWriteWait(limit time.Duration, note func(waited time.Duration)) {
	s.wait.mu.Lock()
	defer s.wait.mu.Unlock()
	s.wait.limit, s.wait.note = limit, note
}

// IsBusy reports SQLite's SQLITE_BUSY / SQLITE_LOCKED ("database is locked"), whatever wraps it.
func IsBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return true
		}
	}
	return err != nil && (strings.Contains(err.Error(), "database is locked") || strings.Contains(err.Error(), "SQLITE_BUSY"))
}

// beginWrite starts a write transaction. The DSN makes every transaction BEGIN IMMEDIATE, so
// the write lock is taken at the start (waiting out the busy timeout) and a transaction never
// fails half-way when it upgrades from reading to writing. When the lock stays taken past the
// busy timeout it retries, with a growing pause, up to the store's write wait, telling the
// note function as it goes.
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, error) {
	s.wait.mu.Lock()
	limit, note := s.wait.limit, s.wait.note
	s.wait.mu.Unlock()
	if limit <= 0 {
		limit = DefaultWriteWait
	}
	start := time.Now()
	lastNote := start
	pause := 50 * time.Millisecond
	for {
		tx, err := s.db.BeginTx(ctx, nil)
		if err == nil {
			return tx, nil
		}
		if !IsBusy(err) {
			return nil, err
		}
		waited := time.Since(start)
		if waited >= limit {
			return nil, &LockedError{Path: s.path, Waited: waited, Err: err}
		}
		if note != nil && time.Since(lastNote) >= writeNoteEvery {
			note(waited)
			lastNote = time.Now()
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		pause = min(pause*2, time.Second)
	}
}
