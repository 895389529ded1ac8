package procurement

import (
	"bytes"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

func FuzzParseCase(f *testing.F) {
	for _, line := range bytes.Split(builtinCorpus, []byte("\n")) {
		if len(line) > 0 {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"schema_version": "x", "case_id": "c", "blocks": [], "events": [{}], "probe_pairs": null}`))
	f.Add([]byte(`[1, 2`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := ParseCase(line)
		if err == nil && c == nil {
			t.Fatal("nil case without an error")
		}
	})
}

func FuzzParseTypedPayload(f *testing.F) {
	f.Add([]byte(`{"schema_version": "3", "authorizations": []}`))
	f.Add([]byte(`{"schema_version": "3", "authorizations": [{"authorization_id": "a", "issuer": "chief_financial_officer", "grantee": "it", "effect": "permit_exception", "action": "submit_order", "status": "active", "valid_from": "2026-01-01T00:00:00Z", "valid_until": "2026-02-01T00:00:00Z", "scope": {"vendor": "V", "allowed_categories": ["x"], "max_amount": 10, "currency": "USD"}, "supersedes": null, "source_turn_ids": ["src_00000000_001"]}]}`))
	f.Add([]byte(`{"schema_version": 3, "authorizations": {}}`))
	f.Add([]byte(`"free text"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// A payload that parses serialises back to itself.
		ealtest.TypedRoundTrip(t, raw, ParseTypedPayload, TypedPayloadOf)
	})
}
