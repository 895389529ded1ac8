package pyjson

import "testing"

// TestTreeValues: an absent optional is null, a present one its value; a nil string list is
// null and an empty one [], as the canonical form tells them apart.
func TestTreeValues(t *testing.T) {
	n, s := int64(7), "x"
	var none *string
	for _, tc := range []struct {
		v    any
		want string
	}{
		{OrNull(&n), "7"},
		{OrNull(&s), `"x"`},
		{OrNull(none), "null"},
		{StringList(nil), "null"},
		{StringList([]string{}), "[]"},
		{StringList([]string{"a", "b"}), `["a","b"]`},
	} {
		if got := MustCanonicalJSON(tc.v); got != tc.want {
			t.Errorf("%#v: %s, want %s", tc.v, got, tc.want)
		}
	}
}
