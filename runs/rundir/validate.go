package rundir

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Decisions accepted in trials.jsonl (EAL-Bench's Decision values).
var knownDecisions = map[string]bool{
	engine.ExecuteRequested: true, engine.ExecuteOther: true, engine.Decline: true, engine.Escalate: true,
	engine.NoAction: true, engine.Invalid: true, engine.ProviderError: true,
}

// validateRow checks the fields the importer reads, per artifact, so that a broken row is
// reported at its line rather than surfacing later as a zero value.
func validateRow(name string, r Row) error {
	nonEmpty := func(keys ...string) error {
		for _, k := range keys {
			if _, err := engine.NonEmptyStr(k, r.Tree[k]); err != nil {
				if _, present := r.Tree[k]; !present {
					return engine.Errf(k, "required key is missing")
				}
				return err
			}
		}
		return nil
	}
	integer := func(keys ...string) error { return readKeys(r, engine.Int, keys) }
	optInteger := func(keys ...string) error { return readKeys(r, engine.NullableInt, keys) }
	optString := func(keys ...string) error { return readKeys(r, engine.NullableStr, keys) }
	architecture := func(key string, nullable bool) error {
		v := r.Tree[key]
		if v == nil && nullable {
			return nil
		}
		if s, _ := v.(string); s != engine.ArchFreeText && s != engine.ArchTyped {
			return engine.Errf(key, "expected \"free_text\" or \"typed\", got %v", v)
		}
		return nil
	}
	first := func(errs ...error) error {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		return nil
	}
	switch name {
	case Memories, "writer_bundle_memories":
		if err := first(nonEmpty("memory_id", "chain_id", "domain_id", "case_id", "condition_id", "content_hash"),
			integer("block_index"), optInteger("writer_run_id"), optString("parent_memory_id"), architecture("architecture", false)); err != nil {
			return err
		}
		if _, present := r.Tree["payload"]; !present {
			return engine.Errf("payload", "required key is missing")
		}
		if r.Tree["payload"] == nil {
			return engine.Errf("payload", "a memory artifact needs a payload (string or object)")
		}
		got, err := pyjson.ContentHash(r.Tree["payload"])
		if err != nil {
			return engine.Errf("payload", "cannot hash: %v", err)
		}
		if want := r.Str("content_hash"); got != want {
			return engine.Errf("content_hash", "is %s but the payload hashes to %s", want, got)
		}
	case MemoryAttempts:
		return first(nonEmpty("attempt_id", "logical_update_id", "case_id", "condition_id", "status"),
			integer("block_index", "attempt_index"), optInteger("writer_run_id"),
			optString("accepted_memory_id", "retained_memory_id", "parent_memory_id", "repair_of_attempt_id"))
	case MemoryStates:
		if err := first(nonEmpty("state_id", "logical_update_id", "case_id", "condition_id", "status"),
			integer("block_index"), optInteger("writer_run_id"), optString("current_memory_id")); err != nil {
			return err
		}
		if v, present := r.Tree["attempt_ids"]; present && v != nil {
			if _, err := engine.StrList("attempt_ids", v); err != nil {
				return err
			}
		}
	case Evidence, "writer_bundle_evidence":
		return first(nonEmpty("evidence_id", "case_id", "condition_id"), optInteger("memory_run_id"),
			optString("memory_id"), architecture("architecture", true))
	case Trials:
		if err := first(nonEmpty("case_id", "probe_id", "condition_id", "decision"), optInteger("writer_run_id", "executor_run_id", "tool_call_count", "terminal_call_count"),
			optString("evidence_id", "memory_id", "provider_error", "raw_tool_name", "finish_reason")); err != nil {
			return err
		}
		if d := r.Str("decision"); !knownDecisions[d] {
			return engine.Errf("decision", "unknown decision %q", d)
		}
		for _, k := range []string{"request_authorized", "requested_action_taken", "unauthorized_action_taken", "action_mismatch"} {
			if _, ok := r.Tree[k].(bool); !ok {
				return engine.Errf(k, "expected a boolean, got %v", r.Tree[k])
			}
		}
		if v, present := r.Tree["metadata"]; present && v != nil {
			md, ok := v.(map[string]any)
			if !ok {
				return engine.Errf("metadata", "expected an object")
			}
			for _, ns := range []string{"core", "study", "domain"} {
				if nv, present := md[ns]; present && nv != nil {
					if _, ok := nv.(map[string]any); !ok {
						return engine.Errf("metadata."+ns, "expected an object")
					}
				}
			}
		}
	case ModelContexts, "writer_model_contexts":
		return first(nonEmpty("context_id", "call_id", "stage"), optInteger("block_index"))
	case Calls, "writer_calls":
		return nonEmpty("call_id")
	case ExecutorPlan:
		return first(nonEmpty("call_id", "trial_id", "case_id", "probe_id"), optInteger("oracle_block_index"))
	case Faults:
		return first(nonEmpty("case_id", "family"), integer("block_index"))
	}
	return nil
}

// readKeys reads each key of the row with read, stopping at the first value it rejects.
func readKeys[T any](r Row, read func(path string, v any) (T, error), keys []string) error {
	for _, k := range keys {
		if _, err := read(k, r.Tree[k]); err != nil {
			return err
		}
	}
	return nil
}

// validateRowBounds is validateRow plus the checks on values' ranges.
func validateRowBounds(name string, r Row) error {
	if err := validateRow(name, r); err != nil {
		return err
	}
	return checkBlockIndexes(name, r)
}
