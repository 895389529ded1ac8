package replay

import "testing"

func TestRedactSecrets(t *testing.T) {
	key := "k3y-Value.with/odd+chars"
	for in, want := range map[string]string{
		"AuthenticationError: bad key: Bearer " + key:    "AuthenticationError: bad key: Bearer [REDACTED]",
		"key was " + key + " and again " + key:           "key was [REDACTED] and again [REDACTED]",
		"bearer abc.def-ghi rest":                        "bearer [REDACTED] rest",
		`{"message":"sk-proj-AbC_123456789 is invalid"}`: `{"message":"[REDACTED] is invalid"}`,
		"no secret here: sk-1":                           "no secret here: sk-1",
	} {
		if got := RedactSecrets(in, key); got != want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", in, got, want)
		}
	}
}
