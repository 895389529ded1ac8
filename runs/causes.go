package runs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/runs/rundir"
)

// What cause attribution and turn ablation read of a chain beyond its memories: the writer's
// attempt statuses per block, and who the writer was (docs/CAUSES.md).

// AttemptStatuses are a chain's writer attempt statuses by block, in attempt order
// (attempts_by_chain).
func (s *Store) AttemptStatuses(ctx context.Context, key ChainKey) (map[int][]string, error) {
	out := map[int][]string{}
	err := eachRow(ctx, s.db, func(r rowScanner) error {
		var block int
		var status string
		if err := r.Scan(&block, &status); err != nil {
			return err
		}
		out[block] = append(out[block], status)
		return nil
	}, `SELECT block_index, status FROM attempts WHERE chain_pk = ? ORDER BY block_index, attempt_index`, int64(key))
	return out, err
}

// ChainWriter is the writer of a chain as its memory rows record it.
type ChainWriter struct {
	// EALChainID and Seed are the chain id and writer seed the writer ran under.
	EALChainID string
	Seed       int64
	// Writer is the writer's model provenance (the scripted writer's effective parameters
	// carry its fault rate and families).
	Writer rundir.ModelProvenance
}

// ChainWriter reads the writer of a chain from its first memory row (memories_by_chain).
func (s *Store) ChainWriter(ctx context.Context, key ChainKey) (ChainWriter, error) {
	var out ChainWriter
	rows, err := queryAll(ctx, s.db, scanOne[string], `SELECT row_json FROM memories WHERE chain_pk = ? ORDER BY block_index LIMIT 1`, int64(key))
	if err != nil {
		return out, err
	}
	if len(rows) == 0 {
		return out, fmt.Errorf("chain %d has no memory: %w", key, ErrNotFound)
	}
	var row rundir.MemoryArtifact
	if err := json.Unmarshal([]byte(rows[0]), &row); err != nil {
		return out, fmt.Errorf("chain %d: stored memory row: %w", key, err)
	}
	out.EALChainID = row.ChainID
	if row.WriterSeed != nil {
		out.Seed = *row.WriterSeed
	}
	if row.Writer != nil {
		out.Writer = *row.Writer
	}
	return out, nil
}
