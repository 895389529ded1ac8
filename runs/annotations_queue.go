package runs

// annotations.Annotation queues and the data of one annotation task, for the annotation screen and the
// headless commands.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/annotations"
)

// annotations.Annotation queues.
const (
	// QueueUnannotated: memories the annotator has not submitted a label for (with no
	// annotator: memories without any label).
	QueueUnannotated = "unannotated"
	// QueueDisagreements: memories whose usable labels disagree and that no single accepted
	// annotation settles yet.
	QueueDisagreements = "disagreements"
	// QueueMine: memories the annotator has labelled (to revisit).
	QueueMine = "mine"
	// QueueAll: every free-text memory.
	QueueAll = "all"
)

// AnnotationItem is one free-text memory to annotate.
type AnnotationItem struct {
	MemoryID    string   `json:"memory_id"`
	RunID       string   `json:"run_id"`
	Chain       ChainKey `json:"chain"`
	CaseID      string   `json:"case_id"`
	ConditionID string   `json:"condition_id"`
	WriterRunID int64    `json:"writer_run_id"`
	BlockIndex  int      `json:"block_index"`
	ContentHash string   `json:"content_hash"`
	Text        string   `json:"text"`
	// Labels counts the memory's labels; Resolution is "" when an accepted annotation
	// scores it, else the unscored reason.
	Labels     int    `json:"labels"`
	Resolution string `json:"resolution"`
}

