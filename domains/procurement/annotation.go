package procurement

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// noSourcePlaceholder lets ParseTypedPayload (which requires cited sources, as the typed
// memory schema does) read an extraction with none: EAL-Bench's extraction schema allows an
// empty source_turn_ids (allow_empty=True), and such a record then never authorizes
// (missing_or_unknown), which is what an uncited record should do.
const noSourcePlaceholder = "\x00ealscope_no_source"

var _ engine.AnnotationReader = Domain{}

// ParseAnnotation implements engine.AnnotationReader: typed v3 with possibly empty source
// lists.
func (Domain) ParseAnnotation(m map[string]any) ([]engine.Record, map[string]any, error) {
	auths, _ := m["authorizations"].([]any)
	patched := make([]any, len(auths))
	empty := map[int]bool{}
	for i, a := range auths {
		patched[i] = a
		rec, ok := a.(map[string]any)
		if !ok {
			continue
		}
		if ids, ok := rec["source_turn_ids"].([]any); ok && len(ids) == 0 {
			cp := make(map[string]any, len(rec))
			for k, v := range rec {
				cp[k] = v
			}
			cp["source_turn_ids"] = []any{noSourcePlaceholder}
			patched[i] = cp
			empty[i] = true
		}
	}
	cp := make(map[string]any, len(m))
	for k, v := range m {
		cp[k] = v
	}
	if _, present := m["authorizations"]; present && auths != nil {
		cp["authorizations"] = patched
	}
	envs, err := ParseTypedPayload(cp)
	if err != nil {
		return nil, nil, err
	}
	for i := range envs {
		if empty[i] {
			envs[i].SourceTurnIDs = []string{}
		}
	}
	norm, err := pyjson.Retree(TypedPayloadOf(envs))
	if err != nil {
		return nil, nil, err
	}
	out := make([]engine.Record, len(envs))
	for i, e := range envs {
		out[i] = e
	}
	return out, norm.(map[string]any), nil
}
