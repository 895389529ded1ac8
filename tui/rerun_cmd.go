package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
)

// startRerunCmd runs the written arm (when the variant is another) and then the chosen arm,
// storing each arm as it finishes and streaming progress; the final message carries the
// batches to compare.
func startRerunCmd(ctx context.Context, seq int, store Rerunner, src runs.RerunSource, mem replay.RerunMemory, probes []runs.RerunProbeSource, models replay.Models, name string, n int) tea.Cmd {
	events := make(chan replay.Event, 1)
	run := func() tea.Msg {
		defer close(events)
		ex, err := models.Executor(src.Domain, name, workbench.AnalysisSeed)
		if err != nil {
			return rerunDoneMsg{seq: seq, err: err}
		}
		save := workbench.SaveRerun(store, src)
		var specs []replay.RerunSpec
		if mem.Variant != engine.VariantWritten && src.MemoryID != "" {
			written, err := replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
			if err != nil {
				return rerunDoneMsg{seq: seq, err: err}
			}
			specs = append(specs, workbench.RerunSpecFor(src, written, probes, ex, n, workbench.AnalysisSeed))
		}
		specs = append(specs, workbench.RerunSpecFor(src, mem, probes, ex, n, workbench.AnalysisSeed))
		total := len(specs) * len(probes) * n
		done := 0
		var batches []string
		var unsaved []replay.RerunResult
		for _, spec := range specs {
			ch, err := replay.StartRerun(ctx, spec, save)
			if err != nil {
				return rerunDoneMsg{seq: seq, err: err, batches: batches}
			}
			for ev := range ch {
				switch ev.Kind {
				case replay.EventResult:
					done++
					if len(batches) == 0 || batches[len(batches)-1] != ev.Result.BatchID {
						batches = append(batches, ev.Result.BatchID)
					}
					select {
					case events <- replay.Event{Kind: replay.EventResult, Done: done, Total: total, Result: ev.Result}:
					default: // progress is best effort; the result itself is stored
					}
				case replay.EventDone:
					unsaved = append(unsaved, ev.Unsaved...)
					if len(unsaved) > 0 && ev.Err != nil && len(ev.Unsaved) > 0 {
						continue // the save failed, not the run: the next arm still runs
					}
					if ev.Err != nil || ev.Cancelled {
						return rerunDoneMsg{seq: seq, err: ev.Err, cancelled: ev.Cancelled, batches: batches, unsaved: unsaved, save: save}
					}
				}
			}
		}
		return rerunDoneMsg{seq: seq, batches: batches, unsaved: unsaved, save: save}
	}
	started := func() tea.Msg { return taskStartedMsg{seq, "rerun"} }
	return tea.Batch(started, run, waitRerunEvent(seq, events))
}

// waitRerunEvent delivers one progress event; Update re-arms it until the stream closes.
func waitRerunEvent(seq int, events <-chan replay.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-events
		if !ok {
			return rerunEventMsg{seq: seq, ev: replay.Event{Kind: replay.EventDone}}
		}
		return rerunEventMsg{seq: seq, ev: ev, events: events}
	}
}
