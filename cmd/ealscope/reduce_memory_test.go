package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReduceChild is not a test on its own: TestReduceMemoryIsBounded runs the test binary
// again with this test selected, so the peak RSS measured is that one command's.
func TestReduceChild(t *testing.T) {
	batch := os.Getenv("EALSCOPE_REDUCE_CHILD_BATCH")
	if batch == "" {
		t.Skip("run by TestReduceMemoryIsBounded")
	}
	if code := run([]string{"--log-level", "off", "reduce", "--domain", "cybersecurity", "--batch", batch, "--json"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// VmHWM is this process image's own peak: the rusage of a child started by fork and exec
	// also counts the parent's resident set at the fork, which in a full test run is larger
	// than the command's whole peak.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Printf("reduce-child-peak %s\n", strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
		}
	}
}

// TestReduceMemoryIsBounded: reduce --batch with a 20 MiB string field (the attack's size)
// takes at most 20 times its input above what the same command takes for an empty batch (it
// reached 32 times, 679 MiB, when byte-pair encoding counted the field as one piece). The
// baseline is subtracted because the test binary's own resident set (tens of MiB, growing with
// every package linked in) says nothing about the input's amplification.
func TestReduceMemoryIsBounded(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, filepath.Join(dir, "empty.json"), []byte(reduceBatch(`[]`)))
	big := strings.Repeat("x", 20<<20)
	record := `{"authorization_id":"A-1","issuer":"security_duty_officer","grantee":"incident_response_team","effect":"permit_incident_response","action":"execute_response_action","valid_from":"2026-09-01T00:00:00Z","valid_until":"2026-09-02T00:00:00Z","scope":{"tenant_id":"` + big + `","incident_id":"i","asset_ids":["a"],"environments":["production"],"approved_actions":["isolate_host"],"vulnerability_ids":["CVE-1"]},"supersedes":null}`
	body := reduceBatch(`[{"event_type":"issue","target_authorization_id":null,"source_turn_ids":["s1"],"record":` + record + `,"changes":null}]`)
	batch := writeFile(t, filepath.Join(dir, "batch.json"), []byte(body))
	base := reducePeakRSS(t, empty)
	peak := reducePeakRSS(t, batch)
	t.Logf("reduce of a %d-byte batch: peak RSS %d MiB (%d MiB for an empty batch)", len(body), peak>>20, base>>20)
	if peak-base > 20*int64(len(body)) {
		t.Errorf("peak RSS %d MiB above the empty batch's for a %d MiB batch: more than 20 times the input", (peak-base)>>20, len(body)>>20)
	}
}

func reduceBatch(events string) string {
	return `{"block_index":0,"input":{"arguments":{"events":` + events + `},"visible_source_ids":["s1"],"addressable_authorization_ids":[],"logical_update_id":"upd 1/x","capacity_tokens":100000},"records_before":{}}`
}

// reducePeakRSS runs TestReduceChild on batch in a child process and returns its peak RSS.
func reducePeakRSS(t *testing.T, batch string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReduceChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EALSCOPE_REDUCE_CHILD_BATCH="+batch)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "reduce-child-peak "); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(rest, " kB"), 10, 64)
			if err != nil {
				t.Fatalf("child's peak %q: %v", rest, err)
			}
			return kb * 1024
		}
	}
	t.Skipf("the child reported no peak (no /proc?):\n%s", out)
	return 0
}
