package main

import (
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
