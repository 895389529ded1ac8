package engine

import "time"

// Value comparisons the domains' field classifiers share (docs/FORMATS.md 7.1).

// StrictSuperset says whether the set of a strictly contains the set of b (a list field
// remembered wider than the ledger's is a broadening, narrower a narrowing).
func StrictSuperset(a, b []string) bool {
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	inner := map[string]bool{}
	for _, x := range b {
		if !set[x] {
			return false
		}
		inner[x] = true
	}
	return len(set) > len(inner)
}

// FieldInstant parses a timestamp field value; a naive one reads as UTC (Python would refuse
// to compare a naive with an aware instant; typed memories with naive windows are rare and
// are compared as UTC here rather than crashing).
func FieldInstant(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, _, err := ParseISOTime(s)
	return t, err == nil
}
