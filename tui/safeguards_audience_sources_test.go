package tui

import (
	"fmt"
	"strings"
	"testing"
)

// TestExcludedRecordShowsTheNarrowingTurns: a record bound to many turns lists the ones said
// where a viewer was not present (they are what narrows its audience), not merely the last
// few, which under input binding are usually other chatter.
func TestExcludedRecordShowsTheNarrowingTurns(t *testing.T) {
	var r AudienceRecordView
	for i := range 12 {
		r.Sources = append(r.Sources, SourceTurn{ID: fmt.Sprintf("t%02d", i)})
		ch := "ops-room"
		if i == 2 || i == 5 {
			ch = "dm-cfo"
		}
		r.SourceChannels = append(r.SourceChannels, ch)
		r.LeavesOut = append(r.LeavesOut, ch == "dm-cfo")
	}
	shown, channels, more := shownSources(r)
	var ids []string
	for _, s := range shown {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, ","); got != "t02,t05,t10,t11" {
		t.Errorf("shown turns %s, want t02,t05,t10,t11 (the two said in dm-cfo, then the latest)", got)
	}
	if len(channels) != len(shown) || channels[0] != "dm-cfo" || channels[2] != "ops-room" {
		t.Errorf("channels %v do not follow the shown turns", channels)
	}
	if !strings.Contains(more, "4 of 12 turns") || !strings.Contains(more, "the 2 said where a viewer was not present") {
		t.Errorf("the note %q does not say how the turns were picked", more)
	}
	// When no source (or every source) leaves a viewer out, the latest are shown and the note
	// says so.
	for i := range r.LeavesOut {
		r.LeavesOut[i] = false
	}
	shown, _, more = shownSources(r)
	if shown[0].ID != "t08" || !strings.Contains(more, "the last 4 of 12") {
		t.Errorf("all in one channel: shown from %s, note %q", shown[0].ID, more)
	}
}
