package eventsourcetests_test

import (
	"github.com/ealscope/ealscope/engine/reftoken"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/eventsource"
)

// BenchmarkCanonicalReplay reduces every block of every built-in cybersecurity case from its
// canonical events (validation on a clone, the strict parser on the state before and after,
// the capacity count with the reference tokenizer): the reducer's cost per block.
func BenchmarkCanonicalReplay(b *testing.B) {
	d, cases, err := domains.BuiltinCases("cybersecurity")
	if err != nil {
		b.Fatal(err)
	}
	counter := reftoken.Reference()
	var plans [][]eventsource.BatchInput
	for _, c := range cases {
		var plan []eventsource.BatchInput
		for _, st := range replayCanonical(b, d, c, counter) {
			plan = append(plan, st.input)
		}
		plans = append(plans, plan)
	}
	b.ReportAllocs()
	b.ResetTimer()
	blocks := 0
	for i := 0; i < b.N; i++ {
		for _, plan := range plans {
			r, _ := eventsource.ForDomain(d)
			for _, in := range plan {
				batch, err := eventsource.ValidateBatch(r, in, counter)
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
