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

// TestRerunPanelHintsFollowTheKeyMap: with the form's keys remapped, every hint the re-run
// panel prints (the form, a running re-run, the results) names the remapped keys, never the
// defaults.
func TestRerunPanelHintsFollowTheKeyMap(t *testing.T) {
	s, _ := testStore(t)
	keys := DefaultKeyMap()
	err := keys.Remap(map[string][]string{
		"chain.prev_block": {"H"}, "chain.next_block": {"L"}, "chain.up": {"K"}, "chain.down": {"J"},
		"list.open": {"O"}, "global.back": {"backspace"},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: &keys, width: 120, height: 40}
	p := newRerunPanel(c, s, nil, formingChain(t), 0)
	p.Update(p.Init()())
	form := stripANSI(p.View(120, 30))
	p.running, p.total = true, 2
	running := stripANSI(p.View(120, 30))
	p.running, p.shown = false, []string{"none"}
	results := stripANSI(p.View(120, 30))
	for name, view := range map[string]string{"form": form, "running": running, "results": results} {
		for _, old := range []string{"←/→", "↑/↓", "enter", "esc", "j/k"} {
			if strings.Contains(view, old) {
				t.Errorf("%s names the default %q:\n%s", name, old, view)
			}
		}
	}
	for _, want := range []string{"H, L change", "K, J move", "O run", "backspace close", "(O reopens)"} {
		if !strings.Contains(form, want) {
			t.Errorf("form lacks %q:\n%s", want, form)
		}
	}
	if !strings.Contains(running, "backspace cancels") {
		t.Errorf("running view lacks the cancel key:\n%s", running)
	}
	if !strings.Contains(results, "backspace: back to the form") {
		t.Errorf("results view lacks the back key:\n%s", results)
	}
	chain := newChainScreen(c, s, s, formingChain(t), 0)
	chain.rerun = p
	var help []string
	for _, b := range chain.rerunHelp() {
		help = append(help, b.Help().Key)
	}
	if got := strings.Join(help, " "); got != "K, J H, L O backspace" {
		t.Errorf("the re-run panel's key bar names %q", got)
	}
}
