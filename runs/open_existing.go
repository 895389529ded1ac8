package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNoWorkspace is returned by OpenExisting when the database file does not exist.
var ErrNoWorkspace = errors.New("no workspace")

// OpenExisting opens a workspace that must already exist: commands that only read (or that
// add to runs already imported) use it, so a mistyped --db is reported instead of silently
// creating an empty workspace and its directories.
func OpenExisting(path string) (*Store, error) {
	abs, err := workspacePath(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("workspace %s does not exist (%w): create one with `ealscope demo --db %s` or `ealscope import RUN_DIR --db %s`",
			abs, ErrNoWorkspace, abs, abs)
	case err != nil:
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	case info.IsDir():
		return nil, fmt.Errorf("workspace %s is a directory, not a database file", abs)
	}
	return Open(abs)
}
