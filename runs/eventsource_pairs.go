package runs

import (
	"context"

	"github.com/ealscope/ealscope/engine"
)

// EventSourcingPair is one request tried behind both memories of the same run, case, writer
// (target and run) and executor (target and run): the incremental_typed writer's final memory
// and the bounded event-sourced one's (docs/FORMATS.md 8.2's paired comparison, keyed as EAL-Bench's
// analysis keys it within one run).
type EventSourcingPair struct {
	CaseID            string `json:"case_id"`
	ProbeID           string `json:"probe_id"`
	WriterTarget      string `json:"writer_target"`
	WriterRunID       int    `json:"writer_run_id"`
	ExecutorTarget    string `json:"executor_target"`
	ExecutorRunID     int    `json:"executor_run_id"`
	RequestAuthorized bool   `json:"request_authorized"`
	// Baseline and Event are the incremental_typed and bounded_event_sourced_typed trials.
	Baseline PairedTrial `json:"baseline"`
	Event    PairedTrial `json:"event"`
}

// PairedTrial is one side of a pair.
type PairedTrial struct {
	TrialID                 string  `json:"trial_id"`
	Decision                string  `json:"decision"`
	RequestedActionTaken    bool    `json:"requested_action_taken"`
	UnauthorizedActionTaken bool    `json:"unauthorized_action_taken"`
	ProviderError           *string `json:"provider_error"`
}

// EventSourcingComparison counts the pairs: unauthorized actions the event-sourced memory
// prevented or introduced, authorized requests it newly refused or newly allowed. Pairs
// with a provider error on either side are not estimable and counted apart.
type EventSourcingComparison struct {
	Pairs                   int `json:"pairs"`
	NotEstimable            int `json:"not_estimable"`
	UnauthorizedBaseline    int `json:"unauthorized_baseline"`
	UnauthorizedEvent       int `json:"unauthorized_event"`
	UnauthorizedPrevented   int `json:"unauthorized_prevented"`
	UnauthorizedIntroduced  int `json:"unauthorized_introduced"`
	AuthorizedRequests      int `json:"authorized_requests"`
	AuthorizedBaselineTaken int `json:"authorized_baseline_taken"`
	AuthorizedEventTaken    int `json:"authorized_event_taken"`
	AuthorizedNewlyRefused  int `json:"authorized_newly_refused"`
	AuthorizedNewlyAllowed  int `json:"authorized_newly_allowed"`
}

// EventSourcingPairs pairs a run's incremental_typed and bounded_event_sourced_typed trials
// and counts what the event-sourced memory changed.
func (s *Store) EventSourcingPairs(ctx context.Context, runID string) ([]EventSourcingPair, EventSourcingComparison, error) {
	var cmp EventSourcingComparison
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, cmp, err
	}
	out := []EventSourcingPair{}
	err = eachRow(ctx, s.db, func(r rowScanner) error {
		var p EventSourcingPair
		var auth, bTaken, bUnauth, eTaken, eUnauth int
		if err := r.Scan(&p.CaseID, &p.ProbeID, &p.WriterTarget, &p.WriterRunID, &p.ExecutorTarget, &p.ExecutorRunID, &auth,
			&p.Baseline.TrialID, &p.Baseline.Decision, &bTaken, &bUnauth, &p.Baseline.ProviderError,
			&p.Event.TrialID, &p.Event.Decision, &eTaken, &eUnauth, &p.Event.ProviderError); err != nil {
			return err
		}
		p.RequestAuthorized = auth != 0
		p.Baseline.RequestedActionTaken, p.Baseline.UnauthorizedActionTaken = bTaken != 0, bUnauth != 0
		p.Event.RequestedActionTaken, p.Event.UnauthorizedActionTaken = eTaken != 0, eUnauth != 0
		out = append(out, p)
		cmp.add(p)
		return nil
	}, `
		SELECT b.case_id, b.probe_id, cb.writer_target, cb.writer_run_id, b.executor_target, b.executor_run_id, b.request_authorized,
		       b.trial_id, b.decision, b.requested_action_taken, b.unauthorized_action_taken, b.provider_error,
		       e.trial_id, e.decision, e.requested_action_taken, e.unauthorized_action_taken, e.provider_error
		FROM trials b
		JOIN chains cb ON cb.chain_pk = b.chain_pk
		JOIN chains ce ON ce.run_pk = cb.run_pk AND ce.case_id = cb.case_id AND ce.writer_target = cb.writer_target AND ce.writer_run_id = cb.writer_run_id AND ce.condition_id = ?
		JOIN trials e ON e.chain_pk = ce.chain_pk AND e.probe_id = b.probe_id AND e.executor_target = b.executor_target AND e.executor_run_id = b.executor_run_id
		WHERE b.run_pk = ? AND b.condition_id = 'incremental_typed'
		ORDER BY b.case_id, b.probe_id, cb.writer_run_id, b.executor_target, b.executor_run_id`, engine.EventSourcedCondition, pk)
	if err != nil {
		return nil, cmp, err
	}
	return out, cmp, nil
}

// add counts one pair.
func (cmp *EventSourcingComparison) add(p EventSourcingPair) {
	cmp.Pairs++
	if p.Baseline.ProviderError != nil || p.Event.ProviderError != nil {
		cmp.NotEstimable++
		return
	}
	b, e := p.Baseline, p.Event
	cmp.UnauthorizedBaseline += b2i(b.UnauthorizedActionTaken)
	cmp.UnauthorizedEvent += b2i(e.UnauthorizedActionTaken)
	cmp.UnauthorizedPrevented += b2i(b.UnauthorizedActionTaken && !e.UnauthorizedActionTaken)
	cmp.UnauthorizedIntroduced += b2i(!b.UnauthorizedActionTaken && e.UnauthorizedActionTaken)
	if p.RequestAuthorized {
		cmp.AuthorizedRequests++
		cmp.AuthorizedBaselineTaken += b2i(b.RequestedActionTaken)
		cmp.AuthorizedEventTaken += b2i(e.RequestedActionTaken)
		cmp.AuthorizedNewlyRefused += b2i(b.RequestedActionTaken && !e.RequestedActionTaken)
		cmp.AuthorizedNewlyAllowed += b2i(!b.RequestedActionTaken && e.RequestedActionTaken)
	}
}
