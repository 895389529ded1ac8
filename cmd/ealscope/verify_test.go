package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestVerifyMemtxJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", "memtx", "--traces", "200", "--bound", "4", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Traces     int `json:"traces_run"`
		States     int `json:"states_enumerated"`
		Bound      int `json:"bound"`
		Violations int `json:"violations"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if rep.Traces != 200 || rep.Bound != 4 || rep.States == 0 || rep.Violations != 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestVerifyMemtxRefusesHugeBound(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", "memtx", "--bound", "11"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "--bound must be between 0 and 10") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
