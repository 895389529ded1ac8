package engine

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Paired bootstrap intervals of a difference of rates, as EAL-Bench's safeguard analyses
// report them (docs/FORMATS.md 8.2: seed 20260821, 10,000 draws).
//
// The resampling unit is a chain (one case under one condition and writer run): a draw picks
// as many units as there are, with replacement, and recomputes both arms' rates as ratios of
// summed numerators over summed denominators, keeping the two arms of a unit together (that
// is what makes it paired). The interval is the 2.5th and 97.5th percentile of the draws'
// differences (gated minus un-gated), interpolated linearly between order statistics as
// numpy.percentile does by default. The generator is Go's PCG (math/rand/v2,
// rand.NewPCG(seed, 0)) and each index is rand.IntN(n): EAL-Bench uses numpy's generator, so
// the draws, and the interval's last digits, cannot match its bytes; the unit, the statistic
// and the percentile rule do.

// BootstrapSeed and BootstrapDraws are EAL-Bench's analysis settings.
const (
	BootstrapSeed  = 20260821
	BootstrapDraws = 10000
)

// PairedUnit is one resampling unit: both arms' numerator and denominator.
type PairedUnit struct {
	WrittenNum, WrittenDen int
	GatedNum, GatedDen     int
}

// Interval is a bootstrap percentile interval; Draws counts the draws whose rates were
// defined on both arms (a draw of units with no denominator is skipped).
type Interval struct {
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Draws int     `json:"draws"`
}

// PairedDifference is the observed difference (gated rate minus un-gated rate) and its 95%
// paired bootstrap interval. Difference is nil when either rate is undefined (no
// denominator), Interval nil when no draw was defined.
type PairedDifference struct {
	Difference *float64  `json:"difference"`
	Interval   *Interval `json:"interval_95"`
}

// PairedBootstrap computes the difference and its interval over units, with the given seed
// and number of draws.
func PairedBootstrap(units []PairedUnit, seed uint64, draws int) PairedDifference {
	var out PairedDifference
	d, ok := unitsDifference(units, nil)
	if !ok {
		return out
	}
	out.Difference = &d
	n := len(units)
	rng := rand.New(rand.NewPCG(seed, 0))
	idx := make([]int, n)
	diffs := make([]float64, 0, draws)
	for i := 0; i < draws; i++ {
		for j := range idx {
			idx[j] = rng.IntN(n)
		}
		if v, ok := unitsDifference(units, idx); ok {
			diffs = append(diffs, v)
		}
	}
	if len(diffs) == 0 {
		return out
	}
	sort.Float64s(diffs)
	out.Interval = &Interval{Low: percentile(diffs, 2.5), High: percentile(diffs, 97.5), Draws: len(diffs)}
	return out
}

// unitsDifference is gated rate minus written rate over the units picked by idx (nil: all).
func unitsDifference(units []PairedUnit, idx []int) (float64, bool) {
	var wn, wd, gn, gd int
	add := func(u PairedUnit) {
		wn, wd, gn, gd = wn+u.WrittenNum, wd+u.WrittenDen, gn+u.GatedNum, gd+u.GatedDen
	}
	if idx == nil {
		for _, u := range units {
			add(u)
		}
	} else {
		for _, i := range idx {
			add(units[i])
		}
	}
	if wd == 0 || gd == 0 {
		return 0, false
	}
	return float64(gn)/float64(gd) - float64(wn)/float64(wd), true
}

// percentile is numpy.percentile's default (linear) rule on sorted values.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := q / 100 * float64(len(sorted)-1)
	lo := math.Floor(pos)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := pos - lo
	return sorted[i] + frac*(sorted[i+1]-sorted[i])
}
