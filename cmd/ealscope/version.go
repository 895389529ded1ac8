package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionText is what `ealscope --version` prints: the module version and the VCS revision
// the binary was built from, as the Go toolchain stamped them into the build info (a binary
// built outside a checkout, or by `go run`, has no revision and says so).
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "ealscope " + ealscopeVersion + " (no build info)"
	}
	return formatVersion(info)
}

func formatVersion(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" || version == "(devel)" {
		version = ealscopeVersion
	}
	s := map[string]string{}
	for _, kv := range info.Settings {
		s[kv.Key] = kv.Value
	}
	var parts []string
	switch rev := s["vcs.revision"]; {
	case rev == "":
		parts = append(parts, "revision unknown")
	default:
		if s["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		parts = append(parts, "revision "+rev)
	}
	if t := s["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("ealscope %s (%s)", version, strings.Join(parts, ", "))
}
