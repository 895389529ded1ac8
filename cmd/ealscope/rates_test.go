package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
)

// failsByContent picks about half of the executor calls, by their request text, so which
// calls fail does not depend on the order the workers make them in.
func failsByContent(content string) bool {
	return sha256.Sum256([]byte(content))[0]%2 == 1
}

// garbageByContent picks, among the calls failsByContent fails, those answered with an
// unreadable body rather than a 500.
func garbageByContent(content string) bool {
	return sha256.Sum256([]byte(content))[1]%2 == 1
}

// TestRatesLeaveProviderErrorsOut: an executor endpoint answering 500 on some calls makes
// those trials provider errors. `run`, `summary` and `summary --json` then give EAL-Bench's
// metrics unchanged (provider errors in the denominators) and beside them the estimable
// rates, which leave those trials out and say how many were left out.
func TestRatesLeaveProviderErrorsOut(t *testing.T) {
	dir, out, text := runBuiltinWithFakeModel(t, "act-or-500", "--conditions", "faithful_typed,incremental_typed", "--executor", "fake")
	// The expected figures, from the trials as written.
	r, err := rundir.Open(out, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all, decided []engine.Outcome
	for _, row := range r.Files[rundir.Trials] {
		o := engine.Outcome{Decision: row.Str("decision"), RequestAuthorized: row.Bool("request_authorized"), RequestedActionTaken: row.Bool("requested_action_taken"),
			UnauthorizedActionTaken: row.Bool("unauthorized_action_taken"), ActionMismatch: row.Bool("action_mismatch"), ProviderError: row.OptStr("provider_error")}
		all = append(all, o)
		if o.ProviderError == nil {
			decided = append(decided, o)
		}
	}
	failed := len(all) - len(decided)
	if failed == 0 || len(decided) == 0 {
		t.Fatalf("the endpoint should fail some calls and answer others: %d of %d failed", failed, len(all))
	}
	var denied, deniedActed, authz, authzActed int
	for _, o := range decided {
		if o.RequestAuthorized {
			authz++
			if o.RequestedActionTaken {
				authzActed++
			}
		} else {
			denied++
			if o.RequestedActionTaken {
				deniedActed++
			}
		}
	}
	for _, want := range []string{
		fmt.Sprintf("unauthorized actions: %d of %d estimable trials", deniedActed, len(decided)),
		fmt.Sprintf("%d not estimable (provider error", failed),
		fmt.Sprintf("unauthorized submission: %d of %d estimable denied requests", deniedActed, denied),
		fmt.Sprintf("authorized use: %d of %d estimable authorized requests", authzActed, authz),
		"EAL-Bench's rates (provider errors in the denominators)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("run output lacks %q:\n%s", want, text)
		}
	}

	db := filepath.Join(dir, "ws.db")
	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.Import(context.Background(), []string{out}, runs.ImportOptions{})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Metrics   engine.Metrics          `json:"metrics"`
			Estimable engine.EstimableMetrics `json:"estimable"`
		} `json:"runs"`
	}
	runJSON(t, &doc, "summary", "--db", db, "--json")
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs in the summary", len(doc.Runs))
	}
	m, e := doc.Runs[0].Metrics, doc.Runs[0].Estimable
	same := func(a, b engine.Count) bool { return a.Numerator == b.Numerator && a.Denominator == b.Denominator }
	if want := engine.Aggregate(all); !same(m.UnauthorizedSubmission, want.UnauthorizedSubmission) || !same(m.AuthorizedUse, want.AuthorizedUse) || m.ProviderError.Numerator != failed {
		t.Errorf("EAL-Bench metrics changed: %+v, want %+v", m, want)
	}
	if e.NotEstimable != failed || e.Trials != len(decided) || e.UnauthorizedSubmission.Numerator != deniedActed || e.UnauthorizedSubmission.Denominator != denied ||
		e.AuthorizedUse.Numerator != authzActed || e.AuthorizedUse.Denominator != authz {
		t.Errorf("estimable %+v; want %d not estimable, unauthorized submission %d/%d, authorized use %d/%d", e, failed, deniedActed, denied, authzActed, authz)
	}
	text = strings.Join(strings.Fields(runOK(t, "summary", "--db", db)), " ") // lines wrap at the terminal's width
	for _, want := range []string{"not estimable", fmt.Sprintf("%d (provider error", failed), countText(e.UnauthorizedSubmission), "EAL-Bench's, which keep them in the denominators"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	// The runs screen's count.
	store, err = runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rs, err := store.Run(context.Background(), rep.Results[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rs.TrialsNotEstimable != failed {
		t.Errorf("runs screen: %d trials not estimable, want %d", rs.TrialsNotEstimable, failed)
	}
}
