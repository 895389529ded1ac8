package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// Goldens of each domain's demo run at 160x45 and 80x24: the chains list, the runs list, the
// probes pane and the ledger table of the chain `ealscope demo` opens. Each also checks that
// no two distinct ids render alike (case ids in the chains list, probe ids in the probes pane).

var (
	// The run's start and its id (cut in the middle at 80 columns) change with every build
	// of the fixture.
	startedAt = regexp.MustCompile(`20\d\d-\d\d-(\d\d \d\d:\d\dZ|\d\d?…)|\b[0-9a-f]{2,6}…[0-9a-f]{2,6}\b`)
	digits    = regexp.MustCompile(`[0-9a-f]`)
)

func newDemoApp(t *testing.T, domain string, w, h int) (Model, string) {
	t.Helper()
	s, runID := demoStore(t, domain)
	k := demoChain(t, domain)
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, m, w, h), runID
}

func TestDomainScreensGolden(t *testing.T) {
	for _, domain := range demoDomains {
		for _, sz := range []struct{ w, h int }{{160, 45}, {80, 24}} {
			for _, screen := range []struct {
				name string
				keys []string
			}{
				{"chains_list", []string{"esc"}},
				{"runs_list", []string{"esc", "esc"}},
				{"probes_pane", []string{"tab", "tab", "tab"}},
				{"ledger_table", []string{"tab", "tab", "c"}},
			} {
				t.Run(domain+"/"+screen.name+"_"+itoa(sz.w)+"x"+itoa(sz.h), func(t *testing.T) {
					m, runID := newDemoApp(t, domain, sz.w, sz.h)
					m = press(t, m, screen.keys...)
					out := frame(m, runID)
					if screen.name == "runs_list" { // the run's start is when the fixture was built
						out = startedAt.ReplaceAllStringFunc(out, func(s string) string { return digits.ReplaceAllString(s, "#") })
					}
					assertFits(t, out, sz.w, sz.h)
					switch screen.name {
					case "chains_list":
						assertChainsDistinct(t, m, out)
					case "probes_pane":
						assertProbesDistinct(t, m, out)
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// columnCells cuts the cells of one column out of a frame's lines: the column starts where
// its title starts on the header line and ends before the next title.
func columnCells(lines []string, header int, title, next string) []string {
	h := []rune(lines[header])
	from, to := runeIndex(h, title), runeIndex(h, next)
	if from < 0 || to < 0 {
		return nil
	}
	var out []string
	for _, l := range lines[header+1:] {
		r := []rune(l)
		if len(r) < to {
			out = append(out, "")
			continue
		}
		out = append(out, strings.TrimSpace(strings.TrimLeft(string(r[from:to]), "▸ ")))
	}
	return out
}

func runeIndex(line []rune, sub string) int {
	i := strings.Index(string(line), sub)
	if i < 0 {
		return -1
	}
	return len([]rune(string(line)[:i]))
}

// assertInjective fails when two distinct ids render as the same text.
func assertInjective(t *testing.T, rendered, ids []string, what string) {
	t.Helper()
	seen := map[string]string{}
	for i, r := range rendered {
		if prev, ok := seen[r]; ok && prev != ids[i] {
			t.Errorf("%s %q and %q both render as %q", what, prev, ids[i], r)
		}
		seen[r] = ids[i]
	}
}

func assertChainsDistinct(t *testing.T, m Model, out string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(out), "\n")
	cells := columnCells(lines, 1, "case", "condition")
	s := m.chains
	var rendered, ids []string
	for i, c := range cells {
		r := s.cur.offset + i
		if r >= len(s.shown) || c == "" {
			break
		}
		rendered = append(rendered, c)
		ids = append(ids, s.all[s.shown[r]].Key.CaseID)
	}
	if len(rendered) == 0 {
		t.Fatalf("no case cells on the chains list:\n%s", out)
	}
	assertInjective(t, rendered, ids, "cases")
}

func assertProbesDistinct(t *testing.T, m Model, out string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(out), "\n")
	header := -1
	for i, l := range lines {
		if strings.Contains(l, " probe ") && strings.Contains(l, " now ") && strings.Contains(l, " final ") {
			header = i
		}
	}
	if header < 0 {
		t.Fatalf("no probes table on screen:\n%s", out)
	}
	// The probe cell runs from the "probe" title to the "now" title, inside the pane's border.
	cells := columnCells(lines, header, "probe", "now")
	b := m.chain.blocks[m.chain.block]
	var rendered []string
	for i, c := range cells {
		l := []rune(lines[header+1+i])
		at := runeIndex([]rune(lines[header]), "now")
		if at < 0 || len(l) <= at+6 {
			continue
		}
		if v := string(l[at : at+6]); v == "✓grant" || v == "✗deny " {
			rendered = append(rendered, c)
		}
	}
	ids := make([]string, len(b.Probes))
	for i, p := range b.Probes {
		ids[i] = p.ProbeID
	}
	// The pane opens at the first probe (the selected one), so the rows on screen are the
	// first probes in order.
	if len(rendered) == 0 || len(rendered) > len(ids) {
		t.Fatalf("%d probe rows on screen, %d probes:\n%s", len(rendered), len(ids), out)
	}
	assertInjective(t, rendered, ids[:len(rendered)], "probes")
}
