package eventsource_test

import (
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay"
)

// BenchmarkCanonicalReplay reduces every block of every built-in cybersecurity case from its
// canonical events (validation on a clone, the strict parser on the state before and after,
// the capacity count with the reference tokenizer): the reducer's cost per block.
func BenchmarkCanonicalReplay(b *testing.B) {
	d, cases, err := domains.BuiltinCases("cybersecurity")
	if err != nil {
		b.Fatal(err)
	}
	counter := replay.ReferenceTokenizer()
	type block struct {
		args        any
		visible     []string
		addressable []string
	}
	var plans [][]block
	for _, c := range cases {
		r, _ := eventsource.ForDomain(d)
		canonical, err := eventsource.CanonicalEvents(r.Spec, d, c)
		if err != nil {
			b.Fatal(err)
		}
		var plan []block
		for _, blk := range c.Blocks {
			prev, _ := r.VisibleState()
			visible, addressable := eventsource.BlockContext(r, prev, c, blk.Index, d.RenderBlock(c, blk.Index))
			events := []any{}
			for _, e := range canonical[blk.Index] {
				events = append(events, e)
			}
			args, _ := pyjson.Retree(map[string]any{"events": events})
			batch, err := eventsource.ValidateBatch(r, eventsource.BatchInput{Arguments: args, VisibleSourceIDs: visible, AddressableAuthorizationIDs: addressable, LogicalUpdateID: "u", CapacityTokens: 1 << 30}, counter)
			if err != nil {
				b.Fatal(err)
			}
			r = batch.Reducer
			plan = append(plan, block{args, visible, addressable})
		}
		plans = append(plans, plan)
	}
	b.ReportAllocs()
	b.ResetTimer()
	blocks := 0
	for i := 0; i < b.N; i++ {
		for _, plan := range plans {
			r, _ := eventsource.ForDomain(d)
			for _, blk := range plan {
				batch, err := eventsource.ValidateBatch(r, eventsource.BatchInput{Arguments: blk.args, VisibleSourceIDs: blk.visible, AddressableAuthorizationIDs: blk.addressable, LogicalUpdateID: "u", CapacityTokens: 1 << 30}, counter)
				if err != nil {
					b.Fatal(err)
				}
				r = batch.Reducer
				blocks++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(blocks), "ns/block")
}
