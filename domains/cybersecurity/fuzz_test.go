package cybersecurity

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// FuzzParseCase feeds whole corpus documents to the reader; it must never panic, and a
// document it accepts must encode back to one it accepts with the same cases.
func FuzzParseCase(f *testing.F) {
	small, err := GenerateCorpus(1, 5)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add([]byte(`{"domain_id": "cybersecurity", "corpus_version": "v", "cases": [{"case_id": "c", "blocks": [], "events": [{}], "probes": null}]}`))
	f.Add([]byte(`{"domain_id": "cybersecurity", "corpus_version": "v", "cases": [7, {}]}`))
	f.Add([]byte(`{"cases": [`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Domain{}.ParseEach("fuzz.json", data)
		cases, _, err := ParseCorpus("fuzz.json", data)
		if err != nil {
			return
		}
		again, err := EncodeCorpus(cases[0].CorpusVersion, cases)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := ParseCorpus("again.json", again)
		if err != nil || len(back) != len(cases) {
			t.Fatalf("re-encoded corpus: %v", err)
		}
	})
}

func FuzzParseTypedPayload(f *testing.F) {
	f.Add([]byte(`{"schema_version": "4", "authorizations": []}`))
	f.Add([]byte(`{"schema_version": "4", "authorizations": [{"authorization_id": "g", "issuer": "security_duty_officer", "grantee": "incident_response_team", "effect": "permit_incident_response", "action": "execute_response_action", "status": "active", "valid_from": "2026-01-01T00:00:00Z", "valid_until": "2026-01-02T00:00:00Z", "scope": {"tenant_id": "t", "incident_id": "i", "asset_ids": ["a"], "environments": ["production"], "approved_actions": ["isolate_host"], "vulnerability_ids": ["CVE-1"]}, "supersedes": null, "source_turn_ids": ["src_1"]}]}`))
	f.Add([]byte(`{"schema_version": 4, "authorizations": {}}`))
	f.Add([]byte(`"free text"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// A payload that parses serialises back to itself, and its canonical free text is
		// read without a panic.
		if recs, ok := ealtest.TypedRoundTrip(t, raw, ParseTypedPayload, TypedPayloadOf); ok {
			_, _ = ReadFreeTextLayout(FaithfulTextOf(recs))
		}
	})
}
