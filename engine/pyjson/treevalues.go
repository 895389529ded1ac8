package pyjson

// The conversions below build the JSON trees the domains serialise their records as
// (what CanonicalJSON and ContentHash then read): Python's None for an absent optional
// field, a list for a list of strings.

// OrNull is the value p points to, or nil (null) when p is nil.
func OrNull[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// StringList is l as a tree list ([]any of strings); a nil l is null, an empty one [].
func StringList(l []string) any {
	if l == nil {
		return nil
	}
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// ListOf is xs as a tree list, each item converted by item; a nil or empty xs is [].
func ListOf[T any](xs []T, item func(T) any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = item(x)
	}
	return out
}

// CloneTree deep-copies a JSON tree (Python's copy.deepcopy of json.loads values): objects
// and lists are copied at every depth, leaves (immutable) are shared; a nil object stays nil.
func CloneTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return CloneObject(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = CloneTree(x)
		}
		return out
	}
	return v
}

// CloneObject is CloneTree of an object.
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = CloneTree(v)
	}
	return out
}
