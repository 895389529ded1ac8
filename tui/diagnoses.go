package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// JudgesLine is what EAL-Bench's judges say about one diagnosed request at a block (an
// imported diagnosis file row): the most common cause and how many judges gave it, the turns
// they call misleading or ignored (across judges), and the block they say the error entered.
type JudgesLine struct {
	Cause         string
	Agree, Judges int
	// EnteredSplit: the judges do not agree whether the error entered at ErrorBlock.
	EnteredSplit        bool
	Misleading, Ignored []string
	ErrorBlock          int
}

// presentDiagnoses turns the rows into lines, one per distinct reading (a chain's requests
// at one block usually share the judges' reading, and repeating it says nothing).
func presentDiagnoses(ds []runs.Diagnosis) []JudgesLine {
	var out []JudgesLine
	seen := map[string]bool{}
	for _, d := range ds {
		// ealscope's own judge (diagnose writes it beside EAL-Bench's) is not one of the
		// judges: the probes pane shows its attribution live above these lines.
		var theirs []runs.JudgeVerdict
		for _, j := range d.Judges {
			if !replay.IsEalscopeJudge(j.Judge) {
				theirs = append(theirs, j)
			}
		}
		if len(theirs) == 0 {
			continue
		}
		d.Judges = theirs
		a := runs.JudgeAgreement(d.Judges)
		l := JudgesLine{Cause: a.Cause, Agree: a.Agree, Judges: a.Judges, EnteredSplit: !a.EnteredAgree, ErrorBlock: d.ErrorBlock}
		var mis, ign []string
		for _, j := range d.Judges {
			mis = append(mis, j.MisleadingMessageIDs...)
			ign = append(ign, j.IgnoredMessageIDs...)
		}
		sort.Strings(mis)
		sort.Strings(ign)
		l.Misleading, l.Ignored = dedupe(mis), dedupe(ign)
		k := fmt.Sprint(l)
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// text is the probes-pane line, untrusted ids and causes sanitised.
func (l JudgesLine) text() string {
	ids := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return sanitizeLine(strings.Join(xs, ","))
	}
	agree := fmt.Sprintf("%d/%d agree", l.Agree, l.Judges)
	entered := fmt.Sprintf("entered at block %d", l.ErrorBlock)
	if l.EnteredSplit {
		entered += " (judges split on it)"
	}
	return fmt.Sprintf("  judges: %s (%s) · misleading %s · ignored %s · %s", sanitizeLine(l.Cause), agree, ids(l.Misleading), ids(l.Ignored), entered)
}

// diagnosesOfChain keeps the rows about this chain: the query matches case, condition and
// writer run, which another run's writer (or domain) can share, so a row must also name the
// chain's domain and, when the chain knows its EAL-Bench ids, one of them.
func diagnosesOfChain(ds []runs.Diagnosis, d ChainDetail) []runs.Diagnosis {
	ids := map[string]bool{}
	for _, id := range d.EALChainIDs {
		ids[id] = true
	}
	var out []runs.Diagnosis
	for _, r := range ds {
		if d.DomainID != "" && r.Domain != d.DomainID {
			continue
		}
		if len(ids) > 0 && !ids[r.ChainID] {
			continue
		}
		out = append(out, r)
	}
	return out
}
