package engine

import "github.com/ealscope/ealscope/engine/pyjson"

// ParseAnnotationState validates an annotator's typed state ({schema_version, authorizations})
// in the domain's schema and returns its records and its normalised tree. A domain with an
// AnnotationReader reads its looser extraction schema; any other domain reads its typed memory
// schema as it is.
func ParseAnnotationState(d Domain, tree any) ([]Record, map[string]any, error) {
	// Go values built by callers (int64 amounts) become the json.Number tree the strict
	// readers expect.
	tree, err := pyjson.Retree(tree)
	if err != nil {
		return nil, nil, Errf("", "the annotated state is not JSON: %v", err)
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, nil, Errf("", "the annotated state must be an object {schema_version, authorizations}")
	}
	if ar, ok := d.(AnnotationReader); ok {
		return ar.ParseAnnotation(m)
	}
	records, err := d.ParseTyped(m)
	if err != nil {
		return nil, nil, err
	}
	norm, err := pyjson.Retree(d.TypedPayload(records))
	if err != nil {
		return nil, nil, err
	}
	return records, norm.(map[string]any), nil
}
