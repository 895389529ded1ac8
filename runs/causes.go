package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ealscope/ealscope/engine/pyjson"
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
	type stored struct {
		line int
		cols rawCols
	}
	rows, err := queryAll(ctx, s.db, func(r rowScanner) (stored, error) {
		var st stored
		err := r.Scan(append([]any{&st.line}, st.cols.dest()...)...)
		return st, err
	}, `SELECT line, `+rawSelect("memories")+` FROM memories WHERE chain_pk = ? ORDER BY block_index LIMIT 1`, int64(key))
	if err != nil {
		return out, err
	}
	if len(rows) == 0 {
		return out, fmt.Errorf("chain %d has no memory: %w", key, ErrNotFound)
	}
	raw, err := newRowReader(s.db).bytes(ctx, &rows[0].cols, "memories.jsonl line "+itoa(rows[0].line))
	if err != nil {
		return out, err
	}
	var row rundir.MemoryArtifact
	if err := json.Unmarshal(raw, &row); err != nil {
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

// WhySource is what cause attribution reads of a chain: its header, domain and case, and the
// memory at every block that has one with its stored formation. Unlike SafeguardSource it
// reads no probe's executor context (chains primary key, chain_blocks and memories).
func (s *Store) WhySource(ctx context.Context, key ChainKey) (SafeguardSource, error) {
	out, _, err := s.chainMemories(ctx, key)
	return out, err
}

// chainMemories loads a chain's header, domain and case, and the memory at every block that
// has one with its stored formation, and each of those memories' architecture (chains
// primary key, chain_blocks and memories).
func (s *Store) chainMemories(ctx context.Context, key ChainKey) (SafeguardSource, []string, error) {
	var out SafeguardSource
	var archs []string
	h, err := s.Chain(ctx, key)
	if err != nil {
		return out, nil, err
	}
	out.Chain, out.Architecture = h, h.Architecture
	d, c, err := s.storedCase(ctx, h)
	if err != nil {
		return out, nil, err
	}
	out.Domain, out.Case, out.Block = d, c, c.LastBlock()
	err = eachRow(ctx, s.db, func(r rowScanner) error {
		var v SafeguardMemory
		var payload, arch, formed string
		var forms sql.NullInt64
		var unscored sql.NullString
		if err := r.Scan(&v.Block, &v.MemoryID, &payload, &arch, &forms, &formed, &unscored); err != nil {
			return err
		}
		tree, err := pyjson.DecodeTree([]byte(payload))
		if err != nil {
			return fmt.Errorf("memory %s: stored payload: %w", v.MemoryID, err)
		}
		v.Payload = tree
		v.Formation = SafeguardFormation{Estimable: forms.Valid && !unscored.Valid, Formed: forms.Valid && forms.Int64 != 0, FormedProbeIDs: []string{}}
		_ = json.Unmarshal([]byte(formed), &v.Formation.FormedProbeIDs)
		out.Versions = append(out.Versions, v)
		archs = append(archs, arch)
		return nil
	}, `SELECT cb.block_index, cb.memory_id, m.payload_json, m.architecture, cb.forms_false_authority, cb.formed_probe_ids_json, cb.unscored_reason
		FROM chain_blocks cb JOIN chains c ON c.chain_pk = cb.chain_pk JOIN memories m ON m.run_pk = c.run_pk AND m.memory_id = cb.memory_id
		WHERE cb.chain_pk = ? AND cb.memory_id IS NOT NULL ORDER BY cb.block_index`, key)
	return out, archs, err
}