// AnnotationQueue lists the memories of a queue in (run, case, condition, writer run, block)
// order, one row per memory id (the first run holding it).
func (s *Store) AnnotationQueue(ctx context.Context, queue, annotator, runID string) ([]AnnotationItem, error) {
	where, args, err := s.runFilter(ctx, runID, " AND m.run_pk = ?")
	if err != nil {
		return nil, err
	}
	switch queue {
	case QueueUnannotated:
		if annotator != "" {
			where += ` AND NOT EXISTS (SELECT 1 FROM annotations a WHERE a.memory_id = m.memory_id AND a.annotator = ? AND a.status IN ('submitted', 'accepted'))`
			args = append(args, annotator)
		} else {
			where += ` AND NOT EXISTS (SELECT 1 FROM annotations a WHERE a.memory_id = m.memory_id)`
		}
	case QueueMine:
		if annotator == "" {
			return nil, fmt.Errorf("queue %q needs an annotator name", queue)
		}
		where += ` AND EXISTS (SELECT 1 FROM annotations a WHERE a.memory_id = m.memory_id AND a.annotator = ?)`
		args = append(args, annotator)
	case QueueDisagreements, QueueAll, "":
	default:
		return nil, fmt.Errorf("unknown queue %q (unannotated, disagreements, mine, all)", queue)
	}
	out, err := queryAll(ctx, s.db, func(r rowScanner) (AnnotationItem, error) {
		var it AnnotationItem
		var scoredFrom, unscored sql.NullString
		err := r.Scan(&it.MemoryID, &it.RunID, &it.Chain, &it.CaseID, &it.ConditionID, &it.WriterRunID, &it.BlockIndex, &it.ContentHash, &it.Text,
			&it.Labels, &scoredFrom, &unscored)
		it.Resolution = unscored.String
		return it, err
	}, `SELECT m.memory_id, r.run_id, c.chain_pk, c.case_id, c.condition_id, c.writer_run_id, m.block_index, m.content_hash, m.payload_text,
		(SELECT COUNT(*) FROM annotations a WHERE a.memory_id = m.memory_id), ms.scored_from, ms.unscored_reason
		FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk
		LEFT JOIN memory_scores ms ON ms.run_pk = m.run_pk AND ms.memory_id = m.memory_id AND ms.block_index = m.block_index
		WHERE m.architecture = `+sqlFreeText+` AND m.mem_pk = (SELECT MIN(m2.mem_pk) FROM memories m2 WHERE m2.memory_id = m.memory_id AND m2.architecture = `+sqlFreeText+`)`+where+`
		ORDER BY r.run_id, c.case_id, c.condition_id, c.writer_run_id, m.block_index, m.memory_id`, args...)
	if err != nil {
		return nil, err
	}
	if queue != QueueDisagreements {
		return out, nil
	}
	list, err := s.queryAnnotations(ctx, `ORDER BY a.memory_id, a.annotator`)
	if err != nil {
		return nil, err
	}
	dis := disagreeingMemories(list)
	kept := out[:0]
	for _, it := range out {
		// Settled once one accepted annotation (the adjudicated one) scores the memory.
		if dis[it.MemoryID] && it.Resolution != "" {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

// AnnotationTask is what the annotation screen shows for one memory.
type AnnotationTask struct {
	Item   AnnotationItem           `json:"item"`
	Labels []annotations.Annotation `json:"labels"`
	// Prefill is the automatic reading of the canonical free-text layout (nil when the text
	// is not in that layout; PrefillError then says why, with the line).
	Prefill      map[string]any `json:"prefill"`
	PrefillError string         `json:"prefill_error"`
	// Domain is the memory's domain: its schema shapes the form and validates the label.
	Domain engine.Domain `json:"-"`
}

// AnnotationTaskOf loads one memory's text, labels and pre-fill.
func (s *Store) AnnotationTaskOf(ctx context.Context, memoryID string) (AnnotationTask, error) {
	var t AnnotationTask
	var unscored sql.NullString
	var domainID string
	err := s.db.QueryRowContext(ctx, `SELECT r.domain_id, m.memory_id, r.run_id, c.chain_pk, c.case_id, c.condition_id, c.writer_run_id, m.block_index, m.content_hash, m.payload_text,
		(SELECT COUNT(*) FROM annotations a WHERE a.memory_id = m.memory_id), ms.unscored_reason
		FROM memories m JOIN chains c ON c.chain_pk = m.chain_pk JOIN runs r ON r.run_pk = m.run_pk
		LEFT JOIN memory_scores ms ON ms.run_pk = m.run_pk AND ms.memory_id = m.memory_id AND ms.block_index = m.block_index
		WHERE m.memory_id = ? AND m.architecture = `+sqlFreeText+` ORDER BY m.mem_pk LIMIT 1`, memoryID).
		Scan(&domainID, &t.Item.MemoryID, &t.Item.RunID, &t.Item.Chain, &t.Item.CaseID, &t.Item.ConditionID, &t.Item.WriterRunID, &t.Item.BlockIndex, &t.Item.ContentHash, &t.Item.Text,
			&t.Item.Labels, &unscored)
	if err == sql.ErrNoRows {
		return t, fmt.Errorf("memory %q: no free-text memory with this id: %w", memoryID, ErrNotFound)
	}
	if err != nil {
		return t, err
	}
	t.Item.Resolution = unscored.String
	if t.Domain, err = domains.Get(domainID); err != nil {
		return t, fmt.Errorf("memory %s: %w", memoryID, err)
	}
	if t.Labels, err = s.Annotations(ctx, memoryID); err != nil {
		return t, err
	}
	records, err := t.Domain.ReadFreeText(t.Item.Text)
	if err != nil {
		t.PrefillError = err.Error()
		return t, nil
	}
	tree, err := pyjson.Retree(t.Domain.TypedPayload(records))
	if err != nil {
		return t, err
	}
	t.Prefill = tree.(map[string]any)
	return t, nil
}

// MemoryAtChainBlock is the memory id current in a chain at a block, with its architecture
// (the chain view's `a` key opens annotation for free-text versions only).
func (s *Store) MemoryAtChainBlock(ctx context.Context, key ChainKey, block int) (memoryID, architecture string, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT cb.memory_id, m.architecture FROM chain_blocks cb JOIN chains c ON c.chain_pk = cb.chain_pk
		JOIN memories m ON m.run_pk = c.run_pk AND m.memory_id = cb.memory_id WHERE cb.chain_pk = ? AND cb.block_index = ?`, key, block).Scan(&memoryID, &architecture)
	if err == sql.ErrNoRows {
		return "", "", fmt.Errorf("chain %d has no memory at block %d: %w", key, block, ErrNotFound)
	}
	return memoryID, architecture, err
}
