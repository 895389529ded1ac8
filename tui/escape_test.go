package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
)

// hostile are terminal sequences a corpus (or a model) could smuggle into text: clear screen,
// an OSC 52 clipboard write, an OSC 8 hyperlink, and a window-title change.
var hostile = []string{
	"\x1b[2J",
	"\x1b]52;c;ZWNobyBwd25lZA==\x07",
	"\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
	"\x1b]0;owned\x07",
	"invoice\u202efdp.exe",
	"ad\u200bmin\ufeff",
	"col1\tcol2",
}

// writeHostileCorpus copies the first built-in case under a new id and plants the sequences
// in every turn.
func writeHostileCorpus(t *testing.T, path string) string {
	return writePlantedCorpus(t, path, "ealscope_test_hostile_text", hostile)
}

// writePlantedCorpus copies the first built-in procurement case under caseID and appends one
// of planted (in turn) to every turn's content.
func writePlantedCorpus(t *testing.T, path, caseID string, planted []string) string {
	t.Helper()
	d, err := domains.Get("procurement")
	if err != nil {
		t.Fatal(err)
	}
	_, data := d.BuiltinCorpus()
	line := bytes.SplitN(data, []byte("\n"), 2)[0]
	var c map[string]any
	if err := json.Unmarshal(line, &c); err != nil {
		t.Fatal(err)
	}
	c["case_id"] = caseID
	for _, b := range c["blocks"].([]any) {
		for i, tu := range b.(map[string]any)["turns"].([]any) {
			turn := tu.(map[string]any)
			turn["content"] = turn["content"].(string) + " " + planted[i%len(planted)] + " end"
		}
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return caseID
}

func TestHostileCorpusNeverReachesTheTerminal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "hostile.jsonl")
	caseID := writeHostileCorpus(t, corpus)
	store, runID, err := scriptedWorkspace(ctx, dir, corpus, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	k, err := ResolveChain(ctx, store, runID, caseID, "incremental_text", 0)
	if err != nil {
		t.Fatal(err)
	}
	// The stored turns really hold the sequences, so the test exercises the sanitiser.
	turns, err := store.BlockTurns(ctx, mustCaseKey(t, store, k), 0, nil)
	if err != nil || len(turns) == 0 || !strings.Contains(turns[0].Content, "\x1b[2J") {
		t.Fatalf("fixture turns do not carry the sequences (err %v)", err)
	}
	detail, err := store.ChainBlocks(ctx, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	var frames []string
	for block := range detail {
		for _, pane := range []string{"all", "history", "memory", "ledger", "probes"} {
			f, err := RenderFrame(ctx, FrameOptions{Store: store, Chain: k, Block: block, Pane: pane, Width: 120, Height: 60, Dark: true})
			if err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
		}
	}
	// And the interactive model's own View, with a search that hits the hostile text.
	m, err := New(Options{Store: store, Dark: ptr(true), Start: Start{Chain: &k, Block: 0}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 120, 40)
	m = press(t, m, "y", "tab", "y")
	frames = append(frames, m.View().Content)
	all := strings.Join(frames, "\n")
	for _, bad := range []string{"\x1b]52", "\x1b]8", "\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\u200b", "\ufeff", "\t"} {
		if strings.Contains(all, bad) {
			t.Errorf("rendered output contains %q", bad)
		}
	}
	if !strings.Contains(all, "<U+202E>") {
		t.Error("no placeholder shown where a bidi override was")
	}
	if !strings.Contains(all, "␛") {
		t.Error("no placeholder shown where sequences were removed")
	}
}
