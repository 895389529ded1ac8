package replay

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
)

// BenchmarkScriptedRun1000 is a scripted run over 1,000 generated cases, all eight conditions,
// built-in executor, default faults: the figure recorded in docs/BENCHMARKS.md.
//
//	go test ./replay -run '^$' -bench ScriptedRun1000 -benchtime 1x
func BenchmarkScriptedRun1000(b *testing.B) {
	d := procurement.Domain{}
	data, err := procurement.GenerateJSONL(1000, 1)
	if err != nil {
		b.Fatal(err)
	}
	cases, err := d.ParseCorpus("generated:1000:1", data)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "run"+strconv.Itoa(i))
		opts := scriptedOptions(b, engine.Domain(d), cases, dir, 20260821)
		opts.Concurrency = runtime.GOMAXPROCS(0)
		start := time.Now()
		sum, err := Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		b.ReportMetric(float64(len(cases))/elapsed.Seconds(), "cases/s")
		b.ReportMetric(float64(sum.Trials), "trials")
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heapsys-MiB")
	b.ReportMetric(float64(ms.TotalAlloc)/(1<<20)/float64(b.N), "alloc-MiB/run")
	if hwm := vmHWM(); hwm > 0 {
		b.ReportMetric(float64(hwm)/1024, "peakRSS-MiB")
	}
}

// vmHWM is the process's peak resident set size in KiB (Linux), 0 elsewhere.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
