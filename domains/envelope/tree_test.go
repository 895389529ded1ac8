package envelope

import (
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestTurnsTreeRoundTrip: every block's turns, written by TurnsTree, are the turns of the
// corpus text ParseBlocks read them from.
func TestTurnsTreeRoundTrip(t *testing.T) {
	doc := tree(t, testBlocks)
	blocks, err := ParseBlocks("blocks", doc)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		want := pyjson.MustCanonicalJSON(doc.([]any)[i].(map[string]any)["turns"])
		if got := pyjson.MustCanonicalJSON(TurnsTree(b.Turns)); got != want {
			t.Errorf("block %d turns:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestOptionalFieldsByName: each nullable envelope name reaches the field the record's tree
// writes under that name, and Clone copies every one of them.
func TestOptionalFieldsByName(t *testing.T) {
	r := &Record{ID: "A", State: StatusActive, Scope: Scope{}}
	for _, name := range optionalNames {
		*r.optional(name) = Str("v_" + name)
	}
	tree := r.Tree(testScope)
	c := r.Clone()
	for _, name := range optionalNames {
		if got := tree[name]; got != "v_"+name {
			t.Errorf("field %s: tree has %v", name, got)
		}
		**r.optional(name) = "changed"
		if got := *c.optional(name); *got != "v_"+name {
			t.Errorf("field %s: the clone shares the original's string (%s)", name, *got)
		}
	}
	if r.optional("status") != nil || r.optional("scope") != nil {
		t.Error("status and scope are not nullable string fields")
	}
}
