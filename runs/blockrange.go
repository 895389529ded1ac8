package runs

import (
	"database/sql"
	"errors"
	"path/filepath"

	"github.com/ealscope/ealscope/runs/rundir"
)

// blockRangeTables are the stored rows whose block_index must name a block of their case, with
// the artifact each came from.
var blockRangeTables = []struct{ table, artifact string }{
	{"memories", rundir.Memories}, {"states", rundir.MemoryStates}, {"attempts", rundir.MemoryAttempts},
}

// checkBlockRanges refuses a run row whose block_index is past its case's last block (cases
// have blocks 0..n-1, docs/FORMATS.md §2), once the run's chains are tied to their cases. Rows of
// chains whose case is not in the workspace are checked only against rundir's generic bound.
func checkBlockRanges(w *txWriter, runPK int64, run *rundir.Run) error {
	for _, t := range blockRangeTables {
		var line, block, blocks int
		var caseID string
		err := w.tx.QueryRowContext(w.ctx, `SELECT r.line, r.block_index, k.block_count, k.case_id FROM `+t.table+` r
			JOIN chains c ON c.chain_pk = r.chain_pk JOIN cases k ON k.case_pk = c.case_pk
			WHERE r.run_pk = ? AND (r.block_index < 0 OR r.block_index >= k.block_count) ORDER BY r.line LIMIT 1`, runPK).Scan(&line, &block, &blocks, &caseID)
		if err == nil {
			return &rundir.VerifyError{File: filepath.Join(run.Dir, run.Entries[t.artifact].Path), Line: line, Field: "block_index",
				Msg: "block " + itoa(block) + " is not a block of case " + caseID + " (it has blocks 0.." + itoa(blocks-1) + ")"}
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	return nil
}
