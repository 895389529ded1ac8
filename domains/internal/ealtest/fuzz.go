package ealtest

import (
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// TypedRoundTrip is the property every domain's typed-payload fuzz target checks: when raw
// decodes and parses, the records serialise to canonical JSON that decodes and parses again
// to a payload with the same canonical JSON (the serialised form is a fixed point). It
// returns the parsed records and whether raw was accepted, for the domain's further checks.
func TypedRoundTrip[R any](t *testing.T, raw []byte, parse func(payload any) ([]R, error), serialise func([]R) map[string]any) ([]R, bool) {
	t.Helper()
	tree, err := pyjson.DecodeTree(raw)
	if err != nil {
		return nil, false
	}
	records, err := parse(tree)
	if err != nil {
		return nil, false
	}
	canonical := pyjson.MustCanonicalJSON(serialise(records))
	back, err := pyjson.DecodeTree([]byte(canonical))
	if err != nil {
		t.Fatal(err)
	}
	again, err := parse(back)
	if err != nil || len(again) != len(records) {
		t.Fatalf("serialised payload refused or changed (%d of %d records): %v\n%s", len(again), len(records), err, canonical)
	}
	if pyjson.MustCanonicalJSON(serialise(again)) != canonical {
		t.Fatalf("the serialised payload is not a fixed point:\n%s", canonical)
	}
	return records, true
}
