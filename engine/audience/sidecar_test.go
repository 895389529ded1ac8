package audience

import (
	"encoding/json"
	"strings"
	"testing"
)

// sidecarWithGrant is a one-case sidecar whose only grant has the given object and audience.
func sidecarWithGrant(t *testing.T, object, to map[string]any) []byte {
	t.Helper()
	doc := map[string]any{"format": Format, "domain_id": "procurement", "corpus_version": "v1", "cases": map[string]any{
		"case_1": map[string]any{
			"principals": []any{map[string]any{"id": "alice", "can_grant": true}, map[string]any{"id": "bob", "can_grant": false}},
			"channels":   []any{map[string]any{"id": "room", "visibility": "shared", "participants": []any{"alice", "bob"}}},
			"requests":   []any{},
			"grants":     []any{map[string]any{"id": "g1", "object": object, "to": to, "by": "alice", "at_turn": "t1"}},
		},
	}}
	b, _ := json.Marshal(doc) // maps, lists and strings always encode
	return b
}

// TestGrantGivesExactlyOneObjectAndAudience: a grant's object is a record or a turn and its
// audience a channel or principals, exactly one of each; giving both or neither is an error
// naming the field, and the one given is read.
func TestGrantGivesExactlyOneObjectAndAudience(t *testing.T) {
	for _, tc := range []struct {
		name       string
		object, to map[string]any
		want       string
	}{
		{"both objects", map[string]any{"record": "auth_a", "turn": "t1"}, map[string]any{"channel": "room"},
			"cases.case_1.grants[0].object: give exactly one of record or turn"},
		{"no object", map[string]any{}, map[string]any{"channel": "room"},
			"cases.case_1.grants[0].object: give exactly one of record or turn"},
		{"both audiences", map[string]any{"record": "auth_a"}, map[string]any{"channel": "room", "principals": []any{"bob"}},
			"cases.case_1.grants[0].to: give exactly one of channel or principals"},
		{"nobody", map[string]any{"turn": "t1"}, map[string]any{"principals": []any{}},
			"cases.case_1.grants[0].to.principals: a grant to nobody widens nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("side.json", sidecarWithGrant(t, tc.object, tc.to))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	f, err := Parse("side.json", sidecarWithGrant(t, map[string]any{"turn": "t1"}, map[string]any{"principals": []any{"bob"}}))
	if err != nil {
		t.Fatal(err)
	}
	g := f.Cases["case_1"].Audience.Grants[0]
	if g.ObjectTurn != "t1" || g.ObjectRecord != "" || g.ToChannel != "" || strings.Join(g.ToPrincipals, ",") != "bob" {
		t.Errorf("grant read as %+v", g)
	}
}
