package eventsourcetests_test

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// canonicalStep is one block of a case replayed from its canonical events: the input the
// runtime hands the reducer and the batch the reducer accepted.
type canonicalStep struct {
	block int
	input eventsource.BatchInput
	batch *eventsource.Batch
}

// replayCanonical replays a case block by block from its canonical events, with the visible
// sources and addressable ids the runtime derives from the state before each block, the
// logical update id <case>/<block> and the domain's capacity; every batch must be accepted.
func replayCanonical(t testing.TB, d engine.Domain, c *engine.Case, counter eventsource.TokenCounter) []canonicalStep {
	t.Helper()
	r, err := eventsource.ForDomain(d)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := eventsource.CanonicalEvents(r.Spec, d, c)
	if err != nil {
		t.Fatal(err)
	}
	var steps []canonicalStep
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
		in := eventsource.BatchInput{
			Arguments: args, VisibleSourceIDs: visible, AddressableAuthorizationIDs: addressable,
			LogicalUpdateID: c.ID + "/" + b.ID, CapacityTokens: d.CapacityTokens(),
		}
		batch, err := eventsource.ValidateBatch(r, in, counter)
		if err != nil {
			t.Fatalf("case %s block %d: %v", c.ID, b.Index, err)
		}
		r = batch.Reducer
		steps = append(steps, canonicalStep{block: b.Index, input: in, batch: batch})
	}
	return steps
}
