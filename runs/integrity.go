package runs

import (
	"context"
	"fmt"
	"strings"
)

// maxIntegrityProblems bounds the problems quoted from quick_check.
const maxIntegrityProblems = 5

// CheckIntegrity runs SQLite's quick_check on the workspace (read-only, linear in its size):
// a corrupted file would otherwise open without a word and take new imports on top of the
// damage. The error names the workspace and the first problems SQLite reports.
func (s *Store) CheckIntegrity(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check("+fmt.Sprint(maxIntegrityProblems)+")")
	if err != nil {
		return fmt.Errorf("%s: integrity check: %w", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("%s: integrity check: %w", s.path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: integrity check: %w", s.path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: the workspace is damaged (SQLite quick_check: %s); nothing was written: restore it from a copy, or import the runs again into a new workspace",
			s.path, strings.Join(problems, "; "))
	}
	return nil
}
