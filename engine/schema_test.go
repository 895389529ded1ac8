package engine

import (
	"encoding/json"
	"testing"
)

func TestReadableScaledLimit(t *testing.T) {
	f := SchemaField{Path: "max_price", Scale: 1_000_000, ScaleUnit: "micros"}
	for n, want := range map[int64]string{125000000: "125 (125000000 micros)", 75500000: "75.5 (75500000 micros)", 1: "0.000001 (1 micros)", 0: "0 (0 micros)"} {
		if got := f.Readable(n); got != want {
			t.Errorf("Readable(%d) = %q, want %q", n, got, want)
		}
	}
	if got := (SchemaField{}).Readable(5); got != "" {
		t.Errorf("unscaled field: %q", got)
	}
	s := RecordSchema{Fields: []SchemaField{f, {Path: "qty", Kind: KindLimit}}}
	in := map[string]any{"authorizations": []any{map[string]any{"max_price": json.Number("2500000"), "qty": json.Number("7")}}}
	out := s.ReadablePayload(in).(map[string]any)["authorizations"].([]any)[0].(map[string]any)
	if out["max_price"] != "2.5 (2500000 micros)" || out["qty"] != json.Number("7") {
		t.Fatalf("readable payload %v", out)
	}
	if in["authorizations"].([]any)[0].(map[string]any)["max_price"] != json.Number("2500000") {
		t.Fatal("ReadablePayload changed its input")
	}
}
