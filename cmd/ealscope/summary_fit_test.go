package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSummaryFitsTheTerminal: `summary` without --run prints a few lines per run, none wider
// than the terminal, and says where the detail is; --run prints the detail.
func TestSummaryFitsTheTerminal(t *testing.T) {
	_, db, _, _ := demoWorkspace(t)
	t.Setenv("COLUMNS", "80")
	out := runOK(t, "summary", "--db", db)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 12 {
		t.Errorf("summary of one run prints %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d cells at COLUMNS=80: %q", n, l)
		}
	}
	if !strings.Contains(out, "detail: ealscope summary --run ") {
		t.Errorf("the summary does not say where the detail is:\n%s", out)
	}
	runID := strings.Fields(lines[0])[1]
	if detail := runOK(t, "summary", "--db", db, "--run", runID); !strings.Contains(detail, "CHAINS") || !strings.Contains(detail, "MEMORIES") {
		t.Errorf("summary --run lacks the detail:\n%.400s", detail)
	}
}

// TestJoinCountsSortsBlocksAsNumbers: block 3 comes before block 10.
func TestJoinCountsSortsBlocksAsNumbers(t *testing.T) {
	got := joinCounts(map[string]int{"10": 2, "3": 1, "11": 4, "2": 5}, "block %s: %d", ", ")
	if want := "block 2: 5, block 3: 1, block 10: 2, block 11: 4"; got != want {
		t.Errorf("joinCounts = %q, want %q", got, want)
	}
}
