package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Open's steps for the directory itself and for each file its manifest lists.

// runDirectory resolves a run directory to its real path: it must exist and be a directory.
func runDirectory(dir string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	realDir, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", verr(absDir, 0, "", "no such run directory")
		}
		return "", verr(absDir, 0, "", "cannot be resolved: %v (a symlink loop?)", err)
	}
	if st, err := os.Stat(realDir); err != nil {
		return "", err
	} else if !st.IsDir() {
		return "", verr(absDir, 0, "", "not a directory (a run is a directory holding %s)", ManifestFile)
	}
	return realDir, nil
}

// verifyListed verifies one file the manifest lists (present false: it is missing): its
// sha256, and for a .jsonl file its rows, row count and declared schema version. Its rows are
// kept in run.Files unless the run streams.
func (run *Run) verifyListed(realDir, manifestPath, name string, e FileEntry, opts Options, idx *refIndex) (present bool, err error) {
	full, err := safePath(realDir, manifestPath, name, e.Path)
	if err != nil {
		return false, err
	}
	f, _, err := OpenRegular(full, MaxArtifactBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		var nr *NotRegularError
		var le *LimitError
		if errors.As(err, &nr) || errors.As(err, &le) {
			return false, verr(full, 0, "files."+name+".path", "%s", strings.TrimPrefix(err.Error(), full+": "))
		}
		return false, fmt.Errorf("%s: %w", full, err)
	}
	parse := !opts.ManifestOnly && strings.HasSuffix(e.Path, ".jsonl")
	var keep *[]Row
	if parse && run.Files != nil {
		keep = new([]Row)
	}
	res, err := verifyArtifact(boundedReader(f, full, MaxArtifactBytes), full, name, parse, keep, idx)
	f.Close()
	if err != nil {
		var le *LimitError
		var ve *VerifyError
		if errors.As(err, &le) || errors.As(err, &ve) {
			return false, err // they name the file already
		}
		return false, fmt.Errorf("%s: %w", full, err)
	}
	// The hash is checked first, as when the whole file was read before parsing: a file
	// that is not the one the manifest lists says so, whatever else is wrong with it.
	if res.sha256 != e.SHA256 {
		return false, verr(full, 0, "files."+name+".sha256", "file sha256 is %s but %s says %s", res.sha256, ManifestFile, e.SHA256)
	}
	if !parse {
		return true, nil
	}
	if res.rowErr != nil {
		return false, res.rowErr
	}
	if res.rows != e.Rows {
		return false, verr(full, 0, "files."+name+".rows", "the file has %d rows but %s says %d", res.rows, ManifestFile, e.Rows)
	}
	if err := checkDeclaredVersion(manifestPath, run.Manifest, name); err != nil {
		return false, err
	}
	run.paths[name] = full
	if keep != nil {
		run.Files[name] = *keep
	}
	return true, nil
}
