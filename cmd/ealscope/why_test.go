package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/tui"
)

// TestCyberDemoStoryNamesTheChange: the cybersecurity demo opens on a chain whose writer
// copied a grant with a later valid_until. Its story and its exports name that change (and
// the class, and that ablation confirms it), and `ealscope why` says the same.
func TestCyberDemoStoryNamesTheChange(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "demo")
	g := &Globals{Stdout: io.Discard, Stderr: io.Discard}
	ctx := context.Background()
	if err := ensureDemoRun(ctx, g, "cybersecurity", run); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ws.db")
	runID := importRun(t, db, run)
	store, err := runs.OpenExisting(db)
	if err != nil {
		t.Fatal(err)
	}
	key, err := tui.MostInstructive(ctx, store, runID)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html"} {
		out := filepath.Join(dir, "story."+format)
		runOK(t, "export", "--db", db, "--case", key.CaseID, "--condition", key.ConditionID, "--format", format, "--out", out)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), `\_`, "_")
		for _, want := range []string{"valid_until of", "authoritative change misapplied", "confirmed by ablation"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s export of %s · %s does not say %q", format, key.CaseID, key.ConditionID, want)
			}
		}
		if strings.Contains(text, "the memory cites") {
			t.Errorf("%s export still names the cited turn as the cause", format)
		}
	}
	var why struct {
		Support     string `json:"support"`
		Attribution struct {
			Class   string `json:"cause"`
			Changes []struct {
				Field string `json:"field"`
			} `json:"changes"`
		} `json:"attribution"`
	}
	out := runOK(t, "why", "--db", db, "--case", key.CaseID, "--condition", key.ConditionID, "--ablate", "--json")
	if err := json.Unmarshal([]byte(out), &why); err != nil {
		t.Fatal(err)
	}
	if why.Attribution.Class != "authoritative_change_misapplied" || why.Support != "confirmed by ablation" ||
		len(why.Attribution.Changes) == 0 || why.Attribution.Changes[0].Field != "valid_until" {
		t.Errorf("why: %+v", why)
	}
}
