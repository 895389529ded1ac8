package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoInTmux drives the real binary in a real terminal (tmux): `ealscope demo`, open a
// forming chain from the chains list, press f, read the screen and find the first
// false-authority block and the turn its memory cites, open help, quit with exit code 0.
func TestDemoInTmux(t *testing.T) {
	tmp, bin := buildForTerminal(t)
	rc := filepath.Join(tmp, "rc")
	script := isolatedEnv(tmp) + "NO_COLOR= " + bin + " demo; echo $? > " + rc + "; sleep 30"
	term := startTerminal(t, "ealscope-e2e", 120, 40, script, 60*time.Second) // the first build of the demo run included
	screen, waitFor, has, keys := term.screen, term.waitFor, screenHas, term.keys

	waitFor("the demo chain view", has("FIRST FALSE AUTHORITY"))
	keys("Escape")
	waitFor("the chains list", has("sorted by case"))
	keys("/")
	keys("-l", "!FA@")
	keys("Enter")
	waitFor("the filtered list", has("filter: !FA@"))
	keys("Enter")
	waitFor("a forming chain", has("!! FIRST FALSE AUTHORITY")) // a chain opens at its first false authority
	keys("[")                                                   // step back off it (unless it is block 0)
	waitFor("the previous block", func(s string) bool {
		return strings.Contains(s, "first false authority: block") || strings.Contains(s, "block 0/")
	})
	keys("f")
	s := waitFor("the first false-authority block", has("!! FIRST FALSE AUTHORITY"))
	m := regexp.MustCompile(`memory cites ([A-Za-z0-9_\-]+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no cited turn on screen:\n%s", s)
	}
	cited := m[1]
	block := regexp.MustCompile(`block (\d+)/\d+ !! FIRST FALSE AUTHORITY`).FindStringSubmatch(s)
	if block == nil {
		t.Fatalf("no block number next to the marker:\n%s", s)
	}
	if !regexp.MustCompile(`▸\s+` + block[1] + ` ! `).MatchString(s) {
		t.Errorf("timeline does not mark block %s as the first false authority:\n%s", block[1], s)
	}
	if !regexp.MustCompile(`\[M\][^\n]*` + regexp.QuoteMeta(cited)).MatchString(s) {
		t.Errorf("history does not show the cited turn %s marked [M]:\n%s", cited, s)
	}
	t.Logf("first false authority at block %s; the memory cites %s", block[1], cited)
	keys("?")
	waitFor("the help sheet", has("any key closes this sheet"))
	keys("Escape")
	waitFor("the chain view again", has("!! FIRST FALSE AUTHORITY"))
	// The memory against the ledger: focus the memory pane, switch to the ledger baseline,
	// expand the focused row and read its full ledger value off the screen.
	keys("Tab")
	keys("Tab")
	keys("c")
	s = waitFor("the ledger baseline", has("vs ledger state"))
	collapsed := regexp.MustCompile(`▸[=!] (\(whole record\)|\S+)\s+(\S+)`).FindStringSubmatch(s)
	if collapsed == nil {
		t.Fatalf("no row cursor on the ledger table:\n%s", s)
	}
	keys("Enter")
	s = waitFor("the expanded row", has("ledger:"))
	// The full ledger value: the memory pane's lines from "ledger:" to "memory:" or the
	// pane's end (the focused pane has heavy borders), whitespace and diff marks removed.
	var full strings.Builder
	in := false
	for _, l := range strings.Split(s, "\n") {
		parts := strings.Split(l, "┃")
		if len(parts) < 3 {
			continue
		}
		cell := strings.TrimSpace(parts[1])
		switch {
		case strings.HasPrefix(cell, "ledger:"):
			in = true
			continue
		case strings.HasPrefix(cell, "memory:"):
			in = false
		}
		if in {
			full.WriteString(cell)
		}
	}
	squash := strings.NewReplacer(" ", "", "[-", "", "-]", "", "{+", "", "+}", "")
	value, cut := squash.Replace(full.String()), squash.Replace(collapsed[2])
	prefix := strings.TrimSuffix(cut, "…")
	if value == "" || strings.Contains(value, "…") || !strings.HasPrefix(value, prefix) ||
		strings.HasSuffix(cut, "…") && len(value) <= len(prefix) {
		t.Fatalf("expanded row %s: full value %q does not continue the cell %q:\n%s", collapsed[1], value, collapsed[2], s)
	}
	t.Logf("ledger row %s: cell %q, expanded %q", collapsed[1], collapsed[2], value)
	keys(":")
	keys("-l", "q")
	keys("Enter")
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(rc)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			if code := strings.TrimSpace(string(b)); code != "0" {
				t.Fatalf("ealscope exited with %s; screen:\n%s", code, screen())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ealscope did not exit; screen:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
