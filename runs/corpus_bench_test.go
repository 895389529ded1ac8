package runs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
)

// corpusBenchCases is the corpus size of BenchmarkImportCorpus (EALSCOPE_CORPUS_CASES
// overrides it; docs/BENCHMARKS.md records 100,000).
func corpusBenchCases() int { return envSize("EALSCOPE_CORPUS_CASES", 1000) }

// BenchmarkImportCorpus imports a generated corpus into a fresh workspace per iteration: every
// case with its blocks, turns, ledger snapshots and verdicts, in one transaction.
// EALSCOPE_CORPUS_FILE imports that file instead (e.g. `ealscope gen --cases 100000`, which
// streams, rather than generating 2 GB in memory here) with EALSCOPE_CORPUS_CASES its count.
func BenchmarkImportCorpus(b *testing.B) {
	n := corpusBenchCases()
	dir := b.TempDir()
	corpus := os.Getenv("EALSCOPE_CORPUS_FILE")
	if corpus == "" {
		corpus, _ = generatedCorpus(b, dir, n, 3)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := filepath.Join(dir, "w"+strconv.Itoa(i)+".db")
		s := mustOpen(b, db)
		b.StartTimer()
		rep, err := s.Import(context.Background(), []string{corpus}, ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if got := rep.Results[0].Corpora[0].New; got != n {
			b.Fatalf("%d new cases, want %d", got, n)
		}
		s.Close()
		os.Remove(db)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// TestCorpusStreamErrors: the corpus read one line at a time still names the real line of a
// bad case, of a repeated case id, of a line past the limit and of invalid UTF-8, and stores
// CRLF lines without their CR.
func TestCorpusStreamErrors(t *testing.T) {
	data, err := procurement.GenerateJSONL(3, 5)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	join := func(ls ...[]byte) []byte { return append(bytes.Join(ls, []byte("\r\n")), '\n') }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"bad case", join(lines[0], []byte(""), []byte(`{"case_id": 1}`)), "c.jsonl:3:"},
		{"repeat", join(lines[0], lines[1], lines[0]), "duplicate of line 1"},
		{"utf8", join(lines[0], append([]byte(`{"x": "`), 0xff, '"', '}')), "c.jsonl:2: invalid UTF-8"},
		{"empty", []byte("\n\n"), "c.jsonl: no cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseCorpusFile("c.jsonl", tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	_, cases, err := parseCorpusFile("c.jsonl", join(lines[0], lines[1], lines[2]))
	if err != nil || len(cases) != 3 || cases[2].Line != 3 {
		t.Fatalf("CRLF corpus: %d cases, %v", len(cases), err)
	}
}
