package rundir

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkRefIndexHeap measures the heap the cross-file index keeps per row: it holds every
// id of a run until the last file is read, so it is the part of an import's heap that grows
// with the run. Rows are shaped as a large run's: memories, model contexts and calls with
// ealscope-length ids, and trials. Reported: bytes kept per row after a collection.
//
//	go test ./runs/rundir -run '^$' -bench RefIndexHeap -benchtime 1x
func BenchmarkRefIndexHeap(b *testing.B) {
	const perKind = 100_000
	kinds := []struct{ name, key string }{{Memories, "memory_id"}, {ModelContexts, "context_id"}, {Calls, "call_id"}, {Trials, "trial_id"}}
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := newRefIndex()
		for _, k := range kinds {
			for i := range perKind {
				id := fmt.Sprintf("ealscope_gen_s7_%05d.incremental_typed.w%d.%s.%08x", i/40, i%3, k.key, i)
				tree := map[string]any{k.key: id, "case_id": fmt.Sprintf("ealscope_gen_s7_%05d", i/40)}
				if k.name == Trials {
					tree["metadata"] = map[string]any{"core": map[string]any{"trial_id": id}}
				}
				x.add(k.name, Row{Line: i + 1, Tree: tree}, []byte(id))
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(kinds)*perKind), "B/row-kept")
		runtime.KeepAlive(x)
	}
}
