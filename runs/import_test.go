package runs

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs/rundir"
)

func TestImportOwnRun(t *testing.T) {
	ctx := context.Background()
	cases := builtinCases(t)
	c := findCase(t, cases, "ealscope_v1_design_software_seats") // revoke at block 4
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run2"), fixtureOptions{cases: append(cases[:0:0], c), freeText: true})
	s, _ := openStore(t)
	res := importOne(t, s, dir)
	if res.Status != StatusImported || res.RescoreDisagreements != 0 || len(res.MissingCorpora) != 0 {
		t.Fatalf("result: %+v", res)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	chains, err := s.Chains(ctx, ChainFilter{RunID: res.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) != 3 {
		t.Fatalf("chains: %+v", chains)
	}
	byCond := map[string]ChainRow{}
	for _, ch := range chains {
		byCond[ch.ConditionID] = ch
	}
	inc := byCond["incremental_typed"]
	miss := lastEventBlock(c)
	if inc.FirstFalseAuthorityBlock == nil || *inc.FirstFalseAuthorityBlock != miss {
		t.Fatalf("incremental chain first false-authority block = %v, want %d", inc.FirstFalseAuthorityBlock, miss)
	}
	if inc.UnauthorizedActions == 0 || inc.AttributedMemoryInduced == 0 {
		t.Fatalf("incremental chain: %+v", inc)
	}
	if f := byCond["faithful_typed"]; f.FirstFalseAuthorityBlock != nil || f.UnauthorizedActions != 0 {
		t.Fatalf("faithful chain: %+v", f)
	}
	if ft := byCond["one_shot_text"]; !ft.NeedsAnnotation {
		t.Fatalf("free-text chain: %+v", ft)
	}
	steps, err := s.ChainBlocks(ctx, inc.Key)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(c.Blocks) {
		t.Fatalf("%d steps", len(steps))
	}
	for _, st := range steps {
		wantFFA := st.BlockIndex == miss
		if st.FirstFalseAuthority != wantFFA {
			t.Errorf("block %d first false authority %v", st.BlockIndex, st.FirstFalseAuthority)
		}
		if st.BlockIndex < miss && st.Badge != BadgeExact && st.MemoryID != "" {
			t.Errorf("block %d badge %s", st.BlockIndex, st.Badge)
		}
		if st.BlockIndex >= miss && st.Badge != BadgeOvergrant {
			t.Errorf("block %d badge %s (%+v)", st.BlockIndex, st.Badge, st)
		}
	}
	if len(steps[miss].Events) == 0 {
		t.Errorf("no ledger events at block %d", miss)
	}
	mv, err := s.MemoryAt(ctx, inc.Key, miss)
	if err != nil {
		t.Fatal(err)
	}
	if mv.Exact == nil || *mv.Exact || mv.Errors["stale_retention"] == 0 || len(mv.Fidelity) == 0 || mv.LedgerState == "" {
		t.Fatalf("memory at %d: %+v", miss, mv)
	}
	probes, err := s.ProbesAt(ctx, inc.Key, miss)
	if err != nil {
		t.Fatal(err)
	}
	formed := 0
	for _, p := range probes {
		if p.Formed != nil && *p.Formed {
			formed++
		}
		if len(p.Trials) != 1 {
			t.Errorf("probe %s: %d trials", p.ProbeID, len(p.Trials))
		}
	}
	if formed == 0 {
		t.Fatalf("no probe formed at block %d: %+v", miss, probes)
	}
	h, err := s.Chain(ctx, inc.Key)
	if err != nil {
		t.Fatal(err)
	}
	if h.CaseKey == 0 || len(h.Faults) != 1 {
		t.Fatalf("header %+v", h)
	}
	turns, err := s.BlockTurns(ctx, h.CaseKey, 1, &MemoryRef{RunID: res.RunID, MemoryID: mv.MemoryID})
	if err != nil || len(turns) == 0 {
		t.Fatalf("turns %v %v", turns, err)
	}
	cites := 0
	for _, tu := range turns {
		if tu.CitedByMemory {
			cites++
		}
	}
	if cites == 0 {
		t.Errorf("no turn of block 1 cited by the memory")
	}
	hits, err := s.Search(ctx, "espresso", 10)
	if err != nil || len(hits) == 0 || hits[0].Kind != "memory" {
		t.Fatalf("search: %+v %v", hits, err)
	}
	doc, err := s.Summary(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := json.Marshal(doc)
	doc2, _ := s.Summary(ctx, res.RunID)
	b2, _ := json.Marshal(doc2)
	if testing.Verbose() {
		t.Logf("%s", b1)
	}
	if string(b1) != string(b2) || !strings.Contains(string(b1), `"first_false_authority_block":`) {
		t.Fatalf("summary unstable or incomplete:\n%s\n%s", b1, b2)
	}
	_ = rundir.StatusCompleted
}
