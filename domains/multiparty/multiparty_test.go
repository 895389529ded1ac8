package multiparty

import (
	"testing"

	"github.com/ealscope/ealscope/engine/audience"
)

func TestBuiltinCorporaBindAndCoverScenarios(t *testing.T) {
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		c, err := Builtin(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if len(c.Cases) < 8 {
			t.Errorf("%s: %d cases, want at least 8", id, len(c.Cases))
		}
		seen := map[string]int{}
		for _, cs := range c.Cases {
			if cs.Audience == nil {
				t.Fatalf("%s %s: no audience attached", id, cs.ID)
			}
			for _, s := range c.Truths[cs.ID].Scenarios {
				seen[s]++
			}
		}
		for _, s := range []string{audience.ScenarioPrivateGrant, audience.ScenarioMergedNarrowing, audience.ScenarioWideningGrant, audience.ScenarioUnresolvedViewer} {
			if seen[s] == 0 {
				t.Errorf("%s: no case of scenario %s (%v)", id, s, seen)
			}
		}
		t.Logf("%s: %d cases, scenarios %v, sidecar %d bytes", id, len(c.Cases), seen, len(c.SidecarData))
	}
}

// TestStreamedSidecarMatchesWhole: the sidecar of a corpus made without keeping its cases is
// byte for byte the one made with them.
func TestStreamedSidecarMatchesWhole(t *testing.T) {
	cycle := func(i int) int { return DistractorCycle[i%len(DistractorCycle)] }
	a, err := Generate("procurement", 20, 3, cycle, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate("procurement", 20, 3, cycle, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.SidecarData) != string(b.SidecarData) {
		t.Fatal("streamed sidecar differs from the whole one")
	}
}
