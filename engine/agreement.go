package engine

import "sort"

// Agreement statistics for annotation labels (nominal data). A label set maps a unit (for
// example "memory m / record r / field status") to each annotator's value for it.

// Labels maps unit -> annotator -> value.
type Labels map[string]map[string]string

// CohensKappa is chance-corrected agreement between two annotators over the units both
// labelled: (p_o - p_e) / (1 - p_e). It is nil when no unit is shared or when chance
// agreement is already perfect (every shared unit has one and the same value), where kappa is
// undefined.
func CohensKappa(labels Labels, a, b string) (kappa *float64, shared int) {
	var pairs [][2]string
	for _, byAnnotator := range labels {
		va, okA := byAnnotator[a]
		vb, okB := byAnnotator[b]
		if okA && okB {
			pairs = append(pairs, [2]string{va, vb})
		}
	}
	n := len(pairs)
	if n == 0 {
		return nil, 0
	}
	agree := 0
	countA, countB := map[string]int{}, map[string]int{}
	for _, p := range pairs {
		if p[0] == p[1] {
			agree++
		}
		countA[p[0]]++
		countB[p[1]]++
	}
	po := float64(agree) / float64(n)
	pe := 0.0
	for v, ca := range countA {
		pe += float64(ca) / float64(n) * float64(countB[v]) / float64(n)
	}
	if pe == 1 {
		return nil, n
	}
	k := (po - pe) / (1 - pe)
	return &k, n
}

// KrippendorffAlpha is Krippendorff's alpha for nominal data with any number of annotators
// and missing labels: 1 - (n-1) * sum_{c!=k} o_ck / sum_{c!=k} n_c n_k over the coincidence
// matrix of pairable values (units with at least two labels). It is nil when fewer than two
// pairable values exist or all pairable values are the same.
func KrippendorffAlpha(labels Labels) (alpha *float64, pairable int) {
	coincidence := map[[2]string]float64{}
	units := make([]string, 0, len(labels))
	for u := range labels {
		units = append(units, u)
	}
	sort.Strings(units) // deterministic float summation order
	for _, u := range units {
		values := make([]string, 0, len(labels[u]))
		annotators := make([]string, 0, len(labels[u]))
		for ann := range labels[u] {
			annotators = append(annotators, ann)
		}
		sort.Strings(annotators)
		for _, ann := range annotators {
			values = append(values, labels[u][ann])
		}
		m := len(values)
		if m < 2 {
			continue
		}
		pairable += m
		for i := range values {
			for j := range values {
				if i != j {
					coincidence[[2]string{values[i], values[j]}] += 1 / float64(m-1)
				}
			}
		}
	}
	if pairable < 2 {
		return nil, pairable
	}
	marginals := map[string]float64{}
	for pair, o := range coincidence {
		marginals[pair[0]] += o
	}
	n := 0.0
	for _, nc := range marginals {
		n += nc
	}
	observed := 0.0
	for pair, o := range coincidence {
		if pair[0] != pair[1] {
			observed += o
		}
	}
	expected := 0.0
	for c, nc := range marginals {
		for k, nk := range marginals {
			if c != k {
				expected += nc * nk
			}
		}
	}
	if expected == 0 {
		return nil, pairable
	}
	a := 1 - (n-1)*observed/expected
	return &a, pairable
}
