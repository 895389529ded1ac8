package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// fakeModelConfig writes, in dir, a config naming the loopback chat server as model "fake"
// (its key in EALSCOPE_REPLAY_TEST_KEY) and returns its path.
func fakeModelConfig(t *testing.T, srv *chatServer, dir string, concurrency int) string {
	t.Helper()
	t.Setenv("EALSCOPE_REPLAY_TEST_KEY", replayTestKey)
	body := fmt.Sprintf("[models.fake]\nbase_url = %q\nmodel = \"fake-model\"\napi_key_env = \"EALSCOPE_REPLAY_TEST_KEY\"\nconcurrency = %d\ntimeout_s = 0.3\n", srv.URL+"/v1", concurrency)
	return writeFile(t, filepath.Join(dir, "config.toml"), []byte(body))
}

// runBuiltinWithFakeModel runs `ealscope run` on one built-in procurement case, one attempt a
// call, against a loopback chat server answering in mode; it returns the run directory (in a
// fresh temporary folder) and the command's output.
func runBuiltinWithFakeModel(t *testing.T, mode string, args ...string) (dir, out, stdout string) {
	t.Helper()
	srv := newChatServer(t)
	srv.set(mode)
	dir = t.TempDir()
	cfg := fakeModelConfig(t, srv, dir, 4)
	out = filepath.Join(dir, "run")
	return dir, out, runBuiltinCase(t, out, append([]string{"--config", cfg, "--max-attempts", "1"}, args...)...)
}
