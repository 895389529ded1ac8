package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
}

// TestReduceMemoryIsBounded: reduce --batch with a 4 MiB string field stays under 25 times
// its input, fixed runtime overhead included (55 MiB; it reached 152-160 MiB, and 790 MiB for
// 20 MiB, when byte-pair encoding counted the field as one piece).
func TestReduceMemoryIsBounded(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	record := `{"authorization_id":"A-1","issuer":"security_duty_officer","grantee":"incident_response_team","effect":"permit_incident_response","action":"execute_response_action","valid_from":"2026-09-01T00:00:00Z","valid_until":"2026-09-02T00:00:00Z","scope":{"tenant_id":"` + big + `","incident_id":"i","asset_ids":["a"],"environments":["production"],"approved_actions":["isolate_host"],"vulnerability_ids":["CVE-1"]},"supersedes":null}`
	body := `{"block_index":0,"input":{"arguments":{"events":[{"event_type":"issue","target_authorization_id":null,"source_turn_ids":["s1"],"record":` + record + `,"changes":null}]},"visible_source_ids":["s1"],"addressable_authorization_ids":[],"logical_update_id":"upd 1/x","capacity_tokens":100000},"records_before":{}}`
	batch := writeFile(t, filepath.Join(t.TempDir(), "batch.json"), []byte(body))
	cmd := exec.Command(os.Args[0], "-test.run=^TestReduceChild$", "-test.count=1")
	// A low GOGC and a soft memory limit keep the peak close to the live heap (the collector
	// runs before the heap grows past it, however busy the machine), so the figure measures what the
	// command holds rather than when the collector last ran.
	cmd.Env = append(os.Environ(), "EALSCOPE_REDUCE_CHILD_BATCH="+batch, "GOGC=25", "GOMEMLIMIT=32MiB")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	t.Logf("reduce of a %d-byte batch: peak RSS %d MiB", len(body), peak>>20)
	if peak > 25*int64(len(body)) {
		t.Errorf("peak RSS %d MiB for a %d MiB batch: more than 25 times the input", peak>>20, len(body)>>20)
	}
}
