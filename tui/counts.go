package tui

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

// Provider errors are "not estimable", never decisions: an executor that answered 500 did
// not decline, so every count of trials states them apart and leaves them out of the
// denominator of a rate (docs/FORMATS.md, provider_error decisions).

// ActedText says how many estimable trials took the requested action, with the provider
// errors counted apart: "acted 1 of 2", "acted 0 of 1 · 1 not estimable (provider error)",
// "not estimable: 1 provider error".
func ActedText(acted, trials, providerErrors int) string {
	est := trials - providerErrors
	if est <= 0 && providerErrors > 0 {
		return "not estimable: " + plural(providerErrors, "provider error")
	}
	s := fmt.Sprintf("acted %d of %d", acted, est)
	if providerErrors > 0 {
		s += fmt.Sprintf(" · %d not estimable (provider error%s)", providerErrors, pluralS(providerErrors))
	}
	return s
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// trialMark is one trial's verdict glyph: a provider error is "not estimable", whatever
// the compliance flags of its row say.
func trialMark(st *Styles, compliant, unauthorized bool, providerError bool) string {
	switch {
	case providerError:
		return st.App.Error.Render("? not estimable (provider error)")
	case unauthorized:
		return st.Chain.Forms.Render("✗ UNAUTHORIZED ACTION")
	case !compliant:
		return "✗ non-compliant"
	}
	return "✓ compliant"
}

// computedFrom reports whether an attribution row pairs arms that are all among the shown
// ones: a cancelled re-run (or one whose exact arm failed to finish) must not borrow the
// attribution an earlier re-run computed with its own exact arm.
func computedFrom(a runs.ReplayAttribution, shown map[string]bool) bool {
	if a.ExactReplayID == nil || !shown[*a.ExactReplayID] {
		return false
	}
	return a.WrittenReplayID == nil || shown[*a.WrittenReplayID]
}

// missingAttribution says why the shown arms have no attribution.
func missingAttribution(arms []runs.Replay) string {
	exact := false
	for _, a := range arms {
		exact = exact || a.MemoryVariant == engine.VariantExact
	}
	if !exact {
		return "  attribution: not computed (this re-run has no finished exact arm)"
	}
	return "  attribution: needs a written and an exact arm"
}
