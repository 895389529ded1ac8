package engine

import (
	"math"
	"testing"
)

func TestPercentileIsNumpyLinear(t *testing.T) {
	// numpy.percentile([1, 2, 3, 4], q) for q = 2.5, 50, 97.5.
	xs := []float64{1, 2, 3, 4}
	for _, c := range []struct{ q, want float64 }{{2.5, 1.075}, {50, 2.5}, {97.5, 3.925}, {0, 1}, {100, 4}} {
		if got := percentile(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Fatalf("percentile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestPairedBootstrap(t *testing.T) {
	// Every unit: the un-gated arm acts on its one denied request, the gated one never does.
	var all []PairedUnit
	for i := 0; i < 20; i++ {
		all = append(all, PairedUnit{WrittenNum: 1, WrittenDen: 1, GatedNum: 0, GatedDen: 1})
	}
	d := PairedBootstrap(all, BootstrapSeed, 2000)
	if d.Difference == nil || *d.Difference != -1 || d.Interval == nil || d.Interval.Low != -1 || d.Interval.High != -1 || d.Interval.Draws != 2000 {
		t.Fatalf("constant difference: %+v %+v", d.Difference, d.Interval)
	}
	// Half the units change: the observed difference is -0.5 and lies inside a proper interval.
	var mixed []PairedUnit
	for i := 0; i < 40; i++ {
		u := PairedUnit{WrittenNum: 1, WrittenDen: 1, GatedDen: 1}
		if i%2 == 0 {
			u.GatedNum = 1
		}
		mixed = append(mixed, u)
	}
	m := PairedBootstrap(mixed, BootstrapSeed, BootstrapDraws)
	if *m.Difference != -0.5 || !(m.Interval.Low < -0.5 && -0.5 < m.Interval.High) || m.Interval.Low < -1 || m.Interval.High > 0 {
		t.Fatalf("mixed: %v %+v", *m.Difference, m.Interval)
	}
	again := PairedBootstrap(mixed, BootstrapSeed, BootstrapDraws)
	if *again.Interval != *m.Interval {
		t.Fatalf("same seed, different interval: %+v %+v", again.Interval, m.Interval)
	}
	other := PairedBootstrap(mixed, BootstrapSeed+1, BootstrapDraws)
	if *other.Interval == *m.Interval && other.Interval.Low != -1 {
		t.Logf("another seed gave the same interval %+v (possible, unlikely)", other.Interval)
	}
	// No denominator: nothing to estimate.
	none := PairedBootstrap([]PairedUnit{{WrittenNum: 0, WrittenDen: 0}}, BootstrapSeed, 100)
	if none.Difference != nil || none.Interval != nil {
		t.Fatalf("undefined rates gave %+v", none)
	}
	// A unit with no denominator is resampled too; draws made only of it are skipped.
	sparse := PairedBootstrap([]PairedUnit{{WrittenNum: 1, WrittenDen: 1, GatedDen: 1}, {}}, BootstrapSeed, 1000)
	if sparse.Interval == nil || sparse.Interval.Draws >= 1000 || sparse.Interval.Draws < 500 {
		t.Fatalf("sparse: %+v", sparse.Interval)
	}
}

func TestSafeguardTable(t *testing.T) {
	os := []SafeguardOutcome{
		{PolicyID: "p", Condition: "incremental_typed", Unit: "a", DeniedPairs: 2, UnauthorizedWritten: 2, UnauthorizedGated: 0, AuthorizedPairs: 2, AuthorizedWritten: 2, AuthorizedGated: 1,
			Prevented: 2, Refused: 1, FormationEstimable: true, FormedWritten: true},
		{PolicyID: "p", Condition: "incremental_typed", Unit: "b", DeniedPairs: 2, AuthorizedPairs: 2, AuthorizedWritten: 2, AuthorizedGated: 2, FormationEstimable: true, NotEstimable: 1},
		{PolicyID: "p", Condition: "incremental_text", Unit: "c", NotApplicable: true},
		{PolicyID: "p", Condition: "one_shot_typed", Unit: "d", DeniedPairs: 1, AuthorizedPairs: 1, AuthorizedWritten: 1, AuthorizedGated: 1},
	}
	rows := SafeguardTable(os, BootstrapSeed, 500)
	if len(rows) != 3 || rows[0].Condition != "one_shot_typed" || rows[1].Condition != "incremental_text" || rows[2].Condition != "incremental_typed" {
		t.Fatalf("rows in wrong order: %+v", rows)
	}
	r := rows[2]
	if r.Chains != 2 || r.ChainsStopped != 1 || r.ChainsRefused != 1 || r.Prevented != 2 || r.Refused != 1 || r.NotEstimable != 1 {
		t.Fatalf("row counts: %+v", r)
	}
	if r.UnauthorizedAction.Written.Numerator != 2 || r.UnauthorizedAction.Written.Denominator != 4 || r.UnauthorizedAction.Gated.Numerator != 0 ||
		*r.UnauthorizedAction.Difference != -0.5 || *r.AuthorizedSuccess.Difference != -0.25 || *r.Formation.Difference != -0.5 {
		t.Fatalf("row metrics: %+v", r)
	}
	if na := rows[1]; na.NotApplicable != 1 || na.UnauthorizedAction.Difference != nil || na.UnauthorizedAction.Written.Rate != nil {
		t.Fatalf("not applicable row: %+v", na)
	}
}
