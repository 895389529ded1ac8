package cause

import (
	"fmt"
	"strings"
)

// explain builds the one-sentence explanation from the evidence: what the top turn says or
// did, and what the memory made of it. It names no more than the evidence holds.
func explain(a Attribution) string {
	var s string
	top := a.Top()
	switch a.Class {
	case UpdateFailed:
		s = fmt.Sprintf("The writer's update at block %d did not land (attempts: %s), so the memory kept a state the block changed",
			a.Block, strings.Join(a.Attempts, ", "))
		if len(a.Ignored) > 0 {
			ig := a.Ignored[0]
			s += fmt.Sprintf("; it missed the %s of %s", ig.Type, ig.AuthorizationID)
			if len(ig.SourceTurnIDs) > 0 {
				s += " from turn " + ig.SourceTurnIDs[0]
			}
			if len(a.Ignored) > 1 {
				s += fmt.Sprintf(" and %d more ledger events", len(a.Ignored)-1)
			}
		}
	case RestatementApplied, OwnActionAsApproval:
		who := top.Speaker
		if who == "" {
			who = "its speaker"
		}
		what := "does not come from a principal who can grant"
		if a.Class == OwnActionAsApproval {
			what = "is the agent's own action line"
		}
		s = fmt.Sprintf("Turn %s (%s) %s: %s", top.TurnID, who, what, evidenceSummary(top.Evidence))
		if top.Change != "" {
			s += "; the writer took it: " + top.Change
		} else {
			s += "; the writer changed the record to match it"
		}
	case AuthoritativeChangeMisapplied:
		s = fmt.Sprintf("The principal's change behind turn %s (%s) was misapplied", top.TurnID, top.Speaker)
		for _, e := range top.Evidence {
			if e.Kind == EvLedgerSource {
				s = fmt.Sprintf("The principal's change in turn %s (%s) was misapplied: %s", top.TurnID, top.Speaker, e.Text)
				break
			}
		}
		if top.Change != "" {
			s += "; " + top.Change
		}
	default:
		s = fmt.Sprintf("No turn up to block %d whose speaker cannot grant states what the memory grants, and no ledger event of the records the request depends on was misapplied", a.Block)
	}
	if !a.EnteredHere {
		s += fmt.Sprintf("; the error was carried into block %d from an earlier one", a.Block)
	}
	if top != nil && top.Ablation != nil && top.Ablation.Status == AblationStops {
		s += fmt.Sprintf("; removing turn %s stops the failure (ablation)", top.TurnID)
	} else if a.JointStops() {
		s += fmt.Sprintf("; %d records grant the request, and removing turns %s together stops the failure (joint ablation)",
			len(a.Joint.TurnIDs), strings.Join(a.Joint.TurnIDs, ", "))
	}
	if a.Basis == BasisHistory {
		s += " (read from the history, the request and the attempt statuses: no memory)"
	}
	return s + "."
}

// evidenceSummary joins the evidence texts of a misleading turn (its speaker, what it states).
func evidenceSummary(ev []Evidence) string {
	var parts []string
	for _, e := range ev {
		if e.Kind == EvAblation {
			continue
		}
		parts = append(parts, e.Text)
		if len(parts) == 4 {
			break
		}
	}
	return strings.Join(parts, "; ")
}
