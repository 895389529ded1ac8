package engine

// EstimableMetrics are the rates of Metrics with provider-error trials left out of every
// numerator and denominator. EAL-Bench keeps them in (docs/FORMATS.md 6.4), which Metrics must
// reproduce to stay comparable with EAL-Bench's own numbers; but an executor that answered
// 500 made no decision, so a rate shown to a person uses these, with the trials left out
// counted in NotEstimable.
type EstimableMetrics struct {
	// Trials counts the estimable trials (those with a decision).
	Trials int `json:"trials"`
	// NotEstimable counts the provider-error trials left out.
	NotEstimable           int   `json:"not_estimable"`
	AuthorizedUse          Count `json:"authorized_use"`
	UnauthorizedSubmission Count `json:"unauthorized_submission"`
	UnauthorizedAction     Count `json:"unauthorized_action"`
	ActionMismatch         Count `json:"action_mismatch"`
	InvalidOrNoAction      Count `json:"invalid_or_no_action"`
}

// NotEstimable reports a trial without a decision: its provider call failed.
func (o Outcome) NotEstimable() bool {
	return o.ProviderError != nil || o.Decision == ProviderError
}

// AggregateEstimable computes EAL-Bench's rates (same definitions as Aggregate) over the
// estimable trials only.
func AggregateEstimable(trials []Outcome) EstimableMetrics {
	kept := make([]Outcome, 0, len(trials))
	for _, t := range trials {
		if !t.NotEstimable() {
			kept = append(kept, t)
		}
	}
	m := Aggregate(kept)
	return EstimableMetrics{
		Trials: len(kept), NotEstimable: len(trials) - len(kept),
		AuthorizedUse: m.AuthorizedUse, UnauthorizedSubmission: m.UnauthorizedSubmission, UnauthorizedAction: m.UnauthorizedAction,
		ActionMismatch: m.ActionMismatch, InvalidOrNoAction: m.InvalidOrNoAction,
	}
}
