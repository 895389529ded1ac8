package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// annotationStore is a private workspace holding the fixture run: labelling changes scores,
// so it must not touch the shared fixture store other tests read.
func annotationStore(t *testing.T) (*runs.Store, string) {
	t.Helper()
	testStore(t) // builds the fixture run directory once
	s, res, err := importRun(context.Background(), filepath.Join(t.TempDir(), "annotate.db"), []string{filepath.Join(fixture.dir, "run")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, res[0].RunID
}

func keyText(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: rune(s[0]), Text: s} }

// TestFlowAnnotateOneMemory labels one free-text memory with keys only, in blind mode (no
// pre-fill): add a record, type its id, pick effect, action and status with number keys,
// type the vendor and the cited source, undo and redo the last field, then ctrl+s saves and
// advances. The label is in the workspace, submitted, bound to the memory's hash.
func TestFlowAnnotateOneMemory(t *testing.T) {
	s, runID := annotationStore(t)
	queue, err := s.AnnotationQueue(context.Background(), runs.QueueUnannotated, "tester", runID)
	if err != nil || len(queue) < 2 {
		t.Fatalf("queue %d %v", len(queue), err)
	}
	first := queue[0]
	tm := startProgram(t, Options{Store: s, Annotate: &AnnotateStart{Queue: runs.QueueUnannotated, Annotator: "tester", RunID: runID, Blind: true}})
	total := len(queue)
	// One wait for both: the frame that holds them is read once.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(string(b), "no records") && strings.Contains(string(b), "1 / "+itoa(total))
	}, teatest.WithDuration(teaWait), teatest.WithCheckInterval(10*time.Millisecond))
	tm.Send(keyText("a"))
	waitOutput(t, tm, "record 1/1")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Type("auth_flow")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "saved draft")
	for _, step := range []struct {
		tabs int
		key  string
	}{{3, "1"}, {1, "1"}, {1, "1"}} { // effect, action, status
		for i := 0; i < step.tabs; i++ {
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
		}
		tm.Send(keyText(step.key))
	}
	tm.Send(keyText("j")) // vendor
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Type("Acme Supplies")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	for i := 0; i < 7; i++ { // categories .. source turns
		tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Type("src_wrong")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	// The renderer redraws only changed cells, so each wait names text new on screen.
	waitOutput(t, tm, "wrong")
	tm.Send(keyText("u"))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Type("src_flow_1")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitOutput(t, tm, "flow_1")
	tm.Send(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	waitOutput(t, tm, "submitted")
	tm.Send(keyText("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(teaWait)).(Model)
	if fm.top() != screenAnnotate || fm.annotate.submitted != 1 || fm.annotate.pos != 1 {
		t.Fatalf("ended on screen %v, submitted %d, at %d", fm.top(), fm.annotate.submitted, fm.annotate.pos)
	}
	if view := frame(fm, runID); !strings.Contains(view, "2 / "+itoa(total)) || !strings.Contains(view, "BLIND") {
		t.Fatalf("final frame:\n%s", view)
	}
	labels, err := s.Annotations(context.Background(), first.MemoryID)
	if err != nil || len(labels) != 1 {
		t.Fatalf("labels %+v %v", labels, err)
	}
	l := labels[0]
	auths, _ := l.State["authorizations"].([]any)
	if l.Annotator != "tester" || l.Status != annotations.AnnotationSubmitted || l.SourceContentHash != first.ContentHash || l.Stale || len(auths) != 1 {
		t.Fatalf("label %+v", l)
	}
	rec := auths[0].(map[string]any)
	scope := rec["scope"].(map[string]any)
	if rec["authorization_id"] != "auth_flow" || rec["effect"] != "permit_exception" || rec["action"] != "submit_order" || rec["status"] != "active" ||
		scope["vendor"] != "Acme Supplies" || len(rec["source_turn_ids"].([]any)) != 1 || rec["source_turn_ids"].([]any)[0] != "src_flow_1" {
		t.Fatalf("record %v", rec)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	return pyjson.MustCanonicalJSON(v)
}

// TestAnnotationFormRoundTrip: a state read into the form and written back is the same state
// (ids, enums, lists, amounts, nulls), and a bad amount is reported with its field.
func TestAnnotationFormRoundTrip(t *testing.T) {
	st := map[string]any{"schema_version": "3", "authorizations": []any{map[string]any{
		"authorization_id": "auth_a", "issuer": "cfo", "grantee": nil, "effect": "permit_exception", "action": nil, "status": "revoked",
		"valid_from": "2026-01-01T00:00:00Z", "valid_until": nil, "supersedes": nil, "source_turn_ids": []any{"src_1", "src_2"},
		"scope": map[string]any{"vendor": "V", "allowed_categories": []any{"a", "b"}, "max_amount": int64(2500), "currency": nil},
	}}}
	fs := newFormSchema(procurement.Domain{})
	f := fs.fromState(st)
	got, err := fs.state(f)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := engine.ParseAnnotationState(procurement.Domain{}, st)
	_, norm, _ := engine.ParseAnnotationState(procurement.Domain{}, got)
	if a, b := mustJSON(t, want), mustJSON(t, norm); a != b {
		t.Fatalf("round trip:\n%s\n%s", a, b)
	}
	f.records[0]["scope.max_amount"] = "lots"
	if _, err := fs.state(f); err == nil || !strings.Contains(err.Error(), "maximum amount") {
		t.Fatalf("bad amount: %v", err)
	}
	if ids := citedIDs("per src_a1 and src_b_2, again src_a1; not xsrc_c"); strings.Join(ids, ",") != "src_a1,src_b_2" {
		t.Fatalf("cited %v", ids)
	}
}

// TestAdjudicateDisagreement: two annotators read a memory differently; on the disagreements
// queue the adjudicator sees both readings side by side (differing rows marked !), takes
// alice's with t and saves with ctrl+s: it becomes the one accepted annotation and the
// memory leaves the queue.
func TestAdjudicateDisagreement(t *testing.T) {
	ctx := context.Background()
	s, runID := annotationStore(t)
	queue, err := s.AnnotationQueue(ctx, runs.QueueAll, "", runID)
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.AnnotationTaskOf(ctx, queue[0].MemoryID)
	if err != nil || task.Prefill == nil {
		t.Fatalf("task %+v %v", task, err)
	}
	for ann, st := range map[string]map[string]any{"alice": task.Prefill, "bob": {"schema_version": "3", "authorizations": []any{}}} {
		if _, err := s.SaveAnnotation(ctx, runs.AnnotationInput{MemoryID: task.Item.MemoryID, Annotator: ann, State: st, Status: annotations.AnnotationSubmitted}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Annotate: &AnnotateStart{Queue: runs.QueueDisagreements, Annotator: "dana", RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 140, 48)
	view := frame(m, runID)
	if !strings.Contains(view, "adjudicate · disagreements · 1 / 1") || !strings.Contains(view, "readings side by side") || !strings.Contains(view, "! status") {
		t.Fatalf("adjudication frame:\n%s", view)
	}
	next, cmd := m.Update(keyText("t"))
	m = settle(t, next.(Model), cmd)
	next, cmd = m.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	m = settle(t, next.(Model), cmd)
	labels, err := s.Annotations(ctx, task.Item.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string]string{}
	for _, l := range labels {
		accepted[l.Annotator] = l.Status
		if l.Annotator == "dana" && pyjson.MustCanonicalJSON(l.State) != pyjson.MustCanonicalJSON(task.Prefill) {
			t.Fatalf("dana's adjudication is not alice's reading: %v", l.State)
		}
	}
	if accepted["dana"] != annotations.AnnotationAccepted || accepted["alice"] != annotations.AnnotationSubmitted || accepted["bob"] != annotations.AnnotationSubmitted {
		t.Fatalf("statuses %v", accepted)
	}
	if left, _ := s.AnnotationQueue(ctx, runs.QueueDisagreements, "", runID); len(left) != 0 {
		t.Fatalf("still in the disagreements queue: %+v", left)
	}
}
