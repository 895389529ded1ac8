package runs

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
)

// memoryChildEnv tells a re-executed test binary which run to import (see TestImportPeakMemory).
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

// TestImportPeakMemory imports a generated run of 300 cases under all eight conditions and
// reports the importing process's peak RSS. The import runs in a fresh process (this test
// binary re-executed) so that the peak is the import's, not the run generation's or another
// test's. It reports and does not assert: the figure belongs in docs/BENCHMARKS.md.
func TestImportPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and imports a run of 300 cases x 8 conditions")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read VmHWM from")
	}
	tmp := t.TempDir()
	data, err := procurement.GenerateJSONL(memoryCases(), 7)
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(tmp, "generated.jsonl")
	if err := os.WriteFile(corpus, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(tmp, "run")
	scriptedRun(t, runDir, corpus, nil, "all")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestImportPeakMemoryChild$", "-test.v", "-test.count", "1")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+strings.Join([]string{runDir, corpus, filepath.Join(tmp, "workspace.db")}, string(os.PathListSeparator)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the importing process failed: %v\n%s", err, out)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		if _, rest, ok := strings.Cut(line, "MEMORY "); ok {
			t.Logf("%d cases x 8 conditions, run directory %.1f MB: %s", memoryCases(), float64(TreeBytes(runDir))/1e6, rest)
			found = true
		}
	}
	if !found {
		t.Fatalf("the importing process reported no memory figures:\n%s", out)
	}
}

// TestImportPeakMemoryChild is the importing process of TestImportPeakMemory; it does nothing
// unless that test started it.
func TestImportPeakMemoryChild(t *testing.T) {
	spec := os.Getenv(memoryChildEnv)
	if spec == "" {
		t.Skip("run by TestImportPeakMemory")
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
