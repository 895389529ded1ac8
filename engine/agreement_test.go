package engine

import (
	"fmt"
	"math"
	"testing"
)

// Cohen's classic worked example: 50 items, yes/yes 20, yes/no 5, no/yes 10, no/no 15:
// p_o = 0.70, p_e = 0.5*0.6 + 0.5*0.4 = 0.50, kappa = 0.40.
func TestCohensKappaWorkedExample(t *testing.T) {
	labels := Labels{}
	add := func(n int, a, b string) {
		for i := 0; i < n; i++ {
			labels[fmt.Sprintf("u%d", len(labels))] = map[string]string{"ann": a, "bob": b}
		}
	}
	add(20, "yes", "yes")
	add(5, "yes", "no")
	add(10, "no", "yes")
	add(15, "no", "no")
	k, n := CohensKappa(labels, "ann", "bob")
	if n != 50 || k == nil || math.Abs(*k-0.4) > 1e-12 {
		t.Fatalf("kappa = %v over %d, want 0.4 over 50", deref(k), n)
	}
}

func TestCohensKappaEdges(t *testing.T) {
	if k, n := CohensKappa(Labels{"u": {"ann": "x"}}, "ann", "bob"); k != nil || n != 0 {
		t.Errorf("no shared units: got %v, %d", deref(k), n)
	}
	// Both always say "active": chance agreement is 1, kappa undefined.
	same := Labels{"u1": {"a": "active", "b": "active"}, "u2": {"a": "active", "b": "active"}}
	if k, _ := CohensKappa(same, "a", "b"); k != nil {
		t.Errorf("degenerate labels: kappa %v, want undefined", *k)
	}
	// Perfect agreement with two categories is 1.
	perfect := Labels{"u1": {"a": "x", "b": "x"}, "u2": {"a": "y", "b": "y"}}
	if k, _ := CohensKappa(perfect, "a", "b"); k == nil || *k != 1 {
		t.Errorf("perfect agreement: kappa %v", deref(k))
	}
}

// Krippendorff's (2011) reliability-data example: 4 coders, 12 units, nominal alpha = 0.743.
func TestKrippendorffAlphaWorkedExample(t *testing.T) {
	rows := map[string][]string{
		"A": {"1", "2", "3", "3", "2", "1", "4", "1", "2", "", "", ""},
		"B": {"1", "2", "3", "3", "2", "2", "4", "1", "2", "5", "", "3"},
		"C": {"", "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", ""},
		"D": {"1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", ""},
	}
	labels := Labels{}
	for coder, values := range rows {
		for i, v := range values {
			if v == "" {
				continue
			}
			u := fmt.Sprintf("unit%02d", i+1)
			if labels[u] == nil {
				labels[u] = map[string]string{}
			}
			labels[u][coder] = v
		}
	}
	a, pairable := KrippendorffAlpha(labels)
	if a == nil || math.Abs(*a-0.743) > 0.0005 {
		t.Fatalf("alpha = %v, want 0.743", deref(a))
	}
	if pairable != 40 { // unit 12 has a single value and is not pairable
		t.Errorf("pairable values = %d, want 40", pairable)
	}
}

// Two annotators, four units, computed by hand from the coincidence matrix.
func TestKrippendorffAlphaTwoCoders(t *testing.T) {
	labels := Labels{
		"u1": {"a": "x", "b": "x"}, "u2": {"a": "x", "b": "y"},
		"u3": {"a": "y", "b": "y"}, "u4": {"a": "y", "b": "y"},
	}
	// Coincidences: o_xx=2, o_xy=o_yx=1, o_yy=4; n_x=3, n_y=5, n=8.
	// alpha = 1 - (n-1) * (o_xy+o_yx) / (n_x n_y + n_y n_x) = 1 - 7*2/30 = 0.5333...
	a, _ := KrippendorffAlpha(labels)
	if a == nil || math.Abs(*a-(1-14.0/30.0)) > 1e-12 {
		t.Fatalf("alpha = %v, want %v", deref(a), 1-14.0/30.0)
	}
	if a, _ := KrippendorffAlpha(Labels{"u": {"a": "x", "b": "x"}}); a != nil {
		t.Errorf("one value kind: alpha %v, want undefined", *a)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
