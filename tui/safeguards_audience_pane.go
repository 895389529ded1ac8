package tui

// audience_bound in the chain's safeguards pane: the contexts the audience lab assembled on
// this chain's final memory (stored by the run's audience lab), one per request of each probe.
// For the policy's default arm (input binding, intersection), each request's viewer set from
// the sidecar (the requesting principal and the channel's participants) and every record's
// fate: its authorized audiences, why it was excluded, whether the ground truth forbids it to
// these viewers, and the turns behind it; the other arms in one line per request.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/engine/safeguards"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
)

// audienceSourcesShown is how many of a record's source turns are listed (under input binding
// a record's sources are every turn up to the block where it last changed).
const audienceSourcesShown = 4

// storedChainAudience is the audience_bound entry of a chain's pane, or nil when the run's
// audience lab stored no context on the chain.
func (l *workspaceLab) storedChainAudience(ctx context.Context, key ChainKey, ch replay.SafeguardChain) (*SafeguardPolicy, error) {
	store, ok := l.lab.Store.(workbench.AudienceStore)
	if !ok {
		return nil, nil
	}
	contexts, err := workbench.ChainAudienceContexts(ctx, store, key.ID)
	if err != nil || len(contexts) == 0 {
		return nil, err
	}
	// The sidecar bound to the case names each source turn's channel (who was present).
	if source, data, ok, err := store.RunSidecar(ctx, key.RunID); err != nil {
		return nil, err
	} else if ok {
		if _, err := workbench.BindSidecar(source, data, []replay.SafeguardChain{ch}); err != nil {
			return nil, err
		}
	}
	a := presentChainAudience(ch.Domain, ch.Case, contexts)
	a.Block = ch.Case.LastBlock()
	p := SafeguardPolicy{ID: safeguards.AudienceBoundID, Version: safeguards.AudienceBoundVersion, Description: safeguards.AudienceBound().Description,
		FirstFalseBefore: -1, FirstFalseAfter: -1, FinalOnly: true, Audience: &a}
	return &p, nil
}

// audienceSummary is the policy list's two lines for audience_bound: over the default arm's
// contexts, records excluded and forbidden records admitted.
func audienceSummary(a ChainAudience) []string {
	requests, excluded, records, admitted := 0, 0, 0, 0
	for _, c := range a.Contexts {
		if c.Arm != replay.ArmAudienceInput {
			continue
		}
		requests++
		for _, r := range c.Records {
			records++
			if !r.Kept {
				excluded++
			} else if r.Forbidden {
				admitted++
			}
		}
	}
	return []string{fmt.Sprintf("%s · %d/%d records excluded", plural(requests, "request"), excluded, records), fmt.Sprintf("%d forbidden admitted", admitted)}
}

// audienceDetailLines are audience_bound's detail in the pane.
func audienceDetailLines(st *Styles, a ChainAudience, block, w int) []string {
	out := []string{}
	note := fmt.Sprintf("the audience lab assembles one context per request at the final memory (block %d)", a.Block)
	if block != a.Block {
		note += fmt.Sprintf(", whatever block is shown (here %d)", block)
	}
	out = append(out, wrapLines(st.App.Subtle, note, w)...)
	others := map[string][]string{}
	for _, c := range a.Contexts {
		if c.Arm != replay.ArmAudienceInput {
			others[c.ProbeID+"\x00"+c.RequestID] = append(others[c.ProbeID+"\x00"+c.RequestID], armBrief(c))
		}
	}
	for _, c := range a.Contexts {
		if c.Arm != replay.ArmAudienceInput {
			continue
		}
		// Who asks and where first: a request's id repeats its probe's.
		out = append(out, "", st.List.Header.Render(ansi.Truncate(fmt.Sprintf("asked by %s in %s · request %s", sanitizeLine(c.Principal),
			sanitizeLine(c.Channel), sanitizeLine(c.RequestID)), w, "…")))
		viewers := "viewers " + viewerList(c.Viewers)
		if c.Unresolved != "" {
			viewers = "viewers unresolved: " + sanitizeLine(c.Unresolved) + " (fails closed to public items)"
		}
		out = append(out, wrapUnder(viewers, "  ", w)...)
		if c.ProviderError != "" {
			out = append(out, wrapLines(st.App.Error, "  not estimable: "+sanitizeLine(c.ProviderError), w)...)
		}
		if o := others[c.ProbeID+"\x00"+c.RequestID]; len(o) > 0 {
			for _, l := range wrapUnder("other arms: "+strings.Join(o, " · "), "  ", w) {
				out = append(out, st.App.Subtle.Render(l))
			}
		}
		out = append(out, audienceRecordLines(st, c.Records, w)...)
	}
	return out
}

