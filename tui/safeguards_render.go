package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Drawing of the safeguards pane: pure functions of the display rows (safeguards_view.go).
// Every line fits its width; meaning is carried by glyphs and words (✗ REMOVED, ! PREVENTED),
// never by colour alone.

// blockFA names a first false-authority block ("block 3", "none").
func blockFA(b int) string {
	if b < 0 {
		return "none"
	}
	return fmt.Sprintf("block %d", b)
}

// formationText says what the policy did to the chain's formation.
func formationText(p SafeguardPolicy) string {
	before, after := p.FirstFalseBefore, p.FirstFalseAfter
	switch {
	case before >= 0 && after < 0:
		return fmt.Sprintf("first false authority %s → none: FORMATION REMOVED", blockFA(before))
	case before >= 0 && after > before:
		return fmt.Sprintf("first false authority %s → %s: delayed", blockFA(before), blockFA(after))
	case before < 0 && after >= 0:
		return fmt.Sprintf("first false authority none → %s: FORMED UNDER THE POLICY", blockFA(after))
	case before == after && before < 0:
		return "no false authority, before or after"
	}
	return fmt.Sprintf("first false authority %s → %s", blockFA(before), blockFA(after))
}

// policySummary is the effect of a policy in the list: formation, then trials.
func policySummary(p SafeguardPolicy) []string {
	switch {
	case p.Err != "":
		return []string{"! error"}
	case p.NotApplicable != "":
		return []string{"not applicable"}
	case p.Audience != nil:
		return audienceSummary(*p.Audience)
	}
	fa := "first FA " + blockFA(p.FirstFalseBefore) + " → " + blockFA(p.FirstFalseAfter)
	if p.FirstFalseBefore < 0 && p.FirstFalseAfter < 0 {
		fa = "no false authority"
	}
	s := fmt.Sprintf("%d prevented · %d refused", p.Prevented, p.Refused)
	if p.NotEstimable > 0 {
		s += fmt.Sprintf(" · %d n/e", p.NotEstimable)
	}
	return []string{fa, s}
}

// policyListLines draws the policy list, two lines a policy, the selected one marked ▸.
func policyListLines(st *Styles, ps []SafeguardPolicy, sel, w int) []string {
	var out []string
	for i, p := range ps {
		mark := "  "
		style := st.Chain.Speaker
		if i == sel {
			mark = "▸ "
			style = st.List.Selected
		}
		out = append(out, style.Render(fit(mark+sanitizeLine(p.ID), w)))
		for _, l := range policySummary(p) {
			out = append(out, st.App.Subtle.Render(ansi.Truncate("    "+l, w, "…")))
		}
	}
	if len(ps) == 0 {
		out = append(out, st.App.Subtle.Render(ansi.Truncate("(no policies evaluated)", w, "…")))
	}
	return out
}

// sourceText is a cited turn with its speaker and block ("t-0012 (vendor_rep, block 3)"), or
// "t-0099 (not in the case)".
func sourceText(t SourceTurn) string {
	if t.Speaker == "" {
		return sanitizeLine(t.ID) + " (not in the case)"
	}
	if t.Capability != "" {
		return fmt.Sprintf("%s (%s, block %d, %s)", sanitizeLine(t.ID), sanitizeLine(t.Speaker), t.Block, t.Capability)
	}
	return fmt.Sprintf("%s (%s, block %d)", sanitizeLine(t.ID), sanitizeLine(t.Speaker), t.Block)
}

func sourcesText(ts []SourceTurn) string {
	if len(ts) == 0 {
		return "none"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = sourceText(t)
	}
	return strings.Join(parts, ", ")
}

// recordLines draws the per-record decisions: removed records first (they are what the
// policy did), each with its reasons and the turns it cites; MemTX's lifecycle state and
// PPMF's trust and bound sources when the policy keeps them.
func recordLines(st *Styles, recs []SafeguardRecord, w int) []string {
	kept := 0
	for _, r := range recs {
		if r.Kept {
			kept++
		}
	}
	out := []string{st.List.Header.Render(ansi.Truncate(fmt.Sprintf("records (%d kept, %d removed)", kept, len(recs)-kept), w, "…"))}
	if len(recs) == 0 {
		return append(out, st.App.Subtle.Render("  (no records in this memory)"))
	}
	wrap := func(prefix, text string) { out = append(out, wrapUnder(text, prefix, w)...) }
	for _, removed := range []bool{true, false} {
		for _, r := range recs {
			if r.Kept == removed {
				continue
			}
			head := decisionHead(st, r.AuthorizationID, r.Kept, "REMOVED")
			if r.State != "" {
				head += " · state " + st.Chain.Field.Render(sanitizeLine(r.State))
			}
			if r.Trust != "" {
				head += " · trust " + st.Chain.Field.Render(sanitizeLine(r.Trust))
			}
			out = append(out, ansi.Truncate("  "+head, w, "…"))
			if len(r.Reasons) > 0 {
				wrap("      ", "why: "+sanitizeLine(strings.Join(r.Reasons, ", ")))
			}
			wrap("      ", "cites "+sourcesText(r.Sources))
			if !r.Kept {
				// What a removed record's turns actually said: the claim it was built from.
				for _, t := range r.Sources {
					if t.Content != "" {
						out = append(out, st.App.Subtle.Render(ansi.Truncate("        “"+sanitizeLine(t.Content)+"”", w, "…")))
					}
				}
			}
			if r.Trust != "" || len(r.BoundSources) > 0 {
				wrap("      ", "bound to "+sourcesText(r.BoundSources))
			}
		}
	}
	return out
}

