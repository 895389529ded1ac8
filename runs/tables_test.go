package runs

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs/tablefile"
)

// TestAnalysisTablesAreDocumented: docs/TABLES.md lists every table and, in order, every
// column with its type, and nothing else: the schema a researcher reads is the one written.
func TestAnalysisTablesAreDocumented(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "TABLES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	documented := map[string][]string{}
	var table string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "### "); ok {
			table = name
			documented[table] = []string{}
			continue
		}
		cells := strings.Split(line, "|")
		if table == "" || len(cells) < 4 || strings.TrimSpace(cells[1]) == "column" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		documented[table] = append(documented[table], strings.TrimSpace(cells[1])+":"+strings.TrimSpace(cells[2]))
	}
	for _, spec := range AnalysisTables() {
		var want []string
		for _, c := range spec.Columns {
			want = append(want, c.Name+":"+c.Type.String())
		}
		if got := documented[spec.Name]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("docs/TABLES.md, table %s:\n documents %v\n the export writes %v", spec.Name, got, want)
		}
		delete(documented, spec.Name)
	}
	for name := range documented {
		t.Errorf("docs/TABLES.md documents a table %q the export does not write", name)
	}
}

// TestTableExportStreamsEveryTable: every table's query runs on an imported run and yields
// values of its columns' types; --run selects runs and an unknown one is an error.
func TestTableExportStreamsEveryTable(t *testing.T) {
	ctx := context.Background()
	cases := builtinCases(t)
	c := findCase(t, cases, "ealscope_v1_design_software_seats")
	dir := writeFixtureRun(t, filepath.Join(t.TempDir(), "run"), fixtureOptions{cases: append(cases[:0:0], c), freeText: true})
	s, _ := openStore(t)
	res := importOne(t, s, dir)
	var trials int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM trials`).Scan(&trials); err != nil {
		t.Fatal(err)
	}
	for _, ids := range [][]string{nil, {res.RunID[:6]}} {
		exp, err := s.BeginTableExport(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, spec := range AnalysisTables() {
			w, err := tablefile.New(tablefile.FormatCSV, io.Discard, spec.Columns)
			if err != nil {
				t.Fatal(err)
			}
			err = exp.Rows(ctx, spec, func(row []any) error {
				counts[spec.Name]++
				for i, col := range spec.Columns {
					if col.Name == "run_id" && row[i] != res.RunID {
						t.Errorf("table %s: run_id %v, want %s", spec.Name, row[i], res.RunID)
					}
				}
				return w.Write(row)
			})
			if err != nil {
				t.Fatalf("table %s: %v", spec.Name, err)
			}
		}
		exp.Close()
		if counts["runs"] != 1 || counts["trials"] != trials || trials == 0 || counts["memories"] == 0 || counts["fidelity"] == 0 || counts["probe_verdicts"] == 0 {
			t.Errorf("runs %v: row counts %v (trials stored: %d)", ids, counts, trials)
		}
	}
	if _, err := s.BeginTableExport(ctx, []string{"no-such-run"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown run: %v", err)
	}
}

func TestUsageTokens(t *testing.T) {
	for _, tc := range []struct {
		usage                       any
		prompt, completion, counted any
	}{
		{nil, nil, nil, nil},
		{map[string]any{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}, int64(12), int64(3), 0},
		{map[string]any{"prompt_tokens": 7, "completion_tokens": 2, CountedMarker: "cl100k_base"}, int64(7), int64(2), 1},
		{[]byte(`{"prompt_tokens": 5}`), int64(5), nil, 0},
		{map[string]any{"other": 1}, nil, nil, nil},
	} {
		p, c, n := usageTokens(tc.usage)
		if p != tc.prompt || c != tc.completion || n != tc.counted {
			t.Errorf("usage %v: %v %v %v, want %v %v %v", tc.usage, p, c, n, tc.prompt, tc.completion, tc.counted)
		}
	}
}
