package eventsourcetests_test

import (
	"github.com/ealscope/ealscope/engine/reftoken"
	"testing"

	"github.com/ealscope/ealscope/domains"
)

// TestCanonicalReplayBuiltin replays every built-in case's canonical events block by block,
// with the visible sources and addressable ids the runtime derives, and checks that every
// batch is accepted and that the reduced state equals the domain's faithful typed memory at
// that block: a writer that misses nothing reproduces the ledger (equals_faithful_typed_at_block
// in EAL-Bench's reference reductions).
func TestCanonicalReplayBuiltin(t *testing.T) {
	counter := reftoken.RegexFallback()
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(id, func(t *testing.T) {
			d, cases, err := domains.BuiltinCases(id)
			if err != nil {
				t.Fatal(err)
			}
			blocks := 0
			for _, c := range cases {
				for _, st := range replayCanonical(t, d, c, counter) {
					records, err := d.Replay(c, st.block)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := canon(t, st.batch.ReducedState), canon(t, d.TypedPayload(records)); got != want {
						t.Fatalf("case %s block %d: reduced state\n got %s\nwant %s", c.ID, st.block, got, want)
					}
					blocks++
				}
			}
			if blocks == 0 {
				t.Fatal("no blocks replayed")
			}
			t.Logf("%d cases, %d blocks", len(cases), blocks)
		})
	}
}
