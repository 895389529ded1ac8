package runs

import (
	"context"
	"reflect"
	"testing"
)

// TestAdjudicationIsNotAnAnnotation: an adjudicator who takes one annotator's label settles
// the disagreement; `annotate agreement` still compares the two annotators only.
func TestAdjudicationIsNotAnAnnotation(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	exact := f.disagree(t)
	before := f.agreement(t)
	if _, err := f.s.Adjudicate(ctx, f.mem.MemoryID, "dana", exact, ""); err != nil {
		t.Fatal(err)
	}
	after := f.agreement(t)
	if want := []string{"alice", "bob"}; !reflect.DeepEqual(after.Annotators, want) {
		t.Errorf("annotators after adjudication %v, want %v", after.Annotators, want)
	}
	if !reflect.DeepEqual(before.All, after.All) {
		t.Errorf("adjudication changed the agreement figures: %+v then %+v", before.All, after.All)
	}
}