// armBrief is one other arm's outcome on a request ("unscoped 3 shown, 2 forbidden").
func armBrief(c AudienceContextView) string {
	return fmt.Sprintf("%s %d shown, %d forbidden", sanitizeLine(c.Arm), c.Admitted, c.AdmittedForbidden)
}

// shownSources picks the source turns a record's lines list. Under input binding a record has
// dozens of sources; the ones said where some viewer was not present are what narrows its
// audience, so they are picked first (the latest of them), then the latest of the rest, and
// listed in turn order. more says what was left out and how the turns were picked.
func shownSources(r AudienceRecordView) (shown []SourceTurn, channels []string, more string) {
	n := len(r.Sources)
	withChannels := len(r.SourceChannels) == n
	if n <= audienceSourcesShown {
		if withChannels {
			channels = r.SourceChannels
		}
		return r.Sources, channels, ""
	}
	var narrowing, rest []int
	for i := n - 1; i >= 0; i-- {
		if len(r.LeavesOut) == n && r.LeavesOut[i] {
			narrowing = append(narrowing, i)
		} else {
			rest = append(rest, i)
		}
	}
	picked := append(narrowing, rest...)[:audienceSourcesShown]
	slices.Sort(picked)
	for _, i := range picked {
		shown = append(shown, r.Sources[i])
		if withChannels {
			channels = append(channels, r.SourceChannels[i])
		}
	}
	if len(narrowing) == 0 || len(narrowing) == n {
		return shown, channels, fmt.Sprintf(" (the last %d of %d turns)", audienceSourcesShown, n)
	}
	return shown, channels, fmt.Sprintf(" (%d of %d turns, preferring the %d said where a viewer was not present)", audienceSourcesShown, n, len(narrowing))
}

// audienceSourcesText is source turns with the channel each was said in ("t07 (cfo, block 2)
// in grant_room"): a turn's audience is its channel's participants, not its speaker.
func audienceSourcesText(ts []SourceTurn, channels []string) string {
	if len(ts) == 0 {
		return "none"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = sourceText(t)
		if i < len(channels) && channels[i] != "" {
			parts[i] += " in " + sanitizeLine(channels[i])
		}
	}
	return strings.Join(parts, ", ")
}

// viewersShown is how many viewers are named before the rest are counted (a shared channel
// can hold dozens of participants).
const viewersShown = 6

// viewerList is a viewer set, sanitised: "{a, b}" or "(36) {a, …, f and 30 more}".
func viewerList(vs []string) string {
	if len(vs) <= viewersShown {
		return "{" + sanitizeLine(strings.Join(vs, ", ")) + "}"
	}
	return fmt.Sprintf("(%d) {%s and %d more}", len(vs), sanitizeLine(strings.Join(vs[:viewersShown], ", ")), len(vs)-viewersShown)
}

// audienceRecordLines are a context's records: excluded ones first (what the policy did), each
// with its reason, authorized audiences and the turns behind it (what they said, for an
// excluded record).
func audienceRecordLines(st *Styles, recs []AudienceRecordView, w int) []string {
	var out []string
	for _, excluded := range []bool{true, false} {
		for _, r := range recs {
			if r.Kept == excluded {
				continue
			}
			head := decisionHead(st, r.AuthorizationID, r.Kept, "EXCLUDED")
			if r.Forbidden {
				head += " · " + st.Chain.Forms.Render("forbidden to these viewers")
			}
			out = append(out, ansi.Truncate("  "+head, w, "…"))
			out = append(out, wrapUnder("why: "+sanitizeLine(r.Reason), "      ", w)...)
			out = append(out, wrapUnder("audience "+sanitizeLine(r.Audiences), "      ", w)...)
			shown, channels, more := shownSources(r)
			out = append(out, wrapUnder("from "+audienceSourcesText(shown, channels)+more, "      ", w)...)
			if !r.Kept {
				for _, t := range shown {
					if t.Content != "" {
						out = append(out, st.App.Subtle.Render(ansi.Truncate("        “"+sanitizeLine(t.Content)+"”", w, "…")))
					}
				}
			}
		}
	}
	if len(recs) == 0 {
		out = append(out, st.App.Subtle.Render("  (no records in this memory)"))
	}
	return out
}
