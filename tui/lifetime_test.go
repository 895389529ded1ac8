package tui

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/ealscope/ealscope/runs"
)

// blockingRuns is a workspace whose runs query waits until its context ends, as a slow query
// on a large workspace would, and reports the context it was given.
type blockingRuns struct {
	Store
	called chan context.Context
}

func (b blockingRuns) Runs(ctx context.Context) ([]runs.RunSummary, error) {
	b.called <- ctx
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestQuitCancelsCommands: a query still running when the program quits is cancelled with
// it, instead of running on against the workspace after the screen is gone.
func TestQuitCancelsCommands(t *testing.T) {
	store := blockingRuns{called: make(chan context.Context, 1)}
	in, keys := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), Options{Store: store, NoColor: true}, in, &bytes.Buffer{}) }()
	var queryCtx context.Context
	select {
	case queryCtx = <-store.called:
	case <-time.After(30 * time.Second):
		t.Fatal("the runs screen never queried the workspace")
	}
	io.WriteString(keys, "q")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-queryCtx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the program ended but the query it started was not cancelled")
	}
}

// TestAnnotatorFromOptions: the annotator the chain view's annotation screen labels as comes
// from the options (the command reads the environment), never from the TUI's own environment.
func TestAnnotatorFromOptions(t *testing.T) {
	t.Setenv("EALSCOPE_ANNOTATOR", "from-the-environment")
	t.Setenv("USER", "from-the-environment")
	if got := annotatorOf(Options{}); got != "annotator" {
		t.Errorf("no annotator in the options: %q, want annotator", got)
	}
	if got := annotatorOf(Options{Annotator: "ana"}); got != "ana" {
		t.Errorf("options name ana: %q", got)
	}
	if got := annotatorOf(Options{Annotator: "ana", Annotate: &AnnotateStart{Annotator: "bo"}}); got != "bo" {
		t.Errorf("the annotation command names bo: %q", got)
	}
}

// TestWordDiffOncePerBlock: drawing a free-text chain's memory pane again (every frame: a
// key, a resize, the spinner) reuses the block's word diff instead of diffing again.
func TestWordDiffOncePerBlock(t *testing.T) {
	s, runID := testStore(t)
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: runID, Condition: "incremental_text"})
	if err != nil || len(rows) == 0 {
		t.Fatalf("no free-text chain in the fixture (err %v)", err)
	}
	k := presentChain(rows[0]).Key
	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: 2}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 160, 50)
	m.View()
	drawn := m.chain.words.computed
	if drawn == 0 {
		t.Fatal("the memory pane drew no word diff")
	}
	for i := 0; i < 3; i++ {
		m.View()
	}
	if m.chain.words.computed != drawn {
		t.Fatalf("%d word diffs for the first frame, %d after three more frames of the same block", drawn, m.chain.words.computed)
	}
}
