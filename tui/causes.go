package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// Why false authority formed at a block, as the probes pane, the story and the exports show
// it: the cause attribution of engine/cause (docs/CAUSES.md), computed when the block loads
// for every probe whose request the memory wrongly authorizes there, confirmed by turn
// ablation when the chain's writer is the scripted one, and set beside the imported judges'
// verdict. Nothing here guesses: a block without an attribution says the cause is unknown.

// CauseReader is the part of the store the attribution reads (runs.LabSource and runs.WriterHistory have it); a store
// without it shows no causes.
type CauseReader interface {
	workbench.WhyStore
}

// WhyView is the attribution of a block's failures, one per forming probe.
type WhyView struct {
	Probes []ProbeWhy
	// Err says why there is none (the chain could not be loaded, the memory is unreadable).
	Err string
}

// ProbeWhy is one failure explained.
type ProbeWhy struct {
	ProbeID, Class string
	// Support is how the first cause is supported: "confirmed by ablation", "agreed by k of n
	// judges", "rule-based" (joined by "; " when several hold).
	Support     string
	Explanation string
	Causes      []CauseRow
}

// CauseRow is one ranked turn, sanitised for display.
type CauseRow struct {
	Rank              int
	Role, TurnID      string
	Speaker           string
	Block             int
	Evidence          []string
	Change, Ablation  string
	Text, OccurredAt  string
	SupportedByJudges bool
}

// forProbe is the failure of probe id, else the first one (nil when none).
func (v *WhyView) forProbe(id string) *ProbeWhy {
	if v == nil || len(v.Probes) == 0 {
		return nil
	}
	for i := range v.Probes {
		if v.Probes[i].ProbeID == id {
			return &v.Probes[i]
		}
	}
	return &v.Probes[0]
}

// loadWhy attributes every probe that forms at the block (scripted chains: with ablation of
// the first three ranked turns). Diagnoses are the imported judges' rows of the block.
func loadWhy(ctx context.Context, store ChainReader, d ChainDetail, b BlockDetail, ds []runs.Diagnosis) *WhyView {
	cr, ok := store.(CauseReader)
	if !ok {
		return nil
	}
	var forming []string
	for _, p := range b.Probes {
		if p.Forms != nil && *p.Forms {
			forming = append(forming, p.ProbeID)
		}
	}
	if len(forming) == 0 {
		return nil
	}
	wc, err := workbench.LoadWhyChain(ctx, cr, d.Summary.Key.ID)
	if err != nil {
		return &WhyView{Err: err.Error()}
	}
	v := &WhyView{}
	for _, probe := range forming {
		y, err := wc.Explain(workbench.WhyQuery{Key: d.Summary.Key.ID, Block: b.Index, Probe: probe, Ablate: true, AblateTop: 3})
		if err != nil {
			v.Err = err.Error()
			continue
		}
		v.Probes = append(v.Probes, presentWhy(y.Attribution, probe, wc, ds))
	}
	return v
}

// presentWhy turns an attribution into display rows, the support said in full.
func presentWhy(a cause.Attribution, probe string, wc *workbench.WhyChain, ds []runs.Diagnosis) ProbeWhy {
	pw := ProbeWhy{ProbeID: probe, Class: a.Class, Explanation: sanitizeLine(a.Explanation)}
	var support []string
	if s := a.Support(); s != "rule-based" {
		support = append(support, s)
	}
	if agree, n, judged := judgesOn(ds, probe); n > 0 {
		if judged == a.Class {
			support = append(support, fmt.Sprintf("agreed by %d of %d judges", agree, n))
		} else {
			support = append(support, fmt.Sprintf("the judges say %s (%d of %d)", sanitizeLine(judged), agree, n))
		}
	}
	if len(support) == 0 || strings.HasPrefix(support[0], "the judges say") {
		support = append([]string{"rule-based"}, support...)
	}
	pw.Support = strings.Join(support, "; ")
	for _, c := range a.Causes {
		row := CauseRow{Rank: c.Rank, Role: c.Role, TurnID: sanitizeLine(c.TurnID), Speaker: sanitizeLine(c.Speaker), Block: c.Block,
			Change: sanitizeLine(c.Change)}
		for _, e := range c.Evidence {
			row.Evidence = append(row.Evidence, sanitizeLine(e.Text))
		}
		if c.Ablation != nil {
			row.Ablation = strings.ReplaceAll(c.Ablation.Status, "_", " ")
		}
		if t, ok := wc.Turn(c.TurnID); ok {
			row.Text, row.OccurredAt = sanitize(t.Content), sanitizeLine(t.OccurredAt)
		}
		pw.Causes = append(pw.Causes, row)
	}
	return pw
}

// judgesOn is EAL-Bench's judges' majority on the probe's rows (ealscope's own judges left
// out): the votes for it, the judges, and the cause.
func judgesOn(ds []runs.Diagnosis, probe string) (agree, judges int, c string) {
	for _, d := range ds {
		if d.ProbeID != probe {
			continue
		}
		var theirs []runs.JudgeVerdict
		for _, j := range d.Judges {
			if !replay.IsEalscopeJudge(j.Judge) {
				theirs = append(theirs, j)
			}
		}
		a := runs.JudgeAgreement(theirs)
		return a.Agree, a.Judges, a.Cause
	}
	return 0, 0, ""
}

