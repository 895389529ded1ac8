package safeguards

import "github.com/ealscope/ealscope/engine/pyjson"

// The gate result as EAL-Bench emits it. SourceAuthorityGateResult.to_dict() is written only
// through EAL-Bench's persistence (the `result` of each source_authority_decisions.jsonl row,
// json.dumps(..., ensure_ascii=False, sort_keys=True), and gate_id = content_hash over
// canonical JSON; docs/FORMATS.md 5.2), so every key is sorted on the way out and to_dict's key
// order never reaches the bytes. JSON is that row encoding of the result on its own.

// Tree is SourceAuthorityGateResult.to_dict() as a JSON tree: the exact keys of the result, of
// each decision, citation and source (`source` null for an id the case does not have,
// `through_block_index` null for None).
func (r *SourceAuthorityGateResult) Tree() map[string]any {
	decisions := pyjson.ListOf(r.Decisions, func(d RecordGateDecision) any {
		return map[string]any{
			"record_index":     d.RecordIndex,
			"authorization_id": d.AuthorizationID,
			"passed":           d.Passed,
			"reason":           d.Reason,
			"citations": pyjson.ListOf(d.Citations, func(c CitationDecision) any {
				return map[string]any{
					"source_turn_id": c.SourceTurnID,
					"passed":         c.Passed,
					"reason":         c.Reason,
					"source":         c.Source.tree(),
				}
			}),
		}
	})
	return map[string]any{
		"schema_version":        r.SchemaVersion,
		"through_block_index":   pyjson.OrNull(r.ThroughBlockIndex),
		"input_record_count":    r.InputRecordCount,
		"retained_record_count": r.RetainedRecordCount,
		"removed_record_count":  r.RemovedRecordCount(),
		"gated_state":           r.GatedState,
		"decisions":             decisions,
	}
}

func (s *SourceMetadata) tree() any {
	if s == nil {
		return nil
	}
	return map[string]any{
		"source_turn_id":        s.SourceTurnID,
		"principal_id":          s.PrincipalID,
		"authority_class":       s.AuthorityClass,
		"authorization_capable": s.AuthorizationCapable,
		"source_type":           pyjson.OrNull(s.SourceType),
	}
}

// JSON is the result encoded as EAL-Bench writes it (sorted keys, ", " and ": " separators,
// non-ASCII kept), without a trailing newline.
func (r *SourceAuthorityGateResult) JSON() ([]byte, error) {
	return pyjson.DumpPy(r.Tree(), pyjson.Row)
}

// ContentHash is EAL-Bench's content_hash of the result alone (study.py's gate_id hashes it
// together with the source run and evidence, which a single memory does not have).
func (r *SourceAuthorityGateResult) ContentHash() (string, error) {
	return pyjson.ContentHash(r.Tree())
}
