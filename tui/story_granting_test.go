package tui

import (
	"strings"
	"testing"
)

// TestFalseAuthorityNamesTheGrantingRecord: with several overgranting rows, the caption names
// a row of the record the memory grants the probe through, not merely the first in id order.
func TestFalseAuthorityNamesTheGrantingRecord(t *testing.T) {
	forms := true
	b := BlockDetail{Index: 4, Fidelity: []FieldRow{
		{AuthorizationID: "AT-A", Field: "scope.asset_ids", Errors: []string{"broadening"}, Overgrant: true},
		{AuthorizationID: "AT-E", Field: "valid_until", Errors: []string{"broadening"}, Overgrant: true},
	}}
	p := &ProbeRow{ProbeID: "p_time", Scope: "in_scope", Dimension: "time", Forms: &forms, MemoryReason: "authorized:AT-E"}
	s := falseAuthorityStep(b, p, "p_time", "")
	if !strings.Contains(s.Caption, "contradicts: AT-E valid_until") {
		t.Fatalf("caption %q", s.Caption)
	}
}
