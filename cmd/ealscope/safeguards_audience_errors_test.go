package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAudienceLabProviderErrorsMeasureNothing: with a model executor whose loopback endpoint
// answers 500 or an unreadable body for some calls, the contexts behind those calls are
// counted as not estimable and nowhere else: never exposed, kept, substituted or failed
// closed. What the policy assembles does not depend on the executor, so each row's estimable
// and not-estimable contexts add up to the built-in executor's contexts, and its measures
// can only be smaller.
func TestAudienceLabProviderErrorsMeasureNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the audience lab twice over a multi-party run")
	}
	srv := newChatServer(t)
	srv.set("act-500-or-garbage")
	tmp := t.TempDir()
	cfg := fakeModelConfig(t, srv, tmp, 4)
	out, db := filepath.Join(tmp, "run"), filepath.Join(tmp, "ws.db")
	runOK(t, "run", "--domain", "procurement", "--builtin", "--multiparty", "--conditions", "one_shot_typed", "--out", out)
	id := importRun(t, db, out)

	type row struct {
		audienceRowT
		FailedClosed int  `json:"contexts_failed_closed"`
		NotEstimable int  `json:"contexts_not_estimable"`
		Estimable    bool `json:"measures_estimable"`
	}
	var builtin, model struct {
		Source   string `json:"source"`
		Table    []row  `json:"table"`
		Identity []struct {
			Arm          string `json:"arm"`
			NotEstimable int    `json:"contexts_not_estimable"`
		} `json:"identity_policies"`
	}
	runJSON(t, &builtin, "safeguards", "--db", db, "--run", id, "--policy", "audience_bound", "--json")
	raw := runJSON(t, &model, "safeguards", "--db", db, "--run", id, "--policy", "audience_bound", "--json", "--config", cfg, "--executor", "fake", "--max-attempts", "1")
	assertJSONKeys(t, "audience table", raw, "contexts_not_estimable", "measures_estimable", "not_estimable")
	if builtin.Source != "computed" || model.Source != "computed" {
		t.Fatalf("sources %q and %q: another executor is another result", builtin.Source, model.Source)
	}
	want := map[string]row{}
	for _, r := range builtin.Table {
		want[r.Arm+"/"+r.Condition] = r
		if r.NotEstimable != 0 {
			t.Errorf("built-in executor: %s/%s has %d contexts not estimable", r.Arm, r.Condition, r.NotEstimable)
		}
	}
	notEstimable := 0
	for _, r := range model.Table {
		b, ok := want[r.Arm+"/"+r.Condition]
		if !ok {
			t.Fatalf("no built-in row for %s/%s", r.Arm, r.Condition)
		}
		notEstimable += r.NotEstimable
		if r.Exposure.Contexts+r.NotEstimable != b.Exposure.Contexts {
			t.Errorf("%s/%s: %d estimable + %d not estimable contexts, the policy assembled %d", r.Arm, r.Condition, r.Exposure.Contexts, r.NotEstimable, b.Exposure.Contexts)
		}
		if r.NotEstimable > 0 && r.Exposure.ForbiddenPresent+r.EntitledRecall.Present >= b.Exposure.ForbiddenPresent+b.EntitledRecall.Present && b.Exposure.ForbiddenPresent+b.EntitledRecall.Present > 0 {
			t.Errorf("%s/%s: %d contexts not estimable, yet as many items measured as with every context (%d forbidden, %d entitled present)",
				r.Arm, r.Condition, r.NotEstimable, r.Exposure.ForbiddenPresent, r.EntitledRecall.Present)
		}
		if r.Exposure.ContextsExposed > b.Exposure.ContextsExposed || r.Exposure.ForbiddenAdmitted > b.Exposure.ForbiddenAdmitted ||
			r.EntitledRecall.Kept > b.EntitledRecall.Kept || r.FailedClosed > b.FailedClosed {
			t.Errorf("%s/%s: a failed call was counted: %+v against %+v", r.Arm, r.Condition, r, b)
		}
		if r.Estimable != (r.Exposure.Contexts > 0) {
			t.Errorf("%s/%s: measures_estimable %v with %d estimable contexts", r.Arm, r.Condition, r.Estimable, r.Exposure.Contexts)
		}
		if r.Arm == "audience_bound_input" && r.Exposure.ForbiddenAdmitted != 0 {
			t.Errorf("%s: audience_bound_input admitted %d forbidden items", r.Condition, r.Exposure.ForbiddenAdmitted)
		}
	}
	if notEstimable == 0 {
		t.Fatal("no context was left out: the endpoint's failures reached no count")
	}
	// The text says so: the stored result is read back, with the not-estimable column.
	text := runOK(t, "safeguards", "--db", db, "--run", id, "--policy", "audience_bound", "--config", cfg, "--executor", "fake", "--max-attempts", "1")
	for _, wantText := range []string{"stored result", "NOT EST.", "contexts whose executor call failed"} {
		if !strings.Contains(text, wantText) {
			t.Errorf("the text lacks %q:\n%s", wantText, text)
		}
	}
}
