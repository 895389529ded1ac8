package multiparty

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// benchCases is the size of the benchmark's generated corpus (EALSCOPE_AUDIENCE_BENCH_CASES,
// default 10,000 histories).
func benchCases() int {
	if n, err := strconv.Atoi(os.Getenv("EALSCOPE_AUDIENCE_BENCH_CASES")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// recallAt5 is entitled recall at a context budget of five items (the paper's Recall@5):
// entitled items in the context over entitled items present.
type recallAt5 struct{ contexts, present, unscoped, input, cited int }

// BenchmarkAudienceBound streams the generated procurement multi-party corpus (distractor
// counts 0, 1, 3, 7 cycled over the histories) and, per history, admits the ledger's final
// memory for every request through the policy (input binding, intersection): contexts per
// second of the policy alone, and the memory the process took from the system. It logs the
// recall gap against unscoped retrieval per distractor count: the grantee's requests, the
// memory plus one other-audience item per distractor conversation, ranked in a seeded random
// order, the first five admitted items as the context.
func BenchmarkAudienceBound(b *testing.B) {
	n := benchCases()
	d, err := domains.Get("procurement")
	if err != nil {
		b.Fatal(err)
	}
	rules := d.(engine.AudienceRules)
	pol := safeguards.AudienceBound()
	for it := 0; it < b.N; it++ {
		var policy time.Duration
		contexts := 0
		gap := map[int]*recallAt5{}
		err := Each("procurement", n, 1, func(i int) int { return DistractorCycle[i%len(DistractorCycle)] }, func(i int, c *engine.Case, e *audience.Entry) error {
			last := c.LastBlock()
			recs, err := d.Replay(c, last)
			if err != nil {
				return err
			}
			ev := engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.TypedPayload(recs)}
			for _, r := range c.Audience.Requests {
				r := r
				in := engine.MemoryInput{Domain: d, Case: c, Block: last, Evidence: ev, Condition: "faithful_typed", Request: &r}
				t0 := time.Now()
				if _, err := pol.Memory.TransformMemory(in); err != nil {
					return err
				}
				policy += time.Since(t0)
				contexts++
				if strings.HasSuffix(r.ID, "@grantee") {
					k := DistractorCycle[i%len(DistractorCycle)]
					if gap[k] == nil {
						gap[k] = &recallAt5{}
					}
					if err := addRecall(gap[k], rules, c, e, in, i); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(contexts)/policy.Seconds(), "contexts/s")
		b.ReportMetric(float64(contexts), "contexts")
		b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
		var ks []int
		for k := range gap {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		for _, k := range ks {
			g := gap[k]
			f := func(x int) string { return fmt.Sprintf("%.3f", float64(x)/float64(max(g.present, 1))) }
			b.Logf("distractors %d: %d grantee contexts, %d entitled items; Recall@5 unscoped %s, audience_bound input %s, cited %s (gap cited-unscoped %+.3f)",
				k, g.contexts, g.present, f(g.unscoped), f(g.input), f(g.cited), float64(g.cited-g.unscoped)/float64(max(g.present, 1)))
		}
	}
}

// addRecall adds one grantee request's Recall@5 under unscoped retrieval and both bindings.
func addRecall(g *recallAt5, rules engine.AudienceRules, c *engine.Case, e *audience.Entry, in engine.MemoryInput, i int) error {
	items, err := safeguards.MemoryItems(in, safeguards.BindingCited)
	if err != nil {
		return err
	}
	inputItems, err := safeguards.MemoryItems(in, safeguards.BindingInput)
	if err != nil {
		return err
	}
	viewers := rules.RequestViewers(c, *in.Request)
	entitled := map[string]bool{}
	for _, it := range items {
		entitled[it.ID] = viewers.CoveredBy(audience.TrueAudience(c.Audience, e.Truth.Records[it.ID], it.ID, in.Block))
	}
	// One other-audience item per distractor conversation, made from its turn.
	var rooms []string
	for turn, ch := range c.Audience.TurnChannels {
		if strings.HasPrefix(ch, "room_") {
			rooms = append(rooms, turn)
		}
	}
	sort.Strings(rooms)
	for k, turn := range rooms {
		d := safeguards.AudienceItem{ID: fmt.Sprintf("distractor_%d", k), Sources: []string{turn}}
		items = append(items, d)
		inputItems = append(inputItems, safeguards.AudienceItem{ID: d.ID, Sources: inputItems[0].Sources})
	}
	order := rand.New(rand.NewPCG(uint64(i), 5)).Perm(len(items))
	cited := safeguards.AdmitItems(rules, c, in.Block, viewers, items, safeguards.AudienceParams{Binding: safeguards.BindingCited})
	input := safeguards.AdmitItems(rules, c, in.Block, viewers, inputItems, safeguards.AudienceParams{})
	g.contexts++
	top := func(keep func(j int) bool) int {
		hit, taken := 0, 0
		for _, j := range order {
			if taken == 5 {
				break
			}
			if keep(j) {
				taken++
				if entitled[items[j].ID] {
					hit++
				}
			}
		}
		return hit
	}
	for _, it := range items {
		if entitled[it.ID] {
			g.present++
		}
	}
	g.unscoped += top(func(int) bool { return true })
	g.cited += top(func(j int) bool { return cited[j].Kept })
	g.input += top(func(j int) bool { return input[j].Kept })
	return nil
}
