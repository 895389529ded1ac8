package cybersecurity_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/cybersecurity"
	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
)

// TestCapacityTokensOfSharedCase recounts the shared case's capacity row of EAL-Bench's run
// manifest with the reference tokenizer: the rendered full history (every block as the writer
// sees it, joined by blank lines), the faithful free text and the faithful typed payload's
// canonical JSON. Equal counts pin the turn rendering and both faithful layouts.
func TestCapacityTokensOfSharedCase(t *testing.T) {
	dir := ealtest.Dir(t)
	tok := reftoken.Reference()
	if tok.Name() != reftoken.CL100K {
		t.Skipf("reference tokenizer unavailable (%s)", tok.Name())
	}
	var manifest struct {
		Capacity struct {
			Cases []struct {
				CaseID        string `json:"case_id"`
				History       int    `json:"history_tokens"`
				FaithfulText  int    `json:"faithful_text_tokens"`
				FaithfulTyped int    `json:"faithful_typed_tokens"`
			} `json:"cases"`
		} `json:"capacity"`
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "results__cybersecurity__*__manifest.json"))
	if len(matches) != 1 {
		t.Fatalf("manifest not found")
	}
	ealtest.Decode(t, filepath.Base(matches[0]), &manifest)
	d := cybersecurity.Domain{}
	c := ealtest.OneCase(t, d, "cybersecurity_benchmark_v1__claim_identity.cases.json")
	var blocks []string
	for i := range c.Blocks {
		blocks = append(blocks, d.RenderBlock(c, i))
	}
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	got := [3]int{
		tok.Count(strings.Join(blocks, "\n\n")),
		tok.Count(d.FaithfulText(ledger)),
		tok.Count(pyjson.MustCanonicalJSON(d.TypedPayload(ledger))),
	}
	for _, row := range manifest.Capacity.Cases {
		if row.CaseID != c.ID {
			continue
		}
		if want := [3]int{row.History, row.FaithfulText, row.FaithfulTyped}; got != want {
			t.Errorf("history/free text/typed tokens %v, manifest %v", got, want)
		}
		return
	}
	t.Fatalf("no capacity row for %s", c.ID)
}

// TestBuiltinHistoriesMeetCapacityRatio: every built-in history is at least EAL-Bench's
// minimum_history_ratio (8) times the primary capacity, and every faithful memory fits it.
func TestBuiltinHistoriesMeetCapacityRatio(t *testing.T) {
	tok := reftoken.Reference()
	if tok.Name() != reftoken.CL100K {
		t.Skipf("reference tokenizer unavailable (%s)", tok.Name())
	}
	d := cybersecurity.Domain{}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var blocks []string
		for i := range c.Blocks {
			blocks = append(blocks, d.RenderBlock(c, i))
		}
		if n := tok.Count(strings.Join(blocks, "\n\n")); n < 8*cybersecurity.PrimaryCapacityTokens {
			t.Errorf("%s: history of %d tokens, below 8 x %d", c.ID, n, cybersecurity.PrimaryCapacityTokens)
		}
		for k := range c.Blocks {
			ledger, _ := d.Replay(c, k)
			if n := tok.Count(pyjson.MustCanonicalJSON(d.TypedPayload(ledger))); n > cybersecurity.PrimaryCapacityTokens {
				t.Errorf("%s block %d: faithful typed memory of %d tokens exceeds the capacity", c.ID, k, n)
			}
			if n := tok.Count(d.FaithfulText(ledger)); n > cybersecurity.PrimaryCapacityTokens {
				t.Errorf("%s block %d: faithful free text of %d tokens exceeds the capacity", c.ID, k, n)
			}
		}
	}
}
