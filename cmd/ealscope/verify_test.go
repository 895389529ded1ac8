package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestVerifyMemtxJSON(t *testing.T) {
	var rep struct {
		Traces     int `json:"traces_run"`
		States     int `json:"states_enumerated"`
		Bound      int `json:"bound"`
		Violations int `json:"violations"`
	}
	runJSON(t, &rep, "verify", "memtx", "--traces", "200", "--bound", "4", "--json")
	if rep.Traces != 200 || rep.Bound != 4 || rep.States == 0 || rep.Violations != 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestVerifyMemtxRefusesHugeBound(t *testing.T) {
	if _, errs, code := runCLI(t, "verify", "memtx", "--bound", "11"); code == 0 || !strings.Contains(errs, "--bound must be between 0 and 10") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// TestVerifyMemtxShowsProgress: the check prints its progress on stderr (traces, then the
// states enumerated, ending on the report's count); stdout keeps the report alone.
func TestVerifyMemtxShowsProgress(t *testing.T) {
	var rep struct {
		States int `json:"states_enumerated"`
	}
	stdout, stderr, code := runCLI(t, "verify", "memtx", "--traces", "600", "--bound", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not the report alone: %v\n%s", err, stdout)
	}
	for _, want := range []string{"traces   500/600", "traces   600/600", fmt.Sprintf("states   %d/%d", rep.States, rep.States)} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
