package runs

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryChildEnv tells a re-executed test binary which run to import (see BenchmarkImportPeakMemory).
const memoryChildEnv = "EALSCOPE_MEMORY_CHILD"

// memoryCases is the generated corpus size of the memory test (EALSCOPE_MEMORY_CASES overrides).
func memoryCases() int { return envSize("EALSCOPE_MEMORY_CASES", 300) }

// procStatusKB reads one "Name: N kB" line of /proc/self/status (0 where there is none).
func procStatusKB(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkImportPeakMemory imports a generated run of 300 cases under all eight conditions
// (EALSCOPE_MEMORY_CASES overrides) and reports the importing process's peak RSS
// (peak-RSS-MB). The import runs in a fresh process (this test binary re-executed) so that the
// peak is the import's, not the run generation's or another benchmark's. The figure belongs in
// docs/BENCHMARKS.md; TestImportMemoryDoesNotGrowWithRun is the fast check.
//
//	go test ./runs -run '^$' -bench BenchmarkImportPeakMemory -benchtime 1x -timeout 60m
func BenchmarkImportPeakMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc/self/status to read VmHWM from")
	}
	tmp := b.TempDir()
	corpus, _ := generatedCorpus(b, tmp, memoryCases(), 7)
	runDir := filepath.Join(tmp, "run")
	scriptedRun(b, runDir, corpus, nil, "all")
	for i := 0; b.Loop(); i++ {
		db := filepath.Join(tmp, "workspace-"+strconv.Itoa(i)+".db")
		cmd := exec.Command(os.Args[0], "-test.run", "^TestImportPeakMemoryChild$", "-test.v", "-test.count", "1")
		cmd.Env = append(os.Environ(), memoryChildEnv+"="+strings.Join([]string{runDir, corpus, db}, string(os.PathListSeparator)))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("the importing process failed: %v\n%s", err, out)
		}
		peak := 0.0
		for _, line := range strings.Split(string(out), "\n") {
			if _, rest, ok := strings.Cut(line, "MEMORY "); ok {
				b.Logf("%d cases x 8 conditions, run directory %.1f MB: %s", memoryCases(), float64(TreeBytes(runDir))/1e6, rest)
				if v, ok := strings.CutPrefix(rest, "peak RSS (VmHWM) "); ok {
					f, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
					peak = max(peak, f)
				}
			}
		}
		if peak == 0 {
			b.Fatalf("the importing process reported no memory figures:\n%s", out)
		}
		b.ReportMetric(peak, "peak-RSS-MB")
	}
}

// TestImportMemoryDoesNotGrowWithRun imports generated runs of two sizes (10 and 40 cases,
// all eight conditions) and compares the heap an import keeps for the whole run: live after
// a collection at the moment every row is stored, before derivation (which works one case at
// a time) starts. The parse pipeline and the chunks being compressed are bounded and done by
// then, so what is left is what grows with the run: one that held the run's rows, or their
// parsed trees, would keep tens of megabytes more for the larger run. The sampled peak of
// each import is logged (it includes the bounded pipeline, which the smaller run does not
// fill).
func TestImportMemoryDoesNotGrowWithRun(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and imports two runs")
	}
	kept := map[int]uint64{}
	runBytes := map[int]int64{}
	defer func() { streamedHook = nil }()
	for _, n := range []int{10, 40} {
		tmp := t.TempDir()
		corpus, _ := generatedCorpus(t, tmp, n, 7)
		runDir := filepath.Join(tmp, "run")
		scriptedRun(t, runDir, corpus, nil, "all")
		runBytes[n] = TreeBytes(runDir)
		s := mustOpen(t, filepath.Join(tmp, "ws.db"))
		if _, err := s.Import(context.Background(), []string{corpus}, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		streamedHook = func() {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			kept[n] = ms.HeapAlloc - min(ms.HeapAlloc, base.HeapAlloc)
		}
		stop := make(chan struct{})
		peakc := SampleHeapPeak(stop, time.Millisecond)
		_, err := s.Import(context.Background(), []string{runDir}, ImportOptions{})
		close(stop)
		peak := <-peakc
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d cases (%.1f MB run): %.2f MB kept for the run once its rows are stored, peak heap in use %.1f MB",
			n, float64(runBytes[n])/1e6, float64(kept[n])/1e6, float64(peak)/1e6)
	}
	growth := int64(kept[40]) - int64(kept[10])
	// The larger run is about 35 MB bigger. Its ids and chain keys cost a few hundred bytes
	// per row (well under 2 MB more here); its rows would cost the whole difference.
	if limit := (runBytes[40] - runBytes[10]) / 10; growth > limit {
		t.Fatalf("the import keeps %.2f MB more for a run %.1f MB larger (limit %.1f MB): it holds what it should stream",
			float64(growth)/1e6, float64(runBytes[40]-runBytes[10])/1e6, float64(limit)/1e6)
	}
}

// TestImportPeakMemoryChild is the importing process of BenchmarkImportPeakMemory; it does
// nothing unless that benchmark started it.
func TestImportPeakMemoryChild(t *testing.T) {
	spec := os.Getenv(memoryChildEnv)
	if spec == "" {
		t.Skip("run by BenchmarkImportPeakMemory")
	}
	parts := strings.Split(spec, string(os.PathListSeparator))
	if len(parts) != 3 {
		t.Fatalf("%s=%q", memoryChildEnv, spec)
	}
	before := procStatusKB("VmHWM")
	s, err := Open(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The corpus first, then the run: the corpus's cases are parsed together, so its peak is
	// the corpus's; the run's import streams and should add little to it.
	rows := 0
	for _, p := range []string{parts[1], parts[0]} {
		rep, err := s.Import(context.Background(), []string{p}, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			for _, n := range r.Rows {
				rows += n
			}
		}
		if p == parts[1] {
			t.Logf("MEMORY peak RSS (VmHWM) %.0f MB after importing the corpus", float64(procStatusKB("VmHWM"))/1024)
		}
	}
	after := procStatusKB("VmHWM")
	t.Logf("MEMORY peak RSS (VmHWM) %.0f MB after importing the run (%.0f MB before either); %d rows written", float64(after)/1024, float64(before)/1024, rows)
}
