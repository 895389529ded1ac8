package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// labTask is the state the lab's chain pane and run screen keep of their one evaluation at a
// time: its sequence number (a stale task's messages are dropped), whether it runs and how to
// cancel it, its last progress, and the error or note the status line shows.
type labTask struct {
	seq         int
	running     bool
	cancel      context.CancelFunc
	done, total int
	phase       string
	err         error
	note        string
}

// start begins a new evaluation for owner: what the previous one left is cleared.
func (t *labTask) start(parent context.Context, owner string, run func(ctx context.Context, progress LabProgress) (any, error)) tea.Cmd {
	t.seq++
	ctx, cancel := context.WithCancel(parent)
	t.running, t.cancel, t.done, t.total, t.err, t.note = true, cancel, 0, 0, nil, ""
	return startLabTask(ctx, owner, t.seq, run)
}

// progressed records one progress report and waits for the next.
func (t *labTask) progressed(msg labProgressMsg) tea.Cmd {
	t.phase, t.done, t.total = msg.p.phase, msg.p.done, msg.p.total
	return waitLabProgress(msg.owner, msg.seq, msg.events)
}

// statusLines is the line shown above the content: while the evaluation runs, what it is
// doing and how far, with a progress bar of barWidth cells and how to cancel (cancelHint);
// else the last error; else the note. Nil when there is none.
func (t *labTask) statusLines(st *Styles, w int, doing string, barWidth int, cancelHint string) []string {
	switch {
	case t.running:
		return []string{st.App.Status.Render(ansi.Truncate(fmt.Sprintf("%s: %s %s · %s",
			doing, progressText(t.phase, t.done, t.total), progressBar(t.done, t.total, barWidth), cancelHint), w, "…"))}
	case t.err != nil:
		return []string{st.App.Error.Render(ansi.Truncate("! "+sanitizeLine(t.err.Error()), w, "…"))}
	case t.note != "":
		return []string{st.App.Status.Render(ansi.Truncate(t.note, w, "…"))}
	}
	return nil
}

// subtleWrapped is untrusted prose (a table's note, a baseline's description) sanitised,
// wrapped to wrap cells and each line, after prefix, cut to w and set in the subtle style.
func subtleWrapped(st *Styles, text, prefix string, wrap, w int) []string {
	var out []string
	for _, l := range strings.Split(ansi.Wrap(sanitizeLine(text), wrap, ""), "\n") {
		out = append(out, st.App.Subtle.Render(ansi.Truncate(prefix+l, w, "…")))
	}
	return out
}
