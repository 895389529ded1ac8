package safeguards

import "testing"

// The CI-sized run: 10,000 random traces and the enumeration to a smaller bound than
// `ealscope verify memtx` (bound 7, about 1.0 million states).
func TestMemTXInvariantsHoldOnTracesAndEnumeration(t *testing.T) {
	cfg := MemTXVerifyConfig{Traces: 10000, TraceLength: 40, Bound: 6, Seed: 20260821}
	rep := VerifyMemTX(cfg)
	t.Logf("traces %d (%d steps), states enumerated %d (bound %d), actions checked %d, violations %d",
		rep.Traces, rep.TraceSteps, rep.StatesEnumerated, rep.Bound, rep.ActionsChecked, rep.Violations)
	if rep.Traces != 10000 || rep.TraceSteps != 400000 {
		t.Fatalf("ran %d traces, %d steps", rep.Traces, rep.TraceSteps)
	}
	if rep.StatesEnumerated < 100000 {
		t.Fatalf("only %d states enumerated at bound 6", rep.StatesEnumerated)
	}
	if rep.ActionsChecked == 0 {
		t.Fatal("no action ran: I1 was never exercised")
	}
	if rep.Violations != 0 {
		t.Fatalf("%d violations: %v %v", rep.Violations, rep.ByInvariant, rep.Examples)
	}
}

// A store whose commit skips one check must be caught by the invariant it protects.
func TestMemTXVerifierCatchesBrokenChecks(t *testing.T) {
	for _, tc := range []struct{ broken, invariant string }{
		{"evidence", "I1"},
		{"cascade", "I2"},
	} {
		rep := VerifyMemTX(MemTXVerifyConfig{Traces: 2000, TraceLength: 40, Bound: 5, Seed: 7, broken: tc.broken})
		if rep.ByInvariant[tc.invariant] == 0 {
			t.Errorf("broken %s check: no %s violation found (%v)", tc.broken, tc.invariant, rep.ByInvariant)
		} else {
			t.Logf("broken %s check: %d %s violations, e.g. %s", tc.broken, rep.ByInvariant[tc.invariant], tc.invariant, rep.Examples[0])
		}
	}
}

// The enumeration is deterministic: the same bound gives the same state count.
func TestMemTXEnumerationIsDeterministic(t *testing.T) {
	a := VerifyMemTX(MemTXVerifyConfig{Bound: 4})
	b := VerifyMemTX(MemTXVerifyConfig{Bound: 4})
	if a.StatesEnumerated != b.StatesEnumerated || a.StatesEnumerated == 0 {
		t.Fatalf("state counts %d and %d", a.StatesEnumerated, b.StatesEnumerated)
	}
}
