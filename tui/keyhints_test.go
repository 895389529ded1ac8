package tui

import (
	"strings"
	"testing"
)

// TestKeyHintsFollowTheKeyMap: with first-false-authority remapped to F and re-run to R, the
// chain view's header names F (not "(f)") and the story's notes name R.
func TestKeyHintsFollowTheKeyMap(t *testing.T) {
	s, runID := testStore(t)
	k := formingChain(t)
	keys := map[string][]string{"chain.first_false_authority": {"F"}, "chain.rerun": {"R"}}
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Keys: keys, Start: Start{Chain: &k, Block: 0}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 160, 45)
	head := strings.SplitN(frame(m, runID), "\n", 2)[0]
	if !strings.Contains(head, "(F)") || strings.Contains(head, "(f)") {
		t.Errorf("header with f remapped to F: %q", head)
	}
	data, err := LoadStory(t.Context(), s, nil, k, -1)
	if err != nil {
		t.Fatal(err)
	}
	data.Keys = StoryKeys{Rerun: "R"}
	for _, st := range buildStory(data).Steps {
		if strings.Contains(st.Note, "Press r ") {
			t.Errorf("story note names the default key: %q", st.Note)
		}
	}
}
