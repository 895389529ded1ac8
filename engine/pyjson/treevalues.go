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
