package runs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReimportChangesNothing(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "workspace.db")
	s := mustOpen(t, dbPath)
	dir := copyDir(t, "testdata/eal_run")
	first := importOne(t, s, dir)
	if first.Status != StatusImported || first.Rows["trials"] != 12 || len(first.Unknown) != 1 || first.Unknown[0] != "README.txt" {
		t.Fatalf("first import: %+v", first)
	}
	s.Close()
	before := fileSHA(t, dbPath)
	s = mustOpen(t, dbPath)
	again := importOne(t, s, dir)
	if again.Status != StatusAlreadyImported || again.RunID != first.RunID || len(again.Rows) != 0 || len(again.Notes) == 0 {
		t.Fatalf("second import: %+v", again)
	}
	s.Close()
	if after := fileSHA(t, dbPath); after != before {
		t.Fatal("re-importing the same run changed the database file")
	}
}

func TestCRLFRunImports(t *testing.T) {
	dir := copyDir(t, "testdata/eal_run")
	for _, name := range []string{"memories", "memory_attempts", "memory_states", "evidence", "trials", "model_contexts", "calls", "faults"} {
		editFile(t, dir, name, true, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) })
	}
	s, _ := openStore(t)
	if r := importOne(t, s, dir); r.Status != StatusImported || r.Rows["trials"] != 12 || r.RescoreDisagreements != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestRunWithoutItsCorpus(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := importOne(t, s, copyDir(t, "testdata/eal_run_fixture_v1"))
	want := CorpusRef{DomainID: "procurement", CorpusVersion: "fixture_v1"}
	if r.Status != StatusImported || len(r.MissingCorpora) != 1 || r.MissingCorpora[0] != want {
		t.Fatalf("%+v", r)
	}
	chains, err := s.Chains(ctx, ChainFilter{RunID: r.RunID})
	if err != nil || len(chains) != 2 {
		t.Fatalf("chains %+v %v", chains, err)
	}
	for _, c := range chains {
		if c.UnscoredReason != "missing_corpus:procurement/fixture_v1" || c.FirstFalseAuthorityBlock != nil {
			t.Errorf("chain %+v", c)
		}
	}
	if _, err := s.ProbesAt(ctx, chains[0].Key, 0); err == nil || !strings.Contains(err.Error(), "procurement/fixture_v1") {
		t.Errorf("ProbesAt without the corpus: %v", err)
	}
	h, err := s.Chain(ctx, chains[0].Key)
	if err != nil || h.MissingCorpus == nil || *h.MissingCorpus != want {
		t.Errorf("header %+v %v", h, err)
	}
	runs, _ := s.Runs(ctx)
	if len(runs[0].MissingCorpora) != 1 {
		t.Errorf("runs: %+v", runs)
	}
	// With --corpus, a run over that corpus derives everything.
	other := copyDir(t, "testdata/eal_run_fixture_v1")
	editManifest(t, other, func(m map[string]any) { m["study"] = "fixture-again" })
	rep, err := s.Import(ctx, []string{other}, ImportOptions{Corpora: []string{"testdata/corpus_fixture_v1.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || rep.Results[0].Kind != KindCorpus || rep.Results[0].Corpora[0].New != 1 {
		t.Fatalf("%+v", rep.Results)
	}
	if r := rep.Results[1]; len(r.MissingCorpora) != 0 {
		t.Fatalf("still missing: %+v", r)
	}
	chains, _ = s.Chains(ctx, ChainFilter{RunID: rep.Results[1].RunID})
	for _, c := range chains {
		if c.UnscoredReason != "" || c.FormedFinal == nil {
			t.Errorf("chain not scored with its corpus: %+v", c)
		}
	}
	if _, err := s.ProbesAt(ctx, chains[0].Key, 0); err != nil {
		t.Error(err)
	}
}

func TestIncompleteRun(t *testing.T) {
	ctx := context.Background()
	dir := copyDir(t, "testdata/eal_run")
	editManifest(t, dir, func(m map[string]any) { m["status"] = "cancelled" })
	s, _ := openStore(t)
	if _, err := s.Import(ctx, []string{dir}, ImportOptions{}); err == nil {
		t.Fatal("an incomplete run imported without --allow-incomplete")
	}
	rep, err := s.Import(ctx, []string{dir}, ImportOptions{AllowIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Results[0].Incomplete {
		t.Fatalf("%+v", rep.Results[0])
	}
	runs, _ := s.Runs(ctx)
	chains, _ := s.Chains(ctx, ChainFilter{RunID: runs[0].RunID})
	if !runs[0].Incomplete || runs[0].Status != "cancelled" || runs[0].Verification != "verified_incomplete" || !chains[0].RunIncomplete {
		t.Fatalf("%+v %+v", runs[0], chains[0])
	}
}

func TestRescoreDisagreementIsFlaggedNotOverwritten(t *testing.T) {
	ctx := context.Background()
	dir := copyDir(t, "testdata/eal_run")
	editRow(t, dir, "trials", 1, func(r map[string]any) { r["decision"] = "decline" })
	s, _ := openStore(t)
	res := importOne(t, s, dir)
	if n := res.RescoreDisagreements; n != 1 {
		t.Fatalf("%d disagreements", n)
	}
	ds, err := s.Disagreements(ctx, res.RunID)
	if err != nil || len(ds) != 1 || ds[0].Line != 1 || ds[0].Field != "decision" || string(ds[0].Stored) != `"decline"` {
		t.Fatalf("%+v %v", ds, err)
	}
	doc, _ := s.Summary(ctx, res.RunID)
	if doc.Runs[0].Decisions["decline"] != 1 || doc.Runs[0].RescoreDisagreements != 1 {
		t.Fatalf("the stored decision was not kept: %+v", doc.Runs[0])
	}
}

func TestWriterMemories(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	// The fixture's first entry is a cybersecurity memory of EAL-Bench's benchmark_v1 corpus,
	// which is not in the workspace: now that cybersecurity is a registered domain, the file is
	// refused until that corpus is imported.
	if _, err := s.Import(ctx, []string{"testdata/writer_memories.json"}, ImportOptions{}); err == nil ||
		!strings.Contains(err.Error(), "memories[0].corpus_version") || !strings.Contains(err.Error(), "cybersecurity/benchmark_v1") {
		t.Fatalf("cybersecurity entry without its corpus: %v", err)
	}
	// With that entry's domain one this ealscope does not support, the entry is skipped.
	raw, err := os.ReadFile("testdata/writer_memories.json")
	if err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(t.TempDir(), "writer_memories.json")
	if err := os.WriteFile(foreign, bytes.Replace(raw, []byte(`"domain_id": "cybersecurity"`), []byte(`"domain_id": "unsupported_domain"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	r := importOne(t, s, foreign)
	if r.Kind != KindWriterMemories || r.Status != StatusImported || r.Rows["memories"] != 2 || !strings.Contains(strings.Join(r.Notes, "\n"), "skipped 1 entries of domain unsupported_domain") {
		t.Fatalf("%+v", r)
	}
	doc, err := s.Summary(ctx, r.RunID)
	if err != nil || len(doc.Memories) != 2 {
		t.Fatalf("%+v %v", doc, err)
	}
	for _, m := range doc.Memories {
		exact := m.CaseID == "ealscope_v1_hvac_contractor"
		if m.Exact == nil || *m.Exact != exact || *m.FormsFalseAuthority == exact || m.Writer == nil || *m.Writer != "glm_5_2_baseten" {
			t.Errorf("memory %+v", m)
		}
	}
	rep, err := s.Import(ctx, []string{foreign}, ImportOptions{})
	if err != nil || rep.Results[0].Status != StatusAlreadyImported {
		t.Fatalf("re-import: %+v %v", rep, err)
	}
	_, err = s.Import(ctx, []string{"testdata/writer_memories_benchmark_v1.json"}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "memories[0].corpus_version") || !strings.Contains(err.Error(), "procurement/benchmark_v1") {
		t.Fatalf("missing corpus error: %v", err)
	}
}

func TestQueriesPageAndFilter(t *testing.T) {
	ctx := context.Background()
	cases := builtinCases(t)
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: cases, freeText: true})
	s, _ := openStore(t)
	id := importOne(t, s, dir).RunID
	total, err := s.ChainCount(ctx, ChainFilter{RunID: id})
	if err != nil || total != 3*len(cases) {
		t.Fatalf("count %d %v", total, err)
	}
	var paged []ChainRow
	for off := 0; off < total; off += 7 {
		page, err := s.Chains(ctx, ChainFilter{RunID: id, Limit: 7, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
	}
	all, _ := s.Chains(ctx, ChainFilter{RunID: id})
	if len(paged) != len(all) {
		t.Fatalf("paging: %d of %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i].Key != all[i].Key {
			t.Fatalf("page order differs at %d", i)
		}
	}
	annot, _ := s.ChainCount(ctx, ChainFilter{RunID: id, NeedsAnnotation: true})
	if annot != len(cases) {
		t.Errorf("needs annotation: %d", annot)
	}
	forming, _ := s.Chains(ctx, ChainFilter{RunID: id, Forming: true, Sort: SortByFirstFalseAuthority})
	for i := 1; i < len(forming); i++ {
		if *forming[i].FirstFalseAuthorityBlock < *forming[i-1].FirstFalseAuthorityBlock {
			t.Fatal("not sorted by first false-authority block")
		}
	}
	if len(forming) == 0 {
		t.Fatal("no forming chains")
	}
	k := *forming[0].FirstFalseAuthorityBlock
	at, _ := s.ChainCount(ctx, ChainFilter{RunID: id, FormedAt: &k})
	induced, _ := s.ChainCount(ctx, ChainFilter{RunID: id, MemoryInduced: true})
	unauth, _ := s.ChainCount(ctx, ChainFilter{RunID: id, Unauthorized: true})
	if at == 0 || induced == 0 || unauth < induced {
		t.Fatalf("formed at %d: %d, induced %d, unauthorized %d", k, at, induced, unauth)
	}
	if _, err := s.Chains(ctx, ChainFilter{RunID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
	hits, err := s.Search(ctx, `ISO 14001 "quoted`, 5)
	if err != nil {
		t.Fatalf("search with quotes: %v", err)
	}
	_ = hits
}
