package replay

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Redacted stands where a secret was removed from a provider error or a model reply.
const Redacted = "[REDACTED]"

var (
	// bearerToken is "Bearer <token>"; the token is only a credential when it looks like
	// one (see credentialLike), so "the bearer of the approval" stays as written.
	bearerToken = regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/=\-]+)`)
	// basicToken is "Basic <base64>"; it is a credential when the base64 decodes to
	// "user:password" (see basicCredential).
	basicToken = regexp.MustCompile(`(?i)\b(basic\s+)([A-Za-z0-9+/]{4,}={0,2})`)
	// skKey is an OpenAI-style secret key, whatever key is configured.
	skKey = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{6,}`)
)

// credentialLike: at least 8 characters holding a digit or token punctuation, which every
// bearer token seen in practice does (sk- keys, JWTs, hex) and English words do not.
func credentialLike(tok string) bool {
	return len(tok) >= 8 && strings.ContainsAny(tok, "0123456789._~+/=-")
}

func basicCredential(tok string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if raw, err := enc.DecodeString(tok); err == nil && strings.Contains(string(raw), ":") {
			return true
		}
	}
	return false
}

// redactCount is RedactSecrets that also says how many credentials it replaced.
func redactCount(msg, key string) (string, int) {
	n := 0
	if len(key) > 0 {
		if c := strings.Count(msg, key); c > 0 {
			n += c
			msg = strings.ReplaceAll(msg, key, Redacted)
		}
	}
	replace := func(re *regexp.Regexp, is func(string) bool) {
		msg = re.ReplaceAllStringFunc(msg, func(m string) string {
			sub := re.FindStringSubmatch(m)
			if sub[2] == Redacted || !is(sub[2]) {
				return m
			}
			n++
			return sub[1] + Redacted
		})
	}
	replace(bearerToken, credentialLike)
	replace(basicToken, basicCredential)
	msg = skKey.ReplaceAllStringFunc(msg, func(string) string { n++; return Redacted })
	return msg, n
}

// RedactSecrets removes the configured key (any occurrence, however it is framed), any
// bearer token, any Basic credential and any sk- key from text a model endpoint sent, before
// it is stored in a run, the workspace or printed: a key echoed by a server must not end up
// in calls.jsonl, trials.jsonl or the replays table (docs/RELIABILITY.md, "Secrets").
func RedactSecrets(msg, key string) string {
	out, _ := redactCount(msg, key)
	return out
}

// redactResponse redacts every text of a successful reply in place (content, tool call ids,
// names and arguments, the model name, strings inside usage) and returns what it changed,
// field by field, for the call's record: the stored row is then not the raw reply, and a
// researcher comparing it with EAL-Bench's hashes must be able to see why.
func redactResponse(rr *RecordedResponse, usage any, key string) (any, []engine.Redaction) {
	var out []engine.Redaction
	field := func(name string, s *string) {
		if s == nil {
			return
		}
		if red, n := redactCount(*s, key); n > 0 {
			*s = red
			out = append(out, engine.Redaction{Field: name, Count: n})
		}
	}
	field("response.content", rr.Content)
	field("response_model", rr.Model)
	field("response.finish_reason", rr.FinishReason)
	for i := range rr.ToolCalls {
		tc := &rr.ToolCalls[i]
		field(fmt.Sprintf("response.tool_calls[%d].id", i), &tc.ID)
		field(fmt.Sprintf("response.tool_calls[%d].function.name", i), &tc.Name)
		field(fmt.Sprintf("response.tool_calls[%d].function.arguments", i), &tc.Arguments)
	}
	n := 0
	usage = redactTree(usage, key, &n)
	if n > 0 {
		out = append(out, engine.Redaction{Field: "usage", Count: n})
	}
	return usage, out
}

// redactTree redacts the strings (keys and values) of a JSON tree, counting replacements.
func redactTree(v any, key string, n *int) any {
	switch t := v.(type) {
	case string:
		s, c := redactCount(t, key)
		*n += c
		return s
	case []any:
		for i := range t {
			t[i] = redactTree(t[i], key, n)
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			rk, c := redactCount(k, key)
			*n += c
			out[rk] = redactTree(x, key, n)
		}
		return out
	}
	return v
}