// wrapUnder wraps text under prefix to w cells, continuation lines indented two more cells
// (the text wrapped to what is left after both).
func wrapUnder(text, prefix string, w int) []string {
	var out []string
	for i, l := range strings.Split(ansi.Wrap(text, max(w-len(prefix)-2, 8), ""), "\n") {
		if i > 0 {
			l = "  " + l
		}
		out = append(out, ansi.Truncate(prefix+l, w, "…"))
	}
	return out
}

// decisionHead is a record's decision ("✓ kept auth_01", "✗ REMOVED auth_02"), the record id
// sanitised.
func decisionHead(st *Styles, id string, kept bool, dropped string) string {
	if kept {
		return st.Chain.Exact.Render("✓ kept") + " " + sanitizeLine(id)
	}
	return st.Chain.Forms.Render("✗ "+dropped) + " " + st.Chain.Speaker.Render(sanitizeLine(id))
}

// trialText is one arm of a probe: decision, mark and call (the gate's reason, when it
// blocked, is drawn below it by probeOutcomeLines).
func trialText(st *Styles, t SafeguardTrial) string {
	if t.Missing {
		return st.App.Subtle.Render("no trial")
	}
	mark := trialMark(st, t.Compliant, t.Unauthorized, t.ProviderError != "")
	call := ""
	if t.ToolName != "" {
		call = " " + sanitizeLine(t.ToolName)
		if t.ToolArgs != "" {
			call += "(" + sanitizeLine(t.ToolArgs) + ")"
		}
	}
	return sanitizeLine(t.Decision) + " " + mark + call
}

func effectText(st *Styles, e string) string {
	switch e {
	case effectPrevented:
		return st.Chain.Exact.Render("! PREVENTED")
	case effectRefused:
		return st.Chain.Forms.Render("! REFUSED (authorized request)")
	case effectNotEstimable:
		return st.App.Error.Render("? not estimable")
	case effectEnabled:
		return st.Chain.Forms.Render("! ENABLED (acted only behind the gated memory)")
	}
	return st.App.Subtle.Render("= no change")
}

// probeOutcomeLines draws each probe's outcome behind the written memory and behind the gated
// one, probes the policy changed first.
func probeOutcomeLines(st *Styles, caseID string, ps []SafeguardProbe, noTrials string, w int) []string {
	out := []string{st.List.Header.Render(ansi.Truncate("probes: behind the written memory → behind the gated memory", w, "…"))}
	if len(ps) == 0 {
		why := "no trials at this block"
		if noTrials != "" {
			why = noTrials
		}
		return append(out, st.App.Subtle.Render(ansi.Truncate("  ("+why+")", w, "…")))
	}
	verdict := func(ok bool) string {
		if ok {
			return st.Chain.Granted.Render("✓grant")
		}
		return st.Chain.Denied.Render("✗deny")
	}
	forms := func(f *bool) string {
		switch {
		case f == nil:
			return "?"
		case *f:
			return "FORMS"
		}
		return "-"
	}
	for _, changed := range []bool{true, false} {
		for _, p := range ps {
			if (p.Effect != "") != changed {
				continue
			}
			id := sanitizeLine(strings.TrimPrefix(strings.TrimPrefix(p.ProbeID, caseID), "_"))
			out = append(out, ansi.Truncate(fmt.Sprintf("  %s %s · forms %s→%s · %s", st.Chain.Speaker.Render(id), verdict(p.Authorized),
				forms(p.FormsBefore), forms(p.FormsAfter), effectText(st, p.Effect)), w, "…"))
			out = append(out, ansi.Truncate("      written: "+trialText(st, p.Before), w, "…"))
			out = append(out, ansi.Truncate("      gated:   "+trialText(st, p.After), w, "…"))
			if p.After.GateReason != "" {
				// The gate's reason gets its own lines: it is why a blocked request was refused.
				for _, l := range strings.Split(ansi.Wrap("blocked by the gate: "+sanitizeLine(p.After.GateReason), max(w-8, 8), ""), "\n") {
					out = append(out, ansi.Truncate("        "+l, w, "…"))
				}
			}
		}
	}
	return out
}

