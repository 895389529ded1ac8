package tui

import (
	"strings"
	"testing"
)

// TestTypedMemoryKeepsIntegers: a stored typed payload with a large integer limit (finance's
// price micros) shows the integer, never a float rendering.
func TestTypedMemoryKeepsIntegers(t *testing.T) {
	m := presentMemory("m", 0, "typed", `{"authorizations":[{"authorization_id":"a","max_limit_price_micros":125000000}],"schema_version":"5"}`, "h")
	var text []string
	for _, f := range flatten(m.Payload) {
		text = append(text, f.path+"="+f.value)
	}
	got := strings.Join(text, " ")
	if !strings.Contains(got, "125000000") || strings.Contains(got, "e+") {
		t.Fatalf("fields %s", got)
	}
}
