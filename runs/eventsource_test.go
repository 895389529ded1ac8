package runs

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
)

// TestImportEventSourcedRun imports a built-in cybersecurity run holding incremental_typed
// and bounded_event_sourced_typed chains: both conditions become chains with trials, and the
// event log and representation metrics read back from the store as the run wrote them.
func TestImportEventSourcedRun(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "run")
	st := replay.Settings{Domain: "cybersecurity", Corpus: replay.BuiltinCorpus, Conditions: []string{"incremental_typed", engine.EventSourcedCondition},
		Writer: "scripted", Executor: "builtin", WriterRuns: 1, ExecutorRuns: 1, Seed: 20260821, FaultRate: 0.35}
	opts, err := replay.Prepare(st, &replay.Config{Models: map[string]replay.Model{}}, replay.DefaultRetryPolicy(), "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Out, opts.Concurrency = dir, 2
	if _, err := replay.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(t)
	r := importOne(t, s, dir)
	if r.Status != StatusImported || r.RescoreDisagreements != 0 || len(r.Unknown) != 0 {
		t.Fatalf("%+v", r)
	}
	for _, cond := range []string{"incremental_typed", engine.EventSourcedCondition} {
		n, err := s.ChainCount(ctx, ChainFilter{RunID: r.RunID, Condition: cond})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(opts.Cases) {
			t.Errorf("%s: %d chains for %d cases", cond, n, len(opts.Cases))
		}
	}
	fileRows := func(name string) []map[string]any {
		f, err := os.Open(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []map[string]any
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	events, err := s.EventLog(ctx, r.RunID, "")
	if err != nil {
		t.Fatal(err)
	}
	logRows := fileRows(replay.EventLog)
	if len(events) != len(logRows) || len(events) == 0 {
		t.Fatalf("%d events stored, %d in the log", len(events), len(logRows))
	}
	ids := map[string]bool{}
	for _, e := range events {
		if ids[e.EventID] || e.ConditionID != engine.EventSourcedCondition || len(e.SourceTurnIDs) == 0 {
			t.Fatalf("event %+v", e)
		}
		ids[e.EventID] = true
	}
	oneCase, err := s.EventLog(ctx, r.RunID, opts.Cases[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(oneCase) == 0 || len(oneCase) >= len(events) {
		t.Errorf("%d events for case %s of %d", len(oneCase), opts.Cases[0].ID, len(events))
	}
	rows, sum, err := s.RepresentationMetrics(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	metrics := fileRows(replay.RepresentationMetrics)
	falseAuthority := 0
	for _, m := range metrics {
		if m["false_authority"] == true {
			falseAuthority++
		}
	}
	probes, blocks := 0, 0
	for _, c := range opts.Cases {
		probes += len(c.Probes)
		blocks += len(c.Blocks)
	}
	if len(rows) != len(metrics) || sum.Requests != probes || sum.Blocks != blocks || sum.FalseAuthority != falseAuthority ||
		sum.CanonicallyAuthorized+sum.CanonicallyDenied != probes || sum.ValidAuthorityPreserved+sum.RepresentationUndergrants != sum.CanonicallyAuthorized {
		t.Errorf("summary %+v from %d rows (%d probes, %d blocks, %d false authority)", sum, len(rows), probes, blocks, falseAuthority)
	}
	// The store's own formation at the final block (derived at import, engine.Form) names the
	// same probes as the run's request_formation rows.
	want := map[string]map[string]bool{}
	for _, row := range rows {
		if row.RowType == "request_formation" && row.FalseAuthority {
			if want[row.CaseID] == nil {
				want[row.CaseID] = map[string]bool{}
			}
			want[row.CaseID][row.ProbeID] = true
		}
	}
	q, err := s.db.QueryContext(ctx, `SELECT c.case_id, cb.formed_probe_ids_json FROM chains c JOIN chain_blocks cb ON cb.chain_pk = c.chain_pk
		WHERE c.condition_id = ? AND cb.block_index = (SELECT MAX(block_index) FROM chain_blocks WHERE chain_pk = c.chain_pk)`, engine.EventSourcedCondition)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for q.Next() {
		var caseID, formed string
		if err := q.Scan(&caseID, &formed); err != nil {
			t.Fatal(err)
		}
		var ids []string
		if err := json.Unmarshal([]byte(formed), &ids); err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(want[caseID]) {
			t.Errorf("case %s: the store forms %v at the final block, the run's metrics %v", caseID, ids, want[caseID])
		}
		for _, id := range ids {
			if !want[caseID][id] {
				t.Errorf("case %s: probe %s forms in the store, not in the run's metrics", caseID, id)
			}
		}
		checked++
	}
	q.Close()
	if checked != len(opts.Cases) {
		t.Errorf("%d event chains checked", checked)
	}
	if sum.FalseAuthority == 0 || sum.FailedUpdates == 0 {
		t.Errorf("the faulted run shows no false authority or no failed update: %+v", sum)
	}

	// Paired comparison: every probe of every case is tried behind both memories; the
	// counts follow from the pairs and the stored trials.
	pairs, cmp, err := s.EventSourcingPairs(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != probes || cmp.Pairs != probes || cmp.NotEstimable != 0 {
		t.Fatalf("%d pairs for %d probes: %+v", len(pairs), probes, cmp)
	}
	var unauthBase, unauthEvent int
	if err := s.db.QueryRowContext(ctx, `SELECT SUM(CASE WHEN condition_id = 'incremental_typed' THEN unauthorized_action_taken ELSE 0 END),
		SUM(CASE WHEN condition_id = ? THEN unauthorized_action_taken ELSE 0 END) FROM trials`, engine.EventSourcedCondition).Scan(&unauthBase, &unauthEvent); err != nil {
		t.Fatal(err)
	}
	if cmp.UnauthorizedBaseline != unauthBase || cmp.UnauthorizedEvent != unauthEvent ||
		cmp.UnauthorizedBaseline-cmp.UnauthorizedPrevented+cmp.UnauthorizedIntroduced != cmp.UnauthorizedEvent ||
		cmp.AuthorizedBaselineTaken-cmp.AuthorizedNewlyRefused+cmp.AuthorizedNewlyAllowed != cmp.AuthorizedEventTaken {
		t.Errorf("comparison %+v, trials unauthorized %d / %d", cmp, unauthBase, unauthEvent)
	}
	// The built-in executor acts exactly when the memory authorizes: the event side's
	// unauthorized actions are the run's false-authority requests.
	if cmp.UnauthorizedEvent != sum.FalseAuthority {
		t.Errorf("%d unauthorized actions behind event-sourced memory, %d false-authority requests", cmp.UnauthorizedEvent, sum.FalseAuthority)
	}
	t.Logf("paired comparison: %+v", cmp)
	if cmp.UnauthorizedPrevented == 0 || cmp.AuthorizedNewlyRefused == 0 {
		t.Errorf("the built-in run shows no laundering prevented or no legitimate request refused: %+v", cmp)
	}
}
