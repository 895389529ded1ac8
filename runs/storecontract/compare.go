package storecontract

import (
	"strings"

	"github.com/ealscope/ealscope/runs"
)

// longestWord is the longest run of letters in s (a word a tokenizer keeps whole).
func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		if len(w) > len(best) {
			best = w
		}
	}
	return strings.ToLower(best)
}

// sameRow compares two chain rows by value (their pointer fields by what they point at).
func sameRow(a, b runs.ChainRow) bool {
	if deref(a.FirstFalseAuthorityBlock) != deref(b.FirstFalseAuthorityBlock) || deref(a.FormedFinal) != deref(b.FormedFinal) {
		return false
	}
	a.FirstFalseAuthorityBlock, b.FirstFalseAuthorityBlock, a.FormedFinal, b.FormedFinal = nil, nil, nil, nil
	return a == b
}

// deref is what p points at, or nil: two pointers compare by their values.
func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
