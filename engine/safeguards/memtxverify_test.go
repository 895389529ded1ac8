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

// TestMemTXVerifyReportsProgress: the check reports its traces (every few hundred, then the
// last) and the states it enumerates as it goes (counts that only grow, total unknown until
// the end), ending on the report's own count; `ealscope verify memtx` was silent for 15 s.
func TestMemTXVerifyReportsProgress(t *testing.T) {
	type call struct {
		phase       string
		done, total int
	}
	var calls []call
	cfg := MemTXVerifyConfig{Traces: 1200, TraceLength: 10, Bound: 6, Seed: 3,
		Progress: func(phase string, done, total int) { calls = append(calls, call{phase, done, total}) }}
	rep := VerifyMemTX(cfg)
	var traces []int
	states, last := 0, 0
	for _, c := range calls {
		switch c.phase {
		case "traces":
			if states > 0 || c.total != 1200 {
				t.Errorf("traces reported after the states, or with total %d: %+v", c.total, c)
			}
			traces = append(traces, c.done)
		case "states":
			if c.done < last {
				t.Errorf("the state count went back from %d to %d", last, c.done)
			}
			states, last = states+1, c.done
		default:
			t.Errorf("unknown phase %q", c.phase)
		}
	}
	if len(traces) != 3 || traces[0] != 500 || traces[2] != 1200 {
		t.Errorf("trace progress %v, want 500, 1000, 1200", traces)
	}
	end := calls[len(calls)-1]
	if states < 2 || end.phase != "states" || end.done != rep.StatesEnumerated || end.total != rep.StatesEnumerated {
		t.Errorf("%d state reports, the last %+v; the report counts %d states", states, end, rep.StatesEnumerated)
	}
}
