package replay

import (
	"regexp"
	"strings"
)

// Redacted stands where a secret was removed from a provider error.
const Redacted = "[REDACTED]"

// tokenPatterns are credentials an endpoint may echo back in an error body ("bad key:
// Bearer sk-..."): bearer tokens and OpenAI-style secret keys, whatever key is configured.
var tokenPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]+`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{6,}`),
}

// RedactSecrets removes the configured key (any occurrence, however it is framed) and any
// bearer token or sk- key from a provider error before it is stored in a run, the workspace
// or printed: a key echoed by a server must not end up in calls.jsonl, trials.jsonl or the
// replays table.
func RedactSecrets(msg, key string) string {
	if key != "" {
		msg = strings.ReplaceAll(msg, key, Redacted)
	}
	msg = tokenPatterns[0].ReplaceAllString(msg, "${1}"+Redacted)
	return tokenPatterns[1].ReplaceAllString(msg, Redacted)
}
