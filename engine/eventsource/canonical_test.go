package eventsource_test

import (
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay"
)

// TestCanonicalReplayBuiltin replays every built-in case's canonical events block by block,
// with the visible sources and addressable ids the runtime derives, and checks that every
// batch is accepted and that the reduced state equals the domain's faithful typed memory at
// that block: a writer that misses nothing reproduces the ledger (equals_faithful_typed_at_block
// in EAL-Bench's reference reductions).
func TestCanonicalReplayBuiltin(t *testing.T) {
	counter := replay.RegexFallbackTokenizer()
	for _, id := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(id, func(t *testing.T) {
			d, cases, err := domains.BuiltinCases(id)
			if err != nil {
				t.Fatal(err)
			}
			blocks := 0
			for _, c := range cases {
				r, err := eventsource.ForDomain(d)
				if err != nil {
					t.Fatal(err)
				}
				canonical, err := eventsource.CanonicalEvents(r.Spec, d, c)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range c.Blocks {
					prev, err := r.VisibleState()
					if err != nil {
						t.Fatal(err)
					}
					visible, addressable := eventsource.BlockContext(r, prev, c, b.Index, d.RenderBlock(c, b.Index))
					events := []any{}
					for _, e := range canonical[b.Index] {
						events = append(events, e)
					}
					args, err := pyjson.Retree(map[string]any{"events": events})
					if err != nil {
						t.Fatal(err)
					}
					batch, err := eventsource.ValidateBatch(r, eventsource.BatchInput{
						Arguments: args, VisibleSourceIDs: visible, AddressableAuthorizationIDs: addressable,
						LogicalUpdateID: c.ID + "/" + b.ID, CapacityTokens: d.CapacityTokens(),
					}, counter)
					if err != nil {
						t.Fatalf("case %s block %d: %v", c.ID, b.Index, err)
					}
					r = batch.Reducer
					records, err := d.Replay(c, b.Index)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := canon(t, batch.ReducedState), canon(t, d.TypedPayload(records)); got != want {
						t.Fatalf("case %s block %d: reduced state\n got %s\nwant %s", c.ID, b.Index, got, want)
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
