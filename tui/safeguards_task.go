package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// A lab evaluation is long work (every policy × every memory version × every probe, behind a
// model executor minutes): it runs in a command, streams its progress one message at a time
// (CONVENTIONS §10) and stops through the context.CancelFunc its owner holds, keeping what
// the lab had already stored.

// labProgress is one progress report: done of total in a phase.
type labProgress struct {
	phase       string
	done, total int
}

// progressText is a report as the status line reads it ("chains 12/60", "starting…").
func progressText(phase string, done, total int) string {
	if phase == "" {
		return "starting…"
	}
	return fmt.Sprintf("%s %d/%d", phase, done, total)
}

// labProgressMsg carries one report to the task's owner; Update re-arms the wait.
type labProgressMsg struct {
	owner  string
	seq    int
	p      labProgress
	events <-chan labProgress
}

// labDoneMsg ends a task: its result (a SafeguardChain or a SafeguardTable), or the error,
// or cancelled when the user stopped it.
type labDoneMsg struct {
	owner     string
	seq       int
	result    any
	err       error
	cancelled bool
}

// labWork is the evaluation itself: it reports progress and honours ctx.
type labWork func(ctx context.Context, progress LabProgress) (any, error)

// startLabTask runs work in a command. The owner (a chain or run id) and seq address the
// messages, so a result of a closed pane or a superseded run is dropped.
func startLabTask(ctx context.Context, owner string, seq int, work labWork) tea.Cmd {
	events := make(chan labProgress, 1)
	run := func() tea.Msg {
		defer close(events)
		res, err := work(ctx, func(phase string, done, total int) {
			select {
			case events <- labProgress{phase, done, total}:
			default: // progress is best effort; the work goes on
			}
		})
		msg := labDoneMsg{owner: owner, seq: seq, result: res, err: err}
		if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
			msg.err, msg.cancelled = nil, true
		}
		return msg
	}
	started := func() tea.Msg { return taskStartedMsg{seq, labTaskLabel(owner)} }
	return tea.Batch(started, run, waitLabProgress(owner, seq, events))
}

// labTaskLabel names a lab task in the root's task list (the footer spinner); the owner
// keeps the pane's and the run screen's sequence numbers apart.
func labTaskLabel(owner string) string { return "safeguards " + owner }

func waitLabProgress(owner string, seq int, events <-chan labProgress) tea.Cmd {
	return func() tea.Msg {
		p, ok := <-events
		if !ok {
			return nil
		}
		return labProgressMsg{owner: owner, seq: seq, p: p, events: events}
	}
}
