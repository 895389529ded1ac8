package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/runs"
)

// TestAnnotateEnterConfirmsAndAcceptCounts: on an enumerated field, 1 then enter keeps the
// value picked (enter never cycles it) and moves on; an unscored memory says what makes a
// label count, and ctrl+a saves the label as accepted, which scores the memory.
func TestAnnotateEnterConfirmsAndAcceptCounts(t *testing.T) {
	s, runID := annotationStore(t)
	m, err := New(Options{Store: s, DBPath: "/tmp/ws.db", Dark: ptr(true), NoColor: true,
		Annotate: &AnnotateStart{Queue: runs.QueueUnannotated, Annotator: "tester", RunID: runID, Blind: true}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 140, 40)
	if !strings.Contains(frame(m, runID), "a label counts once accepted") {
		t.Errorf("an unscored memory does not say what makes a label count:\n%s", frame(m, runID))
	}
	fields := m.annotate.schema.fields
	status := -1
	for i, f := range fields {
		if f.key == m.annotate.schema.statusKey {
			status = i
		}
	}
	if status < 0 {
		t.Fatal("no status field")
	}
	m = press(t, m, "a")
	for range status {
		m = press(t, m, "tab")
	}
	m = press(t, m, "1", "enter")
	a := m.annotate
	if got := a.form.records[0]["status"]; got != fields[status].options[0] {
		t.Errorf("1 then enter left status %q, want %q", got, fields[status].options[0])
	}
	if a.field != status+1 {
		t.Errorf("enter did not move on from the confirmed field (field %d)", a.field)
	}
	memoryID := a.task.Item.MemoryID
	m = press(t, m, "x") // an empty state is a valid label: the text grants nothing
	next, cmd := m.Update(tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl})
	m = settle(t, next.(Model), cmd)
	labels, err := s.Annotations(context.Background(), memoryID)
	if err != nil || len(labels) != 1 || labels[0].Status != runs.AnnotationAccepted {
		t.Fatalf("ctrl+a saved %+v (%v), want one accepted label; screen:\n%s", labels, err, frame(m, runID))
	}
}
