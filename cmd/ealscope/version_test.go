package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.2.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}}}
	if got, want := formatVersion(info), "ealscope v0.2.0 (revision abc123 (modified), 2026-12-01T10:00:00Z, go1.26.0)"; got != want {
		t.Errorf("formatVersion = %q, want %q", got, want)
	}
	if got := formatVersion(&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}); !strings.Contains(got, ealscopeVersion) || !strings.Contains(got, "revision unknown") {
		t.Errorf("devel build: %q", got)
	}
}

// TestVersionFlag: --version prints the version line and exits 0 (the revision comes from
// the build info the toolchain stamps into a built binary; formatVersion is tested above).
func TestVersionFlag(t *testing.T) {
	out, errs, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "ealscope ") {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
