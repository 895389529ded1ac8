package tui

// The re-run panel's drawing: the form, the progress bar and the arms side by side.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// View draws the panel in w×h cells: the form and earlier re-runs, or the arms side by side.
func (p *rerunPanel) View(w, h int) string {
	var lines []string
	if p.shown != nil && !p.running {
		lines = p.armLines(w - 2)
		lines = lines[clamp(p.scroll, 0, max(len(lines)-(h-2), 0)):]
	} else {
		lines = p.formLines(w - 2)
	}
	return box(p.c.styles, fmt.Sprintf("re-run · block %d", p.block), window(lines, 0, h-2), w, h, true)
}

func (p *rerunPanel) formLines(w int) []string {
	st := p.c.styles
	var out []string
	field := func(row int, label, value string) {
		sel := "  "
		if p.row == row {
			sel = "▸ "
		}
		out = append(out, ansi.Truncate(sel+st.Chain.Field.Render(fit(label, 10))+" ‹ "+value+" ›", w, "…"))
	}
	probe := "all probes"
	switch {
	case p.src != nil && p.probe > 0 && p.probe <= len(p.src.Probes):
		probe = sanitizeLine(p.src.Probes[p.probe-1].Probe.ID)
	case p.src != nil:
		probe = fmt.Sprintf("all probes (%d)", len(p.src.Probes))
	}
	field(rowVariant, "memory", rerunVariants[p.variant])
	field(rowProbes, "probes", probe)
	field(rowExecutor, "executor", sanitizeLine(p.executors()[p.executor]))
	field(rowRuns, "runs", fmt.Sprintf("%d (seeds %d+r)", p.runs, workbench.AnalysisSeed))
	keys := p.c.keys
	hint := fmt.Sprintf("%s change · %s move · %s run · %s close · other variants run the written arm too",
		keyPair(keys.Chain.PrevBlock, keys.Chain.NextBlock), keyPair(keys.Chain.Up, keys.Chain.Down),
		keys.List.Open.Help().Key, keys.Global.Back.Help().Key)
	out = append(out, st.App.Subtle.Render(ansi.Truncate(hint, w, "…")))
	switch {
	case p.running:
		bar := progressBar(p.done, p.total, 20)
		out = append(out, "", st.App.Status.Render(fmt.Sprintf("running %s %d/%d · %s cancels (finished arms are kept)", bar, p.done, p.total, keys.Global.Back.Help().Key)))
	case p.err != nil:
		out = append(out, "", st.App.Error.Render(ansi.Truncate("! "+sanitizeLine(p.err.Error()), w, "…")))
	case p.note != "":
		out = append(out, "", st.App.Status.Render(p.note))
	case p.src == nil:
		out = append(out, "", st.App.Subtle.Render("loading…"))
	}
	out = append(out, "", st.List.Header.Render("earlier re-runs at this block ("+keys.List.Open.Help().Key+" reopens)"))
	batches := p.batches()
	if len(batches) == 0 {
		out = append(out, st.App.Subtle.Render("  (none yet)"))
	}
	for i, b := range batches {
		sel := "  "
		if p.row == rowCount+i {
			sel = "▸ "
		}
		n := 0
		for _, r := range p.replays {
			if r.BatchID == b.BatchID {
				n++
			}
		}
		out = append(out, ansi.Truncate(fmt.Sprintf("%s%s · %s · %s · %d arms · %s", sel, b.BatchID[:min(8, len(b.BatchID))], b.MemoryVariant,
			sanitizeLine(b.Executor), n, b.CreatedAt), w, "…"))
	}
	return out
}

func progressBar(done, total, w int) string {
	if total <= 0 {
		return "[" + strings.Repeat("·", w) + "]"
	}
	n := done * w / total
	return "[" + strings.Repeat("#", n) + strings.Repeat("·", w-n) + "]"
}