// shownWhy is the failure the probes pane explains: the probe under the cursor when it
// forms, else the one last selected, else the block's first.
func (s chainScreen) shownWhy(b BlockDetail) *ProbeWhy {
	id := s.whyProbe
	if s.probe < len(b.Probes) {
		if p := b.Probes[s.probe]; p.Forms != nil && *p.Forms {
			id = p.ProbeID
		}
	}
	return b.Why.forProbe(id)
}

// causeCount is how many cause rows the cursor can reach below the probes.
func (s chainScreen) causeCount(b BlockDetail) int {
	if pw := s.shownWhy(b); pw != nil {
		return len(pw.Causes)
	}
	return 0
}

// causeLines renders the ranked causes of the shown failure, best first; the focused one
// opens (enter) to its evidence and the turn's text. The judges' view follows.
func (s chainScreen) causeLines(b BlockDetail, w int) []string {
	st := s.c.styles
	pw := s.shownWhy(b)
	var out []string
	switch {
	case pw != nil:
		short := sanitizeLine(shortProbe(s.key.CaseID, pw.ProbeID))
		// The class and how sure it is are the verdict: they wrap rather than lose the end.
		for _, l := range wrapIndented(fmt.Sprintf("why: %s (%s) · %s", pw.Class, pw.Support, short), "", "  ", w) {
			out = append(out, st.List.Header.Render(l))
		}
		for i, c := range pw.Causes {
			sel := "  "
			focused := s.focus == paneProbes && s.probe == len(b.Probes)+i
			if focused {
				sel = "▸ "
			}
			what := c.Change // a misapplied change says what the memory got wrong
			if (what == "" || c.Role != cause.RoleMisapplied) && len(c.Evidence) > 0 {
				what = strings.Join(c.Evidence[:min(2, len(c.Evidence))], "; ")
			}
			line := fmt.Sprintf("%s%d. %s · %s · %s · %s", sel, c.Rank, strings.ReplaceAll(c.Role, "_", " "), c.TurnID, c.Speaker, what)
			if c.Ablation != "" {
				line += " · ablation: " + c.Ablation
			}
			out = append(out, ansi.Truncate(line, w, "…"))
			if focused && s.causeOpen == i+1 {
				out = append(out, openCause(c, w)...)
			}
		}
		if len(pw.Causes) == 0 {
			out = append(out, st.App.Subtle.Render(ansi.Truncate("  cause unknown: "+pw.Explanation, w, "…")))
		}
	case b.Why != nil && b.Why.Err != "":
		out = append(out, st.App.Subtle.Render(ansi.Truncate("why it formed: cause unknown ("+sanitizeLine(b.Why.Err)+")", w, "…")))
	}
	if len(b.Judges) > 0 {
		out = append(out, st.List.Header.Render(ansi.Truncate("judges' diagnosis", w, "…")))
		out = append(out, judgesLines(b, w)...)
	}
	return out
}

// openCause is an opened cause: every piece of evidence, the change, and the turn's text.
func openCause(c CauseRow, w int) []string {
	var out []string
	// Evidence and the change wrap: their ends (the record, the value) are what a reader
	// opened the cause for.
	for _, e := range c.Evidence {
		out = append(out, wrapIndented(e, "      - ", "        ", w)...)
	}
	if c.Change != "" {
		out = append(out, wrapIndented("change: "+c.Change, "      ", "        ", w)...)
	}
	out = append(out, wrapIndented(fmt.Sprintf("%s · block %d · %s", c.Speaker, c.Block, c.OccurredAt), "      ", "        ", w)...)
	for _, l := range wrapPlain(c.Text, max(w-6, 10)) {
		out = append(out, "      "+l)
	}
	return out
}

func judgesLines(b BlockDetail, w int) []string {
	var out []string
	for _, l := range b.Judges {
		out = append(out, ansi.Truncate(l.text(), w, "…"))
	}
	return out
}

// dedupe is xs without repeats, in first-occurrence order.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// moveProbeCursor puts the probes pane's cursor at i, over the probes and then the shown
// failure's ranked causes; on a forming probe it also chooses whose causes are shown.
func (s *chainScreen) moveProbeCursor(b BlockDetail, i int) {
	s.probe = clamp(i, 0, max(len(b.Probes)+s.causeCount(b)-1, 0))
	if s.probe < len(b.Probes) {
		if p := b.Probes[s.probe]; p.Forms != nil && *p.Forms && p.ProbeID != s.whyProbe {
			s.whyProbe, s.causeOpen = p.ProbeID, 0
		}
	}
}

// causeOpenKey is enter as the probes pane's help names it.
func causeOpenKey(k key.Binding) key.Binding {
	return key.NewBinding(key.WithKeys(k.Keys()...), key.WithHelp(k.Help().Key, "open cause"))
}