// gatedDiffLines is the gated memory against the written one (changed records only, plus a
// line per unchanged record).
func gatedDiffLines(st *Styles, order []string, b SafeguardBlock, w int) []string {
	out := []string{st.List.Header.Render(ansi.Truncate("gated memory vs written", w, "…"))}
	switch {
	case b.Written == nil:
		return append(out, st.App.Subtle.Render("  (no memory yet at this block)"))
	case b.Gated == nil:
		return append(out, st.App.Subtle.Render("  (no gated memory stored)"))
	}
	var dl []diffLine
	if b.Written.Payload != nil || b.Gated.Payload != nil {
		dl = fieldDiffInOrder(st, order, b.Written.Payload, b.Gated.Payload, w, false)
	} else {
		dl = textDiffInline(st, b.Written.Text, b.Gated.Text, w)
	}
	changed := false
	for _, l := range dl {
		out = append(out, l.text)
		changed = changed || l.change
	}
	if !changed {
		out = append(out, st.App.Subtle.Render("  (the policy let the memory through unchanged)"))
	}
	return out
}

// policyDetailLines is the focused policy at a block: what it is, what it did to formation
// and trials over the chain, then this block's records, probes and memory diff.
func policyDetailLines(st *Styles, caseID string, order []string, p SafeguardPolicy, block, w int) []string {
	out := []string{st.App.Title.Render(ansi.Truncate(sanitizeLine(p.ID)+" "+sanitizeLine(p.Version), w, "…"))}
	if p.Description != "" {
		for _, l := range strings.Split(ansi.Wrap(sanitizeLine(p.Description), max(w, 8), ""), "\n") {
			out = append(out, st.App.Subtle.Render(ansi.Truncate(l, w, "…")))
		}
	}
	if stop := unevaluatedLines(st, p.Err, p.NotApplicable, w); stop != nil {
		return append(out, stop...)
	}
	if p.Audience != nil {
		return append(out, audienceDetailLines(st, *p.Audience, block, w)...)
	}
	out = append(out, ansi.Truncate(formationText(p), w, "…"))
	over := "over the chain"
	if p.FinalOnly {
		over = "at the final block"
	}
	trials := fmt.Sprintf("%s: %d prevented · %d refused · %s", over, p.Prevented, p.Refused, plural(p.RecordsRemoved, "record")+" removed")
	if p.NotEstimable > 0 {
		trials += fmt.Sprintf(" · %d not estimable (provider error)", p.NotEstimable)
	}
	out = append(out, ansi.Truncate(trials, w, "…"), "")
	var b *SafeguardBlock
	for i := range p.Blocks {
		if p.Blocks[i].Index == block {
			b = &p.Blocks[i]
		}
	}
	if b == nil {
		return append(out, st.App.Subtle.Render(ansi.Truncate(fmt.Sprintf("(nothing evaluated at block %d)", block), w, "…")))
	}
	head := fmt.Sprintf("block %d · written forms: %s · gated forms: %s", block, yesNo(b.FormsBefore), yesNo(b.FormsAfter))
	out = append(out, st.List.Header.Render(ansi.Truncate(head, w, "…")))
	if stop := unevaluatedLines(st, b.Err, b.NotApplicable, w); stop != nil {
		return append(out, stop...)
	}
	out = append(out, recordLines(st, b.Records, w)...)
	out = append(out, "")
	out = append(out, probeOutcomeLines(st, caseID, b.Probes, b.NoTrials, w)...)
	out = append(out, "")
	return append(out, gatedDiffLines(st, order, *b, w)...)
}

// unevaluatedLines say why a policy, or a block of it, has no evaluation to show: its error,
// or why it does not apply (nil: it was evaluated).
func unevaluatedLines(st *Styles, err, notApplicable string, w int) []string {
	switch {
	case err != "":
		return wrapLines(st.App.Error, "! "+sanitizeLine(err), w)
	case notApplicable != "":
		return wrapLines(st.Chain.Same, "not applicable: "+sanitizeLine(notApplicable), w)
	}
	return nil
}

// wrapLines wraps already-sanitised text to w cells, each line styled.
func wrapLines(style lipgloss.Style, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(ansi.Wrap(text, max(w, 8), ""), "\n") {
		out = append(out, style.Render(ansi.Truncate(l, w, "…")))
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "no"
}
