package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/engine"
)

// Artifacts of the bounded event-sourcing condition (docs/FORMATS.md 8.2). The importer keeps them
// verbatim (extra_rows); their reduced states are ordinary memories of their chains.
const (
	eventLogArtifact              = "event_log"
	representationMetricsArtifact = "representation_metrics"
)

// LoggedEvent is one accepted lifecycle event of an event-sourced chain, with the id the
// system assigned it.
type LoggedEvent struct {
	EventID               string         `json:"event_id"`
	EventType             string         `json:"event_type"`
	EventIndex            int            `json:"event_index"`
	TargetAuthorizationID *string        `json:"target_authorization_id"`
	SourceTurnIDs         []string       `json:"source_turn_ids"`
	Record                map[string]any `json:"record"`
	Changes               map[string]any `json:"changes"`
	BlockIndex            int            `json:"block_index"`
	LogicalUpdateID       string         `json:"logical_update_id"`
	SourceAttemptID       string         `json:"source_attempt_id"`
	ChainID               string         `json:"chain_id"`
	CaseID                string         `json:"case_id"`
	ConditionID           string         `json:"condition_id"`
	WriterRunID           int            `json:"writer_run_id"`
}

// EventLog is the event log of a run's event-sourced chains for one case (every case when
// caseID is ""), in chain, block and event order.
func (s *Store) EventLog(ctx context.Context, runID, caseID string) ([]LoggedEvent, error) {
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := []LoggedEvent{}
	err = extraRows(ctx, s.db, pk, eventLogArtifact, func(e LoggedEvent) error {
		if e.ConditionID == "" {
			// EAL-Bench's own event logs name no condition: a run holds only this one.
			e.ConditionID = engine.EventSourcedCondition
		}
		if caseID == "" || e.CaseID == caseID {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ChainID != b.ChainID {
			return a.ChainID < b.ChainID
		}
		if a.BlockIndex != b.BlockIndex {
			return a.BlockIndex < b.BlockIndex
		}
		return a.EventIndex < b.EventIndex
	})
	return out, nil
}

// RepresentationRow is one representation_metrics row: a state_transition per block
// (semantic and authority-gaining errors, their introduction, persistence and self-repair,
// failed updates) or a request_formation per probe at the final block.
type RepresentationRow struct {
	RowType     string `json:"row_type"`
	CaseID      string `json:"case_id"`
	ConditionID string `json:"condition_id"`
	ChainID     string `json:"chain_id"`
	WriterRunID int    `json:"writer_run_id"`
	BlockIndex  int    `json:"block_index"`
	// state_transition
	SemanticError         bool `json:"semantic_error"`
	AuthorityGainingError bool `json:"authority_gaining_error"`
	FieldErrorCount       int  `json:"field_error_count"`
	ErrorIntroduction     bool `json:"error_introduction"`
	ErrorPersistence      bool `json:"error_persistence"`
	SelfRepair            bool `json:"self_repair"`
	FailedUpdate          bool `json:"failed_update"`
	// request_formation
	ProbeID                  string `json:"probe_id"`
	PairID                   string `json:"pair_id"`
	Dimension                string `json:"dimension"`
	CanonicalAuthorized      bool   `json:"canonical_authorized"`
	MemoryAuthorized         bool   `json:"memory_authorized"`
	FalseAuthority           bool   `json:"false_authority"`
	ValidAuthorityPreserved  bool   `json:"valid_authority_preserved"`
	RepresentationUndergrant bool   `json:"representation_undergrant"`
}

// RepresentationSummary counts a run's representation metrics.
type RepresentationSummary struct {
	Blocks                 int `json:"blocks"`
	SemanticErrors         int `json:"semantic_errors"`
	AuthorityGainingErrors int `json:"authority_gaining_errors"`
	ErrorIntroductions     int `json:"error_introductions"`
	SelfRepairs            int `json:"self_repairs"`
	FailedUpdates          int `json:"failed_updates"`
	Requests               int `json:"requests"`
	// CanonicallyAuthorized is the denominator of preserved and undergranted requests,
	// CanonicallyDenied that of false authority.
	CanonicallyAuthorized     int `json:"canonically_authorized"`
	CanonicallyDenied         int `json:"canonically_denied"`
	FalseAuthority            int `json:"false_authority"`
	ValidAuthorityPreserved   int `json:"valid_authority_preserved"`
	RepresentationUndergrants int `json:"representation_undergrants"`
}

// RepresentationMetrics are a run's representation_metrics rows and their counts.
func (s *Store) RepresentationMetrics(ctx context.Context, runID string) ([]RepresentationRow, RepresentationSummary, error) {
	var sum RepresentationSummary
	pk, err := s.runPK(ctx, runID)
	if err != nil {
		return nil, sum, err
	}
	out := []RepresentationRow{}
	err = extraRows(ctx, s.db, pk, representationMetricsArtifact, func(r RepresentationRow) error {
		if r.ConditionID == "" {
			r.ConditionID = engine.EventSourcedCondition
		}
		switch r.RowType {
		case "state_transition":
			sum.Blocks++
			sum.SemanticErrors += b2i(r.SemanticError)
			sum.AuthorityGainingErrors += b2i(r.AuthorityGainingError)
			sum.ErrorIntroductions += b2i(r.ErrorIntroduction)
			sum.SelfRepairs += b2i(r.SelfRepair)
			sum.FailedUpdates += b2i(r.FailedUpdate)
		case "request_formation":
			sum.Requests++
			if r.CanonicalAuthorized {
				sum.CanonicallyAuthorized++
			} else {
				sum.CanonicallyDenied++
			}
			sum.FalseAuthority += b2i(r.FalseAuthority)
			sum.ValidAuthorityPreserved += b2i(r.ValidAuthorityPreserved)
			sum.RepresentationUndergrants += b2i(r.RepresentationUndergrant)
		default:
			return fmt.Errorf("unknown row_type %q", r.RowType)
		}
		out = append(out, r)
		return nil
	})
	return out, sum, err
}

// extraRows decodes the stored rows of one of a run's extra artifacts, in file order, and
// calls each with every row; an error names the artifact's file and line.
func extraRows[T any](ctx context.Context, q querier, runPK int64, artifact string, each func(T) error) error {
	rr := newRowReader(q)
	return eachRow(ctx, q, func(r rowScanner) error {
		var line int
		var cols rawCols
		if err := r.Scan(append([]any{&line}, cols.dest()...)...); err != nil {
			return err
		}
		raw, err := rr.bytes(ctx, &cols, artifact+".jsonl line "+itoa(line))
		if err != nil {
			return err
		}
		var v T
		err = json.Unmarshal(raw, &v)
		if err == nil {
			err = each(v)
		}
		if err != nil {
			return fmt.Errorf("%s.jsonl line %d: %w", artifact, line, err)
		}
		return nil
	}, `SELECT line, `+rawSelect("extra_rows")+` FROM extra_rows WHERE run_pk = ? AND artifact = ? ORDER BY line`, runPK, artifact)
}
