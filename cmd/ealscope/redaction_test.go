package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyEchoedInASuccessfulReplyIsNeverStored: a 200 reply quoting the Authorization header
// (text, tool call id and arguments, model name, usage) and a Basic credential, through
// `ealscope replay` into the workspace and `ealscope run` into a run directory imported
// there too: the key is in no file under the test folder (database, WAL, run directory, log
// file) nor in any output, the Basic credential is gone, and each stored row says what was
// redacted.
func TestKeyEchoedInASuccessfulReplyIsNeverStored(t *testing.T) {
	env := newReplayEnv(t)
	setXDG(t, env.dir, "XDG_STATE_HOME")
	r := env.replay(t, "echo-key-200", append([]string{"--log-level", "debug"}, env.chainArgs(env.formed, "exact")...)...)
	if r.code != 0 {
		t.Fatalf("replay exit %d: %s", r.code, r.stderr)
	}
	outputs := []string{r.stdout, r.stderr}
	runDir := filepath.Join(env.dir, "echo-200-run")
	out, errs, code := runCLI(t, "--log-level", "debug", "run", "--builtin", "--cases", env.chain.CaseID, "--conditions", "faithful_typed", "--executor", "fake",
		"--config", env.config, "--out", runDir)
	outputs = append(outputs, out, errs)
	if code != 0 {
		t.Fatalf("run with the echoing executor: exit %d: %s", code, errs)
	}
	outputs = append(outputs, runOK(t, "import", "--db", env.db, runDir))
	calls, _ := os.ReadFile(filepath.Join(runDir, "calls.jsonl"))
	trials, _ := os.ReadFile(filepath.Join(runDir, "trials.jsonl"))
	if !bytes.Contains(calls, []byte(`"redactions": [{"count": `)) || !bytes.Contains(calls, []byte(`"field": "response.tool_calls[0].function.arguments"`)) {
		t.Errorf("calls.jsonl does not record what was redacted:\n%.600s", calls)
	}
	if !bytes.Contains(trials, []byte(`"response_redactions": [`)) {
		t.Errorf("trials.jsonl does not record what was redacted:\n%.600s", trials)
	}
	if !strings.Contains(r.stdout, `"redactions"`) {
		t.Errorf("the replay row does not record what was redacted:\n%s", r.stdout)
	}
	for _, b := range [][]byte{calls, trials, []byte(r.stdout)} {
		if bytes.Contains(b, []byte("dXNlcjpodW50ZXIy")) {
			t.Error("a Basic credential was stored")
		}
	}
	if _, err := os.Stat(filepath.Join(env.dir, "state", "ealscope", "ealscope.log")); err != nil {
		t.Errorf("no log file written under the test folder: %v", err)
	}
	assertNoKey(t, env.dir, outputs)
}
