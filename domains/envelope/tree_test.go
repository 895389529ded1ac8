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
