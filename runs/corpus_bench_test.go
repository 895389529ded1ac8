package runs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
)

// corpusBenchCases is the corpus size of BenchmarkImportCorpus (EALSCOPE_CORPUS_CASES
// overrides it; docs/BENCHMARKS.md records 100,000).
func corpusBenchCases() int {
	if n, err := strconv.Atoi(os.Getenv("EALSCOPE_CORPUS_CASES")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// BenchmarkImportCorpus imports a generated corpus into a fresh workspace per iteration: every
// case with its blocks, turns, ledger snapshots and verdicts, in one transaction.
func BenchmarkImportCorpus(b *testing.B) {
	n := corpusBenchCases()
	data, err := procurement.GenerateJSONL(n, 3)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	corpus := filepath.Join(dir, "generated.jsonl")
	if err := os.WriteFile(corpus, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := filepath.Join(dir, "w"+strconv.Itoa(i)+".db")
		s, err := Open(db)
		if err != nil {
			b.Fatal(err)
		}
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

// TestLineIndex: the one-pass line index returns each line as splitting the file would,
// with LF or CRLF ends, a missing final line end, and out-of-range numbers.
func TestLineIndex(t *testing.T) {
	for _, data := range []string{"", "a", "a\n", "a\r\nb\r\n", "a\n\nc", "\n\n", "x\r\ny"} {
		x := newLineIndex([]byte(data))
		lines := bytes.Split([]byte(data), []byte("\n"))
		for n := 0; n <= len(lines)+1; n++ {
			var want []byte
			if n >= 1 && n <= len(lines) {
				want = bytes.TrimRight(lines[n-1], "\r")
			}
			if got := x.caseLine(n); !bytes.Equal(got, want) {
				t.Errorf("%q line %d: %q, want %q", data, n, got, want)
			}
		}
	}
}
