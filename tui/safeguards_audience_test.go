package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// multipartyWorkspace is a scripted run of procurement's built-in multi-party corpus (one
// writer condition) imported into a fresh workspace.
func multipartyWorkspace(t *testing.T) (*runs.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	run := replay.ScriptedRun{Domain: "procurement", Corpus: replay.BuiltinMultipartyCorpus, Conditions: "one_shot_typed", Seed: 20260821, Version: "test",
		Concurrency: 2, Out: filepath.Join(dir, "run")}
	if _, err := run.Make(ctx); err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(filepath.Join(dir, "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	rep, err := store.Import(ctx, []string{run.Out}, runs.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return store, rep.Results[0].RunID
}

// TestSafeguardsAudienceViewFromWorkspace: on a multi-party run, `v` on the run's safeguards
// screen says the audience lab was never run; `r` runs it and stores it; a new program reads
// the stored rows back (no evaluation) and draws every arm and identity policy.
func TestSafeguardsAudienceViewFromWorkspace(t *testing.T) {
	store, runID := multipartyWorkspace(t)
	open := func() Model {
		m, err := New(Options{Store: store, Dark: ptr(true), NoColor: true, Start: Start{RunID: runID}})
		if err != nil {
			t.Fatal(err)
		}
		return pressKeys(t, drive(t, m, 160, 45), keyPress("S"), keyPress("v"))
	}
	m := open()
	if out := frame(m, runID); !strings.Contains(out, "has not been run on this run") {
		t.Fatalf("before any evaluation:\n%s", out)
	}
	m = pressKeys(t, m, keyPress("r"))
	if tb := m.safeguards.aud.table; tb == nil || len(tb.Rows) == 0 {
		t.Fatalf("after r: %+v", tb)
	}
	checkChainAudience(t, store, runID)
	m = open()
	out := frame(m, runID)
	wantAll(t, "stored audience view", out, "audience_bound · 12 chains", "unscoped", "session_silo", "audience_bound_input", "audience_bound_cited",
		"audience_bound_suppression", "fail open", "public-only", "quarantine", "stored 20", "95% CI")
	for i, l := range strings.Split(m.Render(), "\n") {
		if w := ansi.StringWidth(l); w > 160 {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
}

// TestSafeguardsAudienceViewNotApplicable: a run without an audience sidecar says so.
func TestSafeguardsAudienceViewNotApplicable(t *testing.T) {
	store, runID := labRunStore(t)
	m, err := New(Options{Store: store, Dark: ptr(true), NoColor: true, Start: Start{RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	m = pressKeys(t, drive(t, m, 80, 24), keyPress("S"), keyPress("v"))
	if out := frame(m, runID); !strings.Contains(out, "audience_bound: not applicable") {
		t.Fatalf("a run without a sidecar:\n%s", out)
	}
}

// checkChainAudience: once the audience lab is stored, every chain's pane lists audience_bound
// with each request's viewers from the sidecar and every record's audience and reason, and
// the records excluded for a viewer outside their audience carry the turns behind them.
func checkChainAudience(t *testing.T, store *runs.Store, runID string) {
	t.Helper()
	ctx := context.Background()
	lab := newWorkspaceLab(store, &replay.Config{})
	rows, err := store.SafeguardChains(ctx, runID)
	if err != nil || len(rows) == 0 {
		t.Fatalf("chains: %d, %v", len(rows), err)
	}
	excluded := 0
	for _, r := range rows {
		d, ok, err := lab.StoredChain(ctx, ChainKey{ID: r.Key, RunID: runID, CaseID: r.CaseID, ConditionID: r.ConditionID})
		if err != nil || !ok {
			t.Fatalf("chain %s: ok=%v, %v", r.CaseID, ok, err)
		}
		p := d.Policies[len(d.Policies)-1]
		if p.ID != "audience_bound" || p.Audience == nil || len(p.Audience.Contexts) == 0 {
			t.Fatalf("chain %s: the pane's last policy is %s with %+v", r.CaseID, p.ID, p.Audience)
		}
		for _, c := range p.Audience.Contexts {
			if c.Arm != replay.ArmAudienceInput {
				continue
			}
			if len(c.Viewers) == 0 && c.Unresolved == "" || c.Principal == "" || c.Channel == "" {
				t.Fatalf("chain %s request %s: no viewer set (%+v)", r.CaseID, c.RequestID, c)
			}
			for _, rec := range c.Records {
				if rec.Reason == "" || rec.Audiences == "" {
					t.Fatalf("chain %s request %s record %s: reason %q audience %q", r.CaseID, c.RequestID, rec.AuthorizationID, rec.Reason, rec.Audiences)
				}
				if !rec.Kept && strings.HasPrefix(rec.Reason, "viewer_outside_audience") {
					excluded++
					if len(rec.Sources) == 0 || rec.Sources[0].Speaker == "" || len(rec.SourceChannels) != len(rec.Sources) || rec.SourceChannels[0] == "" {
						t.Errorf("chain %s record %s excluded without the turns behind it: %+v", r.CaseID, rec.AuthorizationID, rec.Sources)
					}
				}
			}
		}
	}
	if excluded == 0 {
		t.Error("no record was excluded for a viewer outside its audience: the pane shows nothing")
	}
}
