package engine

import (
	"maps"
	"slices"
)

// SortedSet is a string set's members in order; [] (not nil) for an empty set, so JSON
// says []. Every ordered listing of ids (records, rooms, annotators) goes through it, which
// keeps output independent of map order.
func SortedSet(m map[string]bool) []string {
	out := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(out)
	return out
}

// findFirst is the first element of xs that match accepts: the lookup by id behind
// Case.Probe, CaseAudience.Channel and CaseAudience.Principal.
func findFirst[T any](xs []T, match func(T) bool) (T, bool) {
	if i := slices.IndexFunc(xs, match); i >= 0 {
		return xs[i], true
	}
	var zero T
	return zero, false
}
