package adapt

import (
	"errors"
	"testing"
)

type rec struct{ id string }

func (r *rec) AuthorizationID() string { return r.id }
func (r *rec) Status() string          { return "active" }

func TestTypedRecords(t *testing.T) {
	parse := func(path string, item any) (*rec, error) {
		s, ok := item.(string)
		if !ok {
			return nil, errors.New(path + ": not a string")
		}
		return &rec{s}, nil
	}
	got, err := TypedRecords([]any{"A", "B"}, parse, false)
	if err != nil || len(got) != 2 || got[0].id != "A" || got[1].id != "B" {
		t.Fatalf("TypedRecords = %v, %v", got, err)
	}
	if got, err := TypedRecords(nil, parse, false); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no items: %v, %v; want an empty, non-nil list", got, err)
	}
	for _, tc := range []struct {
		items      []any
		namesFirst bool
		want       string
	}{
		{[]any{"A", 3}, false, "authorizations[1]: not a string"},
		{[]any{"A", "B", "A"}, false, "field authorizations[2].authorization_id: authorization_id values must be unique (A repeats)"},
		{[]any{"A", "B", "A"}, true, "field authorizations[2].authorization_id: authorization_id values must be unique (A repeats authorizations[0])"},
	} {
		if _, err := TypedRecords(tc.items, parse, tc.namesFirst); err == nil || err.Error() != tc.want {
			t.Errorf("%v: error %v, want %s", tc.items, err, tc.want)
		}
	}
}