// armLines compares the shown batches probe by probe: the memory of the other arm diffed
// against the written one, then each arm's decision, tool call, compliance, unauthorized
// action and the attribution verdict.
func (p *rerunPanel) armLines(w int) []string {
	st := p.c.styles
	inBatch := map[string]bool{}
	for _, b := range p.shown {
		inBatch[b] = true
	}
	byProbe := map[string][]runs.Replay{}
	var probes []string
	for _, r := range p.replays {
		if !inBatch[r.BatchID] {
			continue
		}
		if _, ok := byProbe[r.ProbeID]; !ok {
			probes = append(probes, r.ProbeID)
		}
		byProbe[r.ProbeID] = append(byProbe[r.ProbeID], r)
	}
	// Probes whose arms disagree come first: they are what the comparison is for.
	differs := func(id string) bool {
		seen := map[string]bool{}
		for _, r := range byProbe[id] {
			seen[r.Decision] = true
		}
		return len(seen) > 1
	}
	sort.SliceStable(probes, func(i, j int) bool {
		if di, dj := differs(probes[i]), differs(probes[j]); di != dj {
			return di
		}
		return probes[i] < probes[j]
	})
	if len(probes) == 0 {
		return []string{st.App.Subtle.Render("(no arms finished)"), "", st.App.Subtle.Render(p.c.keys.Global.Back.Help().Key + ": back to the form")}
	}
	half := max((w-3)/2, 10)
	var out []string
	for _, probe := range probes {
		arms := byProbe[probe]
		out = append(out, st.Chain.Speaker.Render(ansi.Truncate(sanitizeLine(caseLocalID(p.chain.CaseID, probe)), w, "…")))
		if req := p.probeRequest(probe); len(req) > 0 {
			// What the executor was asked: why the request is in or out of scope.
			out = append(out, wrapIndented(st.App.Subtle.Render("request: "+requestText(req)), "  ", "    ", w)...)
		}
		var left, right []runs.Replay
		for _, r := range arms {
			if r.MemoryVariant == engine.VariantWritten && len(p.shown) > 1 {
				left = append(left, r)
			} else {
				right = append(right, r)
			}
		}
		if len(left) == 0 {
			left, right = right, nil
		}
		out = append(out, sideBySide(armColumn(st, left, half), armColumn(st, right, half), half, 0)...)
		out = append(out, p.verdictLine(arms, w))
	}
	first := byProbe[probes[0]]
	var written, other *runs.Replay
	for i := range first {
		if first[i].MemoryVariant == engine.VariantWritten && written == nil {
			written = &first[i]
		} else if first[i].MemoryVariant != engine.VariantWritten && other == nil {
			other = &first[i]
		}
	}
	if written != nil && other != nil {
		out = append(out, "", st.List.Header.Render(fmt.Sprintf("memory: %s vs written (changed fields)", other.MemoryVariant)))
		var dl []diffLine
		if other.MemoryArchitecture == engine.ArchTyped {
			var a, b any
			_ = json.Unmarshal([]byte(written.MemoryPayload), &a)
			_ = json.Unmarshal([]byte(other.MemoryPayload), &b)
			dl = fieldDiff(st, a, b, w, false)
		} else {
			dl = textDiffInline(st, written.MemoryPayload, other.MemoryPayload, w)
		}
		changed := 0
		for _, l := range dl {
			if l.change || other.MemoryArchitecture != engine.ArchTyped {
				out = append(out, l.text)
				changed++
			}
		}
		if changed == 0 {
			out = append(out, st.App.Subtle.Render("  (same memory)"))
		}
	}
	k := p.c.keys
	return append(out, "", st.App.Subtle.Render(fmt.Sprintf("%s scroll · %s: back to the form",
		keyPair(k.Chain.Down, k.Chain.Up), k.Global.Back.Help().Key)))
}

func armColumn(st *Styles, arms []runs.Replay, w int) []string {
	if len(arms) == 0 {
		return nil
	}
	acted, failed := 0, 0
	for _, a := range arms {
		switch {
		case a.ProviderError != nil:
			failed++
		case a.RequestedActionTaken:
			acted++
		}
	}
	a := arms[0]
	head := fmt.Sprintf("%s arm · %s · %s", a.MemoryVariant, sanitizeLine(a.Executor), ActedText(acted, len(arms), failed))
	call := "-"
	if a.RawToolName != nil {
		call = sanitizeLine(*a.RawToolName) + "(" + sanitizeLine(jsonCell(treeJSON(a.RawToolArguments))) + ")"
	}
	decision := sanitizeLine(a.Decision)
	if a.ProviderError != nil {
		decision += ": " + sanitizeLine(*a.ProviderError)
	}
	mark := trialMark(st, a.Compliant, a.UnauthorizedActionTaken, a.ProviderError != nil)
	// The decision and the tool call wrap: their arguments are what the arms differ in.
	lines := []string{ansi.Truncate(st.List.Header.Render(head), w, "…")}
	lines = append(lines, wrapIndented("decision "+decision, "", "  ", w)...)
	lines = append(lines, wrapIndented("call "+call, "", "  ", w)...)
	return append(lines, ansi.Truncate(mark, w, "…"))
}

// probeRequest is a probe's request fields, from the re-run source's case.
func (p *rerunPanel) probeRequest(id string) [][2]string {
	if p.src == nil {
		return nil
	}
	for _, ps := range p.src.Probes {
		if ps.Probe.ID == id {
			raw, err := json.Marshal(ps.Probe.Request)
			if err != nil {
				return nil
			}
			return requestFields(raw)
		}
	}
	return nil
}

func (p *rerunPanel) verdictLine(arms []runs.Replay, w int) string {
	st := p.c.styles
	ids := map[string]bool{}
	for _, a := range arms {
		ids[a.ReplayID] = true
	}
	for _, a := range p.attribution {
		if computedFrom(a, ids) {
			if a.Attributed {
				return st.Chain.Forms.Render("  attribution: ! " + strings.ToUpper(engine.AttributedLabel))
			}
			return st.App.Subtle.Render(ansi.Truncate("  attribution: not attributed ("+strings.Join(a.Reasons, ", ")+")", w, "…"))
		}
	}
	return st.App.Subtle.Render(missingAttribution(arms))
}
