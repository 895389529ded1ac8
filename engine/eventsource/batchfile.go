package eventsource

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// BatchFile is one batch as `ealscope reduce` reads it and as EAL-Bench's reference
// reductions record it: {"block_index", "input": {"arguments", "visible_source_ids",
// "addressable_authorization_ids", "logical_update_id", "capacity_tokens"},
// "records_before"}. Other keys (batch_id, description, expected, ...) are ignored.
type BatchFile struct {
	BlockIndex    int
	Input         BatchInput
	RecordsBefore map[string]any
}

// ParseBatchFile reads a batch document; errors name the field.
func ParseBatchFile(tree any) (*BatchFile, error) {
	m, err := engine.Obj("", tree)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"block_index", "input", "records_before"} {
		if _, ok := m[k]; !ok {
			return nil, engine.Errf(k, "required key is missing")
		}
	}
	block, err := engine.NonNegativeInt("block_index", m["block_index"])
	if err != nil {
		return nil, err
	}
	in, err := engine.Obj("input", m["input"])
	if err != nil {
		return nil, err
	}
	if err := engine.ExactKeys("input", in, []string{"arguments", "visible_source_ids", "addressable_authorization_ids", "logical_update_id", "capacity_tokens"}); err != nil {
		return nil, err
	}
	visible := inputField(&err, in, "visible_source_ids", engine.StrList)
	addressable := inputField(&err, in, "addressable_authorization_ids", engine.StrList)
	update := inputField(&err, in, "logical_update_id", engine.NonEmptyStr)
	capacity := inputField(&err, in, "capacity_tokens", engine.NonNegativeInt)
	if err != nil {
		return nil, err
	}
	records, err := engine.Obj("records_before", m["records_before"])
	if err != nil {
		return nil, err
	}
	for id, v := range records {
		rec, err := engine.Obj(engine.JoinPath("records_before", id), v)
		if err != nil {
			return nil, err
		}
		if got, ok := rec["authorization_id"].(string); ok && got != id {
			return nil, engine.Errf(engine.JoinPath("records_before", id)+".authorization_id", "is %q, but the record is keyed %q", got, id)
		}
	}
	return &BatchFile{
		BlockIndex: int(block),
		Input: BatchInput{
			Arguments: in["arguments"], VisibleSourceIDs: visible, AddressableAuthorizationIDs: addressable,
			LogicalUpdateID: update, CapacityTokens: int(capacity),
		},
		RecordsBefore: records,
	}, nil
}

// inputField reads input.<key> with read, unless an earlier field failed: *err keeps the
// first failure, which is what ParseBatchFile reports.
func inputField[T any](err *error, in map[string]any, key string, read func(path string, v any) (T, error)) T {
	var v T
	if *err == nil {
		v, *err = read("input."+key, in[key])
	}
	return v
}

// Outcome is one batch's result in `ealscope reduce --json`'s shape. A rejected batch leaves
// the state as it was (EAL-Bench's retained_after_failed_update): ReducedState is then the
// state before (nil if even that does not parse) and RecordsAfter the records before.
type Outcome struct {
	Status       string           `json:"status"`
	Events       []map[string]any `json:"events"`
	ReducedState map[string]any   `json:"reduced_state"`
	Error        *Error           `json:"error"`
	RecordsAfter map[string]any   `json:"records_after"`
	// ReducedStateTokens counts the reduced state's canonical JSON with the counter given.
	ReducedStateTokens int `json:"reduced_state_tokens"`
}

// Outcome statuses.
const (
	Accepted = "accepted"
	Rejected = "rejected"
)

// Reduce applies one batch file to a fresh reducer holding its records_before.
func Reduce(spec engine.EventSourcingSpec, codec engine.MemoryCodec, b *BatchFile, counter TokenCounter) (Outcome, error) {
	r := New(spec, codec)
	if err := r.LoadRecords(b.RecordsBefore); err != nil {
		return Outcome{}, err
	}
	batch, err := ValidateBatch(r, b.Input, counter)
	if err != nil {
		rej, ok := err.(*Error)
		if !ok {
			return Outcome{}, err
		}
		out := Outcome{Status: Rejected, Events: []map[string]any{}, Error: rej, RecordsAfter: r.RecordsTree()}
		if state, err := r.VisibleState(); err == nil {
			out.ReducedState = state
			out.ReducedStateTokens = countTree(state, counter)
		}
		return out, nil
	}
	events := make([]map[string]any, len(batch.Events))
	for i, e := range batch.Events {
		events[i] = e.Tree()
	}
	return Outcome{
		Status: Accepted, Events: events, ReducedState: batch.ReducedState,
		RecordsAfter: batch.Reducer.RecordsTree(), ReducedStateTokens: batch.Tokens,
	}, nil
}

func countTree(v any, counter TokenCounter) int {
	text, err := canonical(v)
	if err != nil {
		return 0
	}
	return counter.Count(text)
}

// String describes an outcome in one line.
func (o Outcome) String() string {
	if o.Error != nil {
		return fmt.Sprintf("%s: %s: %s", o.Status, o.Error.Exception, o.Error.Message)
	}
	return fmt.Sprintf("%s: %d events", o.Status, len(o.Events))
}
