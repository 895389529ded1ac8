package pyjson

import "strings"

// StableID64 is EAL-Bench's pipeline._stable_id: prefix + "_" + sha256 of the parts joined by
// the unit separator (0x1f), 64 hex digits. Executor trials, calls and contexts and the
// baseline (faithful/controlled) chains use it.
func StableID64(prefix string, parts ...string) string {
	return prefix + "_" + SHA256Hex([]byte(strings.Join(parts, "\x1f")))
}

// StableID24 is EAL-Bench's langmem_writer._stable_id: prefix + "_" + the first 24 hex digits
// of sha256 of the parts joined by NUL. Every writer-produced id uses it.
func StableID24(prefix string, parts ...string) string {
	return prefix + "_" + SHA256Hex([]byte(strings.Join(parts, "\x00")))[:24]
}
